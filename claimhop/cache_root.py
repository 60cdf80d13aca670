"""Where claimhop keeps what it builds (indexes, the assembled model, DSPy's cache): one root, overridable."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """`CLAIMHOP_HOME` if set, else ~/.cache/claimhop."""
    root = os.environ.get("CLAIMHOP_HOME") or str(Path.home() / ".cache" / "claimhop")
    path = Path(root).expanduser()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ValueError(f"claimhop's folder {path} (CLAIMHOP_HOME) cannot be used: {err.strerror}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise ValueError(f"claimhop's folder {path} (CLAIMHOP_HOME) is not writable")
    return path
