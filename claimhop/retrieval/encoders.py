"""Which sentence encoder an index uses: the bundled int8 ONNX MiniLM (no PyTorch), or any sentence-transformers
model the user names (an installed model's folder, or a name already in the local Hugging Face cache).

The index records its encoder; queries are encoded by the same one (`encoder_for(manifest["encoder"])`), so a
collection embedded by one model is never searched with another's vectors. Nothing is downloaded: the offline
flags are set before sentence-transformers is imported, so a name that is not on disk is a one-line error."""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import numpy as np

from claimhop.retrieval import offline  # noqa: F401  (HF_HUB_OFFLINE before sentence-transformers loads)
from claimhop.retrieval.encoder import ENCODER_NAME, EncoderUnavailable, encode

Encode = Callable[[list[str]], np.ndarray]
DEFAULT_NAMES = ("", "default", ENCODER_NAME, "all-MiniLM-L6-v2")
EXTRA = "pip install 'claimhop[sentence-transformers]'"


def encoder_name(given: str | None) -> str:
    """The name an index records: the bundled encoder's, or a local folder as an absolute path, or the name."""
    if not given or given in DEFAULT_NAMES:
        return ENCODER_NAME
    path = Path(given).expanduser()
    return str(path.resolve()) if path.exists() else given


def encoder_for(name: str) -> Encode:
    """A function from texts to unit-length float32 vectors for the encoder `name` (loaded once per process)."""
    if name in DEFAULT_NAMES:
        return encode
    model = _sentence_transformer(name)
    lock = threading.Lock()

    def run(texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, model.get_sentence_embedding_dimension() or 0), dtype=np.float32)
        with lock:
            vectors = model.encode(texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True,
                                   show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)

    return run


def encoder_dim(name: str) -> int:
    """The vectors' dimension (384 for MiniLM), found by encoding one word."""
    return int(encoder_for(name)(["dimension"]).shape[1])


@lru_cache(maxsize=4)
def _sentence_transformer(name: str):
    path = Path(name).expanduser()
    if path.exists() and not (path / "modules.json").is_file() and not (path / "config.json").is_file():
        raise EncoderUnavailable(f"{path} is not a sentence-transformers model folder (no modules.json or config.json)")
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        raise EncoderUnavailable(f"the encoder {name!r} needs sentence-transformers: {EXTRA}") from None
    try:
        return SentenceTransformer(str(path) if path.exists() else name, device="cpu", local_files_only=True)
    except Exception as err:  # noqa: BLE001 - Hugging Face raises OSError, ValueError, HFValidationError...
        reason = str(err).strip().splitlines()[0][:200] if str(err).strip() else type(err).__name__
        raise EncoderUnavailable(f"the encoder {name!r} is not on this machine (claimhop downloads nothing; give a "
                                 f"model folder or a name in the Hugging Face cache): {reason}") from None
