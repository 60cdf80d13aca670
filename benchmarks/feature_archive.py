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
    python -m benchmarks.feature_archive save --reading chain-order-1@21:3000 --part ood-samples

`--part NAME` saves only the states no other archive of the reading holds (nor benchmarks.read_pairs' packed
pairs) as READING-NAME.npz; `load` unpacks the reading's archive and every part.
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


def archive_path(folder: Path, part: str = "") -> Path:
    return ARCHIVE_DIR / f"{folder.name}{'-' + part if part else ''}.npz"


def archived_keys(folder: Path) -> set[str]:
    """The prompts whose states some archive of this reading (or a packed pair) already holds."""
    import json

    keys: set[str] = set()
    for path in archives(folder):
        with np.load(path) as archive:
            keys |= set(archive.files)
    for manifest in Path("docs/results/verifier/pairs").glob(f"{folder.name}-*/pairs.jsonl"):
        keys |= {json.loads(line)["key"] for line in manifest.read_text(encoding="utf-8").splitlines() if line}
    return keys


def archives(folder: Path) -> list[Path]:
    """The reading's archive and its parts."""
    return sorted(p for p in ARCHIVE_DIR.glob(f"{folder.name}*.npz")
                  if p.stem == folder.name or p.stem.startswith(folder.name + "-"))


def save(folder: Path, part: str = "", beside: Path | None = None) -> int:
    """Every state in `folder` (with `part`: those no archive holds yet; with `beside`, another reading's folder,
    nor any its archives hold: the states `load --into` gives this reading from that one), float32 as read, in one
    compressed file (written atomically)."""
    skip = (archived_keys(folder) if part else set()) | (archived_keys(beside) if beside else set())
    states = {path.stem: np.load(path) for path in sorted(folder.glob("*.npy")) if path.stem not in skip}
    if not states:
        raise SystemExit(f"no states to save in {folder}: read them first (`claimhop train-verifier`)")
    target = archive_path(folder, part)
    target.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(target, suffix=".npz") as tmp:
        np.savez_compressed(tmp, **states)
    return len(states)


def load(folder: Path, target: Path | None = None) -> int:
    """The archived states of `folder`'s reading not yet in `target` (default: that folder), each written on its own
    (a crash leaves whole files)."""
    sources = archives(folder)
    if not sources:
        raise SystemExit(f"no archive {archive_path(folder)} for this reading and model")
    target = target or folder
    target.mkdir(parents=True, exist_ok=True)
    added = 0
    for source in sources:
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
    parser.add_argument("--part", default="", help="save: only the states no archive holds yet, as READING-PART")
    parser.add_argument("--beside", help="save: nor those another reading's archives hold (the same prompts: "
                        "`load --into` this reading gives them), NAME@BLOCKS[:BUDGET]")
    args = parser.parse_args()
    rule = parse_reading(args.reading)
    folder = features_dir(rule)
    if args.action == "save":
        if args.beside and not args.part:
            raise SystemExit("--beside needs --part (the archive holds only some of the reading's states)")
        beside = features_dir(parse_reading(args.beside)) if args.beside else None
        print(f"{save(folder, args.part, beside)} states from {folder} -> {archive_path(folder, args.part)}")
        return
    target = folder
    if args.into:
        into = parse_reading(args.into)
        if into.blocks != rule.blocks:
            raise SystemExit(f"--into {args.into}: read after {into.blocks} blocks, the archive after {rule.blocks}: "
                             "a state is the same only at the same layer")
        target = features_dir(into)
    print(f"{load(folder, target)} states from {', '.join(map(str, archives(folder)))} -> {target}")


if __name__ == "__main__":
    main()
