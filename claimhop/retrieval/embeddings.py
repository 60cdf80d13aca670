"""Document embeddings on disk: a float16 .npy matrix plus a manifest naming the encoder and corpus hash."""

from __future__ import annotations

import json
from pathlib import Path

from claimhop.data import bundled
from claimhop.retrieval.corpus import Corpus
from claimhop.retrieval.encoder import ENCODER_NAME

BUNDLED_EMBEDDINGS = bundled("corpus.embeddings.f16.npy")


def manifest_path(embeddings_path: Path) -> Path:
    return embeddings_path.with_suffix(".manifest.json")


def read_manifest(embeddings_path: Path) -> dict | None:
    path = manifest_path(embeddings_path)
    if not path.is_file() or not embeddings_path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None


def matches(manifest: dict | None, corpus: Corpus) -> bool:
    """Embeddings are reused only when made by this encoder from this exact corpus content."""
    return bool(
        manifest
        and manifest.get("encoder") == ENCODER_NAME
        and manifest.get("corpus_sha256") == corpus.sha256
        and manifest.get("count") == len(corpus)
    )
