"""HoVer claims to evaluate on: the vendored dev claims by default, filtered by hop count and sampled by seed."""

from __future__ import annotations

import json
import random
from pathlib import Path

from claimhop.data import bundled

DEV_CLAIMS = bundled("claims_dev.jsonl")
REQUIRED = ("uid", "claim", "supporting_titles")


def load_claims(
    path: str | Path = DEV_CLAIMS, limit: int | None = None, hops: set[int] | None = None, seed: int = 0
) -> list[dict]:
    """Claims in file order; with `limit`, a seeded random sample of that many (kept in file order)."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"claims file not found: {path}")
    rows = []
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}:{line_no}: not valid JSON ({err.msg})") from None
        missing = [f for f in REQUIRED if f not in row]
        if missing:
            raise ValueError(f"{path}:{line_no}: missing field(s) {', '.join(missing)}")
        if hops is None or row.get("num_hops") in hops:
            rows.append(row)
    if limit is not None and limit < len(rows):
        keep = set(random.Random(seed).sample(range(len(rows)), limit))
        rows = [row for i, row in enumerate(rows) if i in keep]
    return rows
