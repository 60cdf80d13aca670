"""Retrieval on every set claimhop is measured on, in one run (issue 70, item 3): HoVer dev (169 claims), HotpotQA
(the committed 200), and the HealthVer, Climate-FEVER and Check-COVID samples on their folders of documents, each
by `claimhop eval --recall-only` with bm25, hybrid and claimhop side by side, so every figure comes from the same
code, settings and machine. Per set: the gold among the first 5 and the 21 for each system, claimhop paired with
hybrid claim by claim (exact McNemar), and with an earlier run of this command (`--against`). Optionally the same
for one set again with the search in PostgreSQL (`--postgres SET`, with `CLAIMHOP_PG_URL` naming a server the caller
started).

Recall counts as each set is reported elsewhere: on Wikipedia every gold article among the first k (`claimhop eval`);
outside it, any evidence document among the first k, by the passage titled as the document
(benchmarks.out_of_domain's tables; `--count document` counts any passage of it).

    python -m benchmarks.every_set --root /work/ood --out /tmp/every-set    # ~85 min on the 2-core AMD EPYC
    python -m benchmarks.every_set --root /work/ood --out /tmp/every-set-b --against /tmp/every-set --set k=v

Each set's rows are `claimhop eval`'s own results file (OUT/SET/eval.jsonl): a stopped run resumes where it was.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from claimhop.atomic import write_text
from claimhop.evaluation.metric import all_gold_in, evidence_in
from claimhop.evaluation.report import mcnemar_exact
from claimhop.evaluation.runner import rows_in

SYSTEMS = ("bm25", "hybrid", "claimhop")


@dataclass(frozen=True)
class EvalSet:
    """A set `claimhop eval` runs: its claims, its documents (None: the bundled Wikipedia corpus) and how a claim's
    recall counts (every gold article, or any evidence document)."""

    name: str
    claims: str
    corpus: str | None
    every_gold: bool


def eval_sets(root: Path) -> list[EvalSet]:
    """The five sets, the out-of-domain ones from `root` (folders made by benchmarks.claim_sets)."""
    def sample(name: str) -> str:
        found = sorted((root / name).glob("sample-*.jsonl"))
        return str(found[0]) if found else str(root / name / "sample-*.jsonl")

    return [EvalSet("hover-dev", "claimhop/data/claims_dev.jsonl", None, True),
            EvalSet("hotpotqa-200", "benchmarks/samples/hotpotqa-200-seed0.jsonl", None, True),
            *(EvalSet(name, sample(name), str(root / name / "documents"), False)
              for name in ("healthver", "climate-fever", "check-covid"))]


def run_eval(item: EvalSet, out: Path, settings: list[str]) -> Path:
    """`claimhop eval --recall-only` for the set (resuming OUT/SET/eval.jsonl); its results file."""
    if not Path(item.claims).is_file():
        raise SystemExit(f"{item.name}: no claims file {item.claims} (make the sets with benchmarks.claim_sets)")
    rows = out / item.name / "eval.jsonl"
    rows.parent.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "claimhop.cli.main", "eval", "--recall-only", "--systems", ",".join(SYSTEMS),
               "--claims", item.claims, "--out", str(rows)]
    command += ["--corpus", item.corpus] if item.corpus else []
    for setting in settings:
        command += ["--set", setting]
    subprocess.run(command, check=True)
    return rows


def gold_found(item: EvalSet, titles: list[str], gold: list[str], k: int, count: str = "passage") -> bool:
    """Whether a claim of `item` counts as found among the first k titles: every gold article (Wikipedia sets) or
    any evidence document (the others)."""
    return all_gold_in(titles, gold, k) if item.every_gold else evidence_in(titles, gold, k, count)


def hits(item: EvalSet, rows: list[dict], k: int, count: str) -> dict[tuple[str, str], bool]:
    """(system, uid) -> the claim's gold among the system's first k (claims without gold are not counted)."""
    return {(row["system"], row["uid"]): gold_found(item, row.get("titles") or [], row["gold"], k, count)
            for row in rows if row.get("gold") and row.get("system") in SYSTEMS}


def paired(a: dict[str, bool], b: dict[str, bool]) -> tuple[int, int, float]:
    """Claims only `a` finds, only `b` finds, exact McNemar p (on the claims both have)."""
    both = a.keys() & b.keys()
    gained = sum(a[u] and not b[u] for u in both)
    lost = sum(b[u] and not a[u] for u in both)
    return gained, lost, mcnemar_exact(gained, lost)


def of_system(found: dict[tuple[str, str], bool], system: str) -> dict[str, bool]:
    return {uid: ok for (name, uid), ok in found.items() if name == system}


def table(results: dict[str, dict[int, dict]], earlier: dict[str, dict[int, dict]] | None) -> list[str]:
    """One line a set: each system's recall at 5 and 21, claimhop against hybrid (and the earlier run) paired."""
    head = ["| set (claims) | bm25 @5 / @21 | hybrid @5 / @21 | claimhop @5 / @21 | claimhop vs hybrid @5: only "
            "claimhop / only hybrid (p) | @21 |" + (" claimhop vs --against @5 | @21 |" if earlier else "")]
    head.append("|---" * (6 + (2 if earlier else 0)) + "|")
    lines = []
    pooled = {k: {"claimhop": {}, "hybrid": {}} for k in (5, 21)}
    for name, by_k in results.items():
        cells = []
        for system in SYSTEMS:
            shares = [by_k[k][system] for k in (5, 21)]
            cells.append(" / ".join(f"{sum(s.values()) / len(s):.3f}" if s else "-" for s in shares))
        for k in (5, 21):
            g, lo, p = paired(by_k[k]["claimhop"], by_k[k]["hybrid"])
            cells.append(f"{g} / {lo} (p = {p:.2g})")
            if name not in ("hover-dev", "hotpotqa-200") and not name.endswith("-postgresql"):  # a set once
                pooled[k]["claimhop"].update({f"{name}:{u}": v for u, v in by_k[k]["claimhop"].items()})
                pooled[k]["hybrid"].update({f"{name}:{u}": v for u, v in by_k[k]["hybrid"].items()})
        if earlier is not None:
            for k in (5, 21):
                before = earlier.get(name, {}).get(k, {}).get("claimhop", {})
                g, lo, p = paired(by_k[k]["claimhop"], before) if before else (0, 0, 1.0)
                cells.append(f"{g} / {lo} (p = {p:.2g})" if before else "-")
        claims = len(by_k[21]["claimhop"])
        lines.append(f"| {name} ({claims}) | " + " | ".join(cells) + " |")
    out_of_wikipedia = ["{} / {} (p = {:.2g})".format(*paired(pooled[k]["claimhop"], pooled[k]["hybrid"]))
                        for k in (5, 21)]
    lines.append(f"| out-of-domain samples pooled ({len(pooled[21]['claimhop'])}) | | | | {out_of_wikipedia[0]} | "
                 f"{out_of_wikipedia[1]} |" + (" | |" if earlier else ""))
    return head + lines


