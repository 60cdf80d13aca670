"""The HotpotQA questions as a claims file that `claimhop eval` reads: the question is the "claim", its two
supporting paragraphs' titles are the gold titles (`num_hops` 2), so retrieval choices can be made on questions
that are not the dev claims reported on.

The committed sample (`benchmarks/samples/hotpotqa-200-seed0.jsonl`) is seeded and stratified by question type
(bridge and comparison, in their proportion among the typed questions), and leaves out the questions
`claimhop optimize` trains on by default, so an optimised program is never scored on what it learnt from.

    python -m benchmarks.lab.hotpotqa            # writes the sample once (an existing file is never rewritten)
"""

from __future__ import annotations

import gzip
import json
import random
from collections import defaultdict
from pathlib import Path

from claimhop.atomic import write_text
from claimhop.evaluation.optimize import TRAIN_QUESTIONS, training_examples

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "benchmarks" / "samples" / "hotpotqa-200-seed0.jsonl"
TYPES = ("bridge", "comparison")


def as_claims(n: int = 200, seed: int = 0, path: Path = TRAIN_QUESTIONS) -> list[dict]:
    """`n` typed questions in the claims file's fields, seeded, each type in proportion (at least one each)."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    trained_on = {ex.uid for ex in training_examples(24, 0, path)}
    by_type: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        if row.get("type") in TYPES and row["uid"] not in trained_on:
            by_type[row["type"]].append(row)
    total = sum(len(group) for group in by_type.values())
    rng = random.Random(seed)
    picked: list[dict] = []
    for kind in TYPES:
        quota = max(1, round(n * len(by_type[kind]) / total))
        picked += rng.sample(by_type[kind], min(quota, len(by_type[kind])))
    order = {row["uid"]: i for i, row in enumerate(rows)}
    picked.sort(key=lambda r: order[r["uid"]])
    return [{"uid": r["uid"], "claim": r["question"], "supporting_titles": r["supporting_titles"], "num_hops": 2,
             "label": None, "type": r["type"], "answer": r["answer"]} for r in picked[:n]]


def sample_file(n: int = 200, seed: int = 0, path: Path = SAMPLE) -> Path:
    """The committed sample: written once, so later runs are compared on the same file, not the same code."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in as_claims(n, seed)))
    return path


if __name__ == "__main__":
    import argparse

    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    print(sample_file())
