"""Document embeddings on disk: a float16 .npy matrix plus a manifest naming the encoder and corpus hash."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from tqdm import tqdm

from retrieval.atomic import atomic_path, write_json
from retrieval.corpus import Corpus
from retrieval.encoder import ENCODER_NAME, encode, passage_text

BUNDLED_EMBEDDINGS = Path(__file__).resolve().parent.parent / "hover_data" / "corpus.embeddings.f16.npy"


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


def build_embeddings(corpus: Corpus, target: Path, batch_size: int = 256) -> np.ndarray:
    """Encode every document with a progress bar; the manifest is written last so a partial file never counts."""
    chunks = []
    with tqdm(total=len(corpus), desc="encoding corpus", unit="doc") as bar:
        for start in range(0, len(corpus), batch_size):
            stop = min(start + batch_size, len(corpus))
            batch = [passage_text(corpus.titles[i], corpus.texts[i]) for i in range(start, stop)]
            chunks.append(encode(batch, batch_size=64))
            bar.update(stop - start)
    vectors = np.concatenate(chunks).astype(np.float16)
    with atomic_path(target) as tmp, open(tmp, "wb") as handle:
        np.save(handle, vectors)
    write_json(
        manifest_path(target),
        {
            "encoder": ENCODER_NAME,
            "corpus_sha256": corpus.sha256,
            "corpus_name": corpus.path.name,
            "count": len(corpus),
            "dim": int(vectors.shape[1]),
            "dtype": "float16",
            "normalized": True,
            "text": "title | text",
        },
    )
    return vectors
