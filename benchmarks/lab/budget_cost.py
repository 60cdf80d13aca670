"""What a larger passage budget costs the verify pass: the same selections read at each budget, one pass after the
other (so drift in the machine's speed falls on every budget alike), timed; no state is kept and no verdict looked
at, so any claims may be used (the default: the 100 HotpotQA questions' selections, no dev claim).

    python -m benchmarks.lab.budget_cost --readings chain-order-1@21:2400 chain-order-1@21:3000 --limit 30
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from tqdm import tqdm

from benchmarks.feature_archive import parse_reading
from claimhop.atomic import write_text
from claimhop.evaluation.runner import json_objects
from claimhop.evaluation.verifier_features import documents_for
from claimhop.program.verify.reading import (
    passage_messages,
    passages_read,
    read_passages,
)

SELECTIONS = Path("docs/results/plan-examples/hotpotqa-100/new.jsonl")
CLAIMS = Path("docs/results/plan-examples/hotpotqa-100/claims.jsonl")


def selections(rows_path: Path, claims_path: Path, limit: int) -> list[tuple[str, list[str]]]:
    """(claim text, selected titles) of the first `limit` rows whose claim the claims file gives."""
    text = {row["uid"]: row["claim"] for row in json_objects(claims_path)}
    chosen = [(text[row["uid"]], row["titles"]) for row in json_objects(rows_path) if row["uid"] in text]
    return chosen[:limit]


def measure(items: list[tuple[str, list[str]]], readings: list[str]) -> dict[str, dict]:
    """Per reading: each pass's seconds and the characters of its prompt."""
    from claimhop.lm.provider import local_engine
    from claimhop.retrieval.corpus import load_corpus

    corpus, engine = load_corpus(), local_engine()
    rules = {name: parse_reading(name) for name in readings}
    seconds: dict[str, list[float]] = {name: [] for name in readings}
    chars: dict[str, list[int]] = {name: [] for name in readings}
    warm_claim, warm_titles = items[0]
    read_passages(engine, warm_claim, documents_for(corpus, warm_titles), rules[readings[0]])  # loaded, not timed
    for claim, titles in tqdm(items, desc="budgets", unit="claim"):
        documents = documents_for(corpus, titles)
        for name, rule in rules.items():
            started = time.perf_counter()
            read_passages(engine, claim, documents, rule)
            seconds[name].append(time.perf_counter() - started)
            chars[name].append(len(json.dumps(passage_messages(claim, passages_read(documents, claim, rule)))))
    return {name: {"median_s": statistics.median(seconds[name]), "mean_s": statistics.fmean(seconds[name]),
                   "median_prompt_chars": statistics.median(chars[name]), "n": len(seconds[name])}
            for name in readings}


def table(result: dict[str, dict], command: str) -> str:
    first = next(iter(result.values()))
    lines = ["| reading | passes | prompt characters (median) | seconds a pass (median) | mean | ratio (median) |",
             "|---|---|---|---|---|---|"]
    for name, row in result.items():
        lines.append(f"| {name} | {row['n']} | {row['median_prompt_chars']:.0f} | {row['median_s']:.2f} | "
                     f"{row['mean_s']:.2f} | {row['median_s'] / first['median_s']:.2f} |")
    return "\n".join(lines) + f"\n\n`{command}`\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--readings", nargs="+", default=["chain-order-1@21:2400", "chain-order-1@21:3000"],
                        help="NAME@BLOCKS:BUDGET each (benchmarks.lab.head_sources); the first is the baseline")
    parser.add_argument("--rows", default=str(SELECTIONS), help="a `claimhop eval` rows file: the selections read")
    parser.add_argument("--claims", default=str(CLAIMS), help="the claims file giving each row's text")
    parser.add_argument("--limit", type=int, default=30)
    parser.add_argument("--out", help="also write the table here (markdown)")
    args = parser.parse_args()
    items = selections(Path(args.rows), Path(args.claims), args.limit)
    if not items:
        raise SystemExit(f"no row of {args.rows} has its claim in {args.claims}")
    command = "python -m benchmarks.lab.budget_cost --readings " + " ".join(args.readings) + f" --limit {args.limit}"
    report = table(measure(items, args.readings), command)
    print(report)
    if args.out:
        write_text(Path(args.out), report)


if __name__ == "__main__":
    main()
