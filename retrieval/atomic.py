"""Atomic file writes: a temporary file in the same folder, then rename, so a crash never leaves half a file."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def atomic_path(target: str | Path) -> Iterator[Path]:
    """Yield a temporary path beside `target`; it replaces `target` only if the block finishes."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.chmod(tmp_path, 0o644)  # mkstemp makes it owner-only; the result is an ordinary shared file
        os.replace(tmp_path, target)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def write_json(target: str | Path, payload: dict) -> None:
    with atomic_path(target) as tmp:
        tmp.write_text(json.dumps(payload, indent=2, sort_keys=True), encoding="utf-8")
