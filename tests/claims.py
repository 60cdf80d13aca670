"""The bundled HoVer dev claims, by uid, for tests that run real claims."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def hover_claim(uid_prefix: str) -> dict:
    for line in (ROOT / "claimhop" / "data" / "claims_dev.jsonl").read_text().splitlines():
        row = json.loads(line)
        if row["uid"].startswith(uid_prefix):
            return row
    raise LookupError(uid_prefix)
