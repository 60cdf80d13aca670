"""Where claimhop keeps what it builds (indexes, the assembled model, DSPy's cache): one root, overridable."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """`CLAIMHOP_HOME` if set, else ~/.cache/claimhop."""
    root = os.environ.get("CLAIMHOP_HOME") or str(Path.home() / ".cache" / "claimhop")
    path = Path(root).expanduser()
    path.mkdir(parents=True, exist_ok=True)
    return path