def measured(item: EvalSet, rows_file: Path, count: str) -> dict[int, dict]:
    """k -> system -> uid -> the claim's gold among the system's first k."""
    rows = list(rows_in(rows_file))
    found = {k: hits(item, rows, k, count) for k in (5, 21)}
    return {k: {system: of_system(found[k], system) for system in SYSTEMS} for k in (5, 21)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=Path("/work/ood"), help="folders made by benchmarks.claim_sets")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--sets", default="", help="comma-separated: only these (default: all five)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", dest="settings",
                        help="a run setting for claimhop, as `claimhop eval --set`")
    parser.add_argument("--against", type=Path, help="an earlier --out of this command: claimhop paired with it")
    parser.add_argument("--count", choices=("passage", "document"), default="passage")
    parser.add_argument("--postgres", metavar="SET", help="run SET again with the search in PostgreSQL "
                        "(retriever=postgresql; CLAIMHOP_PG_URL names the database)")
    parser.add_argument("--report-only", action="store_true", help="no run: the table from the rows in --out")
    args = parser.parse_args(argv)
    every = eval_sets(args.root)
    wanted = [s for s in args.sets.split(",") if s]
    unknown = [s for s in wanted if s not in {e.name for e in every}]
    if unknown:
        parser.error(f"unknown set(s) {', '.join(unknown)}: one of {', '.join(e.name for e in every)}")
    chosen = [e for e in every if not wanted or e.name in wanted]
    if args.postgres:
        if args.postgres not in {e.name for e in every}:
            parser.error(f"--postgres {args.postgres}: one of {', '.join(e.name for e in every)}")
        if not os.environ.get("CLAIMHOP_PG_URL"):
            parser.error("--postgres needs CLAIMHOP_PG_URL (the database the search runs in)")
        base = next(e for e in every if e.name == args.postgres)
        chosen.append(EvalSet(f"{base.name}-postgresql", base.claims, base.corpus, base.every_gold))
    results, earlier = {}, ({} if args.against else None)
    for item in chosen:
        extra = ["retriever=postgresql"] if item.name.endswith("-postgresql") else []
        rows = (args.out / item.name / "eval.jsonl" if args.report_only
                else run_eval(item, args.out, [*args.settings, *extra]))
        results[item.name] = measured(item, rows, args.count)
        if args.against is not None and (args.against / item.name / "eval.jsonl").is_file():
            earlier[item.name] = measured(item, args.against / item.name / "eval.jsonl", args.count)
    text = ["# Retrieval on every set, one run", "",
            (f"`python -m benchmarks.every_set {' '.join(sys.argv[1:])}`. Outside Wikipedia a claim counts when any "
             "of its evidence documents is among the first k, "
             f"{'by the passage titled as the document' if args.count == 'passage' else 'by any of its passages'}; "
             "on HoVer and HotpotQA when every gold article is. (Each set's own `eval.md` counts every gold title on "
             "every set.)"), "", *table(results, earlier)]
    write_text(args.out / "README.md", "\n".join(text) + "\n")
    write_text(args.out / "every-set.json", json.dumps({name: {k: {s: sum(v.values()) / len(v) if v else None
                                                                   for s, v in by.items()} for k, by in r.items()}
                                                        for name, r in results.items()}, indent=1) + "\n")
    print("\n".join(text))


if __name__ == "__main__":
    main()
