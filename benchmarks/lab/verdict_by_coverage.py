"""Where the passage verifier goes wrong on the dev claims: right verdicts by hops, by whether every gold passage was
among the passages read (the shipped reading over the retrieved documents), and by label. No model call: the
cross-fitted verdicts come from the recorded rows (`claimhop eval-verify ... --out`), the passages read from the
reading rule.

    python -m benchmarks.lab.verdict_by_coverage [docs/results/verifier/dev-169-passages.jsonl]
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from claimhop.evaluation.verifier_data import dev_items
from claimhop.evaluation.verifier_features import documents_for
from claimhop.program.verify.head import load_head
from claimhop.program.verify.reading import (
    passages_read,
)
from claimhop.retrieval.corpus import load_corpus

ROWS = Path("docs/results/verifier/dev-169-passages.jsonl")


def table(rows_path: Path = ROWS, system: str = "passages@retrieved") -> list[str]:
    """Markdown rows: hops (4-hop counted with 3), gold passages read or not, label, right of n."""
    corpus, rule = load_corpus(), load_head().reading  # as the shipped head reads
    gold = {item["group"]: set(item["titles"]) for item in dev_items("gold")}
    rows = {r["uid"]: r for r in map(json.loads, rows_path.read_text().splitlines()) if r["system"] == system}
    counts: dict[tuple, list[int]] = defaultdict(lambda: [0, 0])
    for item in dev_items("retrieved"):
        row = rows[item["group"]]
        read = {p["title"] for p in passages_read(documents_for(corpus, item["titles"]), item["claim"], rule)}
        said = "SUPPORTED" if row["predicted"] == "SUPPORTED" else "NOT_SUPPORTED"
        key = ("2" if row["num_hops"] == 2 else "3 or 4", "yes" if gold[item["group"]] <= read else "no", row["label"])
        counts[key][0] += said == row["label"]
        counts[key][1] += 1
    lines = ["| hops | every gold passage read | label | right | of |", "|---|---|---|---|---|"]
    lines += [f"| {h} | {g} | {label} | {r} | {n} |" for (h, g, label), (r, n) in sorted(counts.items())]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", nargs="?", type=Path, default=ROWS)
    print("\n".join(table(parser.parse_args().rows)))


if __name__ == "__main__":
    main()
