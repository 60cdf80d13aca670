"""Is the evidence of an out-of-domain sample claim among the passages the verifier reads (issue 69)?

The verify stage reads the best passages of claimhop's 21 documents within its head's budget (chain-order-1, 3,000
characters, passages up to 1,000 characters): on Check-COVID's long abstracts that is about three passages. A
contradicted claim whose evidence is not read cannot be recognised by any head. Per sample and label, the claims
whose evidence (any passage of an evidence document, claimhop.evaluation.metric.of_document) is among the passages
read today, at a larger budget, and with the reading that cuts each passage of a claim naming no document to 600
characters of its most claim-like sentences (chain-order-1-relevant; no shipped head reads it yet). No model call:
the committed retrieval rows, each set's folder and the claims' text in it.

    python -m benchmarks.lab.sample_reading_coverage --root /work/ood \\
        --rows docs/results/out-of-domain/pairs-head-1188 --out docs/results/out-of-domain/reading-coverage.md
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from claimhop.atomic import write_text
from claimhop.evaluation.metric import of_document
from claimhop.program.verify.reading import ReadingRule, passages_read, reading_rule

SETS = ("healthver", "climate-fever", "check-covid")
RULES: dict[str, ReadingRule] = {
    "today (chain-order-1, 3,000 characters)": reading_rule(),
    "chain-order-1, 5,000 characters": reading_rule(budget=5000),
    "chain-order-1-relevant, 3,000 characters": reading_rule("chain-order-1-relevant"),
}


def coverage(root: Path, rows: Path, name: str) -> tuple[Counter, Counter]:
    """Claims a label, and claims a (rule, label) whose evidence is read."""
    from claimhop.evaluation.verifier_features import documents_for
    from claimhop.retrieval.factory import search_engine

    corpus = search_engine(str(root / name / "documents")).corpus
    claims = {c["uid"]: c["claim"] for c in map(json.loads, (root / name / "claims.jsonl").read_text().splitlines())}
    labels, read = Counter(), Counter()
    for row in map(json.loads, (rows / name / "retrieval.jsonl").read_text().splitlines()):
        if row["system"] != "claimhop" or not row.get("gold"):
            continue
        documents = documents_for(corpus, row["titles"][:21])
        labels[row["label"]] += 1
        for rule_name, rule in RULES.items():
            titles = [p["title"] for p in passages_read(documents, claims[row["uid"]], rule)]
            read[(rule_name, row["label"])] += any(of_document(t, g) for t in titles for g in row["gold"])
    return labels, read


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=Path("/work/ood"), help="folders made by benchmarks.claim_sets")
    parser.add_argument("--rows", type=Path, required=True, help="a folder of NAME/retrieval.jsonl (out_of_domain)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    lines = ["# Evidence among the passages the verifier reads (the samples, claimhop's 21 documents)", "",
             "`python -m benchmarks.lab.sample_reading_coverage` (no model call). Claims whose evidence document "
             "is read, by label:", "", "| set | reading | SUPPORTED | CONTRADICTED | INSUFFICIENT_INFO |",
             "|---|---|---|---|---|"]
    for name in SETS:
        labels, read = coverage(args.root, args.rows, name)
        for rule_name in RULES:
            cells = [f"{read[(rule_name, label)]}/{labels[label]}" if labels[label] else "-"
                     for label in ("SUPPORTED", "CONTRADICTED", "INSUFFICIENT_INFO")]
            lines.append(f"| {name} | {rule_name} | " + " | ".join(cells) + " |")
    write_text(args.out, "\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
