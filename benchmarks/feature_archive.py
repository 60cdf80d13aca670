"""Keep the passage verifier's read states with the results, so a retrain or a head comparison on another machine
costs no model time: `save` packs a reading's feature cache (one .npy per prompt read, claimhop.evaluation.
verifier_features) into one compressed file under docs/results/verifier/features/, `load` unpacks it into the cache
(never over a state already there). The file is named like the cache folder (prompt version and model hash), so it
only ever serves the reading and model that made it. `load --into` unpacks it into another reading's folder read
after the same blocks (another budget, say): states are kept by a hash of the exact prompt, so one serves every
reading that shows the model the same messages, and only the prompts that differ are read again.

Table: none; it keeps the states README's verdict row and docs/verification.md's head figures are computed from.

    python -m benchmarks.feature_archive save --reading chain-order-2@21
    python -m benchmarks.feature_archive load --reading chain-order-2@21
    python -m benchmarks.feature_archive load --reading chain-order-1@21 --into chain-order-1@21:3000
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from claimhop.atomic import atomic_path
from claimhop.evaluation.verifier_features import features_dir, save_atomic
from claimhop.program.verify.reading import (
    MODEL_BLOCKS,
    RULE_BUDGET,
    ReadingRule,
    reading_rule,
)

ARCHIVE_DIR = Path("docs/results/verifier/features")


def parse_reading(text: str) -> ReadingRule:
    """'chain-order-2@21' -> that rule read after 21 blocks ('chain-order-2' alone: after all of them);
    'chain-order-1@21:3000' -> with 3,000 characters of passages."""
    spec, _, budget = text.partition(":")
    name, _, blocks = spec.partition("@")
    return reading_rule(name, int(blocks) if blocks else MODEL_BLOCKS, int(budget) if budget else RULE_BUDGET)


def archive_path(folder: Path) -> Path:
    return ARCHIVE_DIR / f"{folder.name}.npz"


def save(folder: Path) -> int:
    """Every state in `folder`, float32 as read, in one compressed file (written atomically)."""
    states = {path.stem: np.load(path) for path in sorted(folder.glob("*.npy"))}
    if not states:
        raise SystemExit(f"no states in {folder}: read them first (`claimhop train-verifier`)")
    target = archive_path(folder)
    target.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(target, suffix=".npz") as tmp:
        np.savez_compressed(tmp, **states)
    return len(states)


def load(folder: Path, target: Path | None = None) -> int:
    """The archived states of `folder`'s reading not yet in `target` (default: that folder), each written on its own
    (a crash leaves whole files)."""
    source = archive_path(folder)
    if not source.is_file():
        raise SystemExit(f"no archive {source} for this reading and model")
    target = target or folder
    target.mkdir(parents=True, exist_ok=True)
    added = 0
    with np.load(source) as archive:
        for key in archive.files:
            path = target / f"{key}.npy"
            if not path.is_file():
                save_atomic(path, archive[key])
                added += 1
    return added


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=("save", "load"))
    parser.add_argument("--reading", default="chain-order-1@28",
                        help="NAME@BLOCKS[:BUDGET], as benchmarks.lab.head_sources takes")
    parser.add_argument("--into", help="load: into this reading's folder instead (read after the same blocks)")
    args = parser.parse_args()
    rule = parse_reading(args.reading)
    folder = features_dir(rule)
    if args.action == "save":
        print(f"{save(folder)} states from {folder} -> {archive_path(folder)}")
        return
    target = folder
    if args.into:
        into = parse_reading(args.into)
        if into.blocks != rule.blocks:
            raise SystemExit(f"--into {args.into}: read after {into.blocks} blocks, the archive after {rule.blocks}: "
                             "a state is the same only at the same layer")
        target = features_dir(into)
    print(f"{load(folder, target)} states from {archive_path(folder)} -> {target}")


if __name__ == "__main__":
    main()
