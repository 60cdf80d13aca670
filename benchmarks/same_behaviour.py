"""Did a change that should change no behaviour keep it? Two `claimhop eval` rows files of the same claims (before
and after, each run from a frozen worktree with an empty DSPY_CACHEDIR), compared claim by claim: the same 21
documents, candidates, hops, recall, verdict, fallbacks, model calls and tokens, step by step.

Table: the before/after table of a change that should change no behaviour (e.g. docs/results/house/).

    python -m benchmarks.same_behaviour BEFORE.jsonl AFTER.jsonl [--out TABLE.md]

Exit status 1 when any claim differs (the table names the first few)."""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from claimhop.atomic import write_text
from claimhop.evaluation.runner import json_objects

COMPARED = ("titles", "candidate_titles", "hops", "recall@21", "verdict", "degraded", "lm_calls", "tokens")


def step_use(row: dict) -> dict:
    """Each model step's calls asked and made, and its prompt and generated tokens (not its seconds)."""
    return {name: (s["asked"], s["calls"], s["prompt_tokens"], s["output_tokens"]) for name, s in row["steps"].items()}


def compare(before: dict[str, dict], after: dict[str, dict]) -> tuple[list[str], bool]:
    """The table's lines and whether every claim kept every field."""
    common = sorted(set(before) & set(after))
    lines = [f"{len(common)} claims in both files ({len(before)} before, {len(after)} after)", "",
             "| what | same | differ | first that differ |", "|---|---|---|---|"]
    same = len(common) == len(before) == len(after)
    checks = {field: (lambda row, f=field: row[f]) for field in COMPARED}
    checks["calls and tokens, step by step"] = step_use
    for name, value in checks.items():
        differ = [uid for uid in common if value(before[uid]) != value(after[uid])]
        same &= not differ
        lines.append(f"| {name} | {len(common) - len(differ)} | {len(differ)} | {', '.join(differ[:3])} |")
    for name, rows in (("before", before), ("after", after)):
        seconds = [rows[uid]["seconds"] for uid in common]
        lines.append(f"\n{name}: median {statistics.median(seconds):.1f} s a claim (timing is not compared)")
    return lines, same


def claimhop_rows(path: Path) -> dict[str, dict]:
    return {row["uid"]: row for row in json_objects(path) if row.get("system") == "claimhop"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--out", type=Path, help="write the table here too (Markdown)")
    args = parser.parse_args(argv)
    lines, same = compare(claimhop_rows(args.before), claimhop_rows(args.after))
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        write_text(args.out, text)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
