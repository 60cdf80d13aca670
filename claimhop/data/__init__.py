"""The bundled data: the HoVer corpus (gzipped JSONL) with its precomputed embeddings, the 169 dev claims and the
HotpotQA questions `claimhop optimize` trains on. Read through `importlib.resources`, so it is found wherever
claimhop is installed."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def bundled(name: str) -> Path:
    """A bundled file as a path on disk. FAISS and numpy memory-map these files, so they need a real file: an
    installation that is not a plain folder (a zip) is refused with a clear error."""
    resource = resources.files(__name__) / name
    if not isinstance(resource, Path):
        raise RuntimeError(f"claimhop's bundled {name} is inside an archive; install claimhop as a normal folder")
    return resource
