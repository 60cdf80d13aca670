"""Which FAISS index a corpus gets, and how close an approximate one comes to exact search.

Exact inner product (IndexFlatIP) up to AUTO_EXACT_LIMIT documents: at 25k it answers in a few ms and is
always right. Above it HNSW (graph search, no training, good recall at low latency) or, when memory matters
more than recall, IVF-PQ (compressed codes, trained on a sample)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

import faiss
import numpy as np

IndexType = Literal["auto", "flat", "hnsw", "ivfpq"]
INDEX_TYPES: tuple[str, ...] = ("auto", "flat", "hnsw", "ivfpq")
AUTO_EXACT_LIMIT = 200_000  # below this many passages `auto` keeps exact search: a flat scan is still fast there
HNSW_M = 32  # HNSW's links a node (FAISS's usual 32; not tuned here)
HNSW_EF_CONSTRUCTION = 80  # ... candidates while building
HNSW_EF_SEARCH = 96  # ... and while searching: recall@10 against exact search is measured at build (index_store)
IVF_NPROBE = 32  # IVF-PQ's inverted lists searched a query
IVF_MIN_DOCUMENTS = 10_000  # 256 codes per sub-quantizer and enough points per inverted list to train on
PQ_BYTES = 48  # 384 dims / 48 = 8 dims per code byte (other dims: dim / 8)
PQ_CODE_BITS = 8  # a code byte's bits: 256 centroids a sub-quantizer (FAISS's usual), not tuned
# IVF-PQ's inverted lists: this many times the square root of the passages (FAISS's guideline is 4 to 16 times),
# between the two bounds below; set with the index build (a4a86a0), not tuned
IVF_LISTS_PER_ROOT = 4
IVF_MIN_LISTS = 16  # ... at least
IVF_MAX_LISTS = 65_536  # ... at most


def resolve(kind: str, count: int) -> str:
    if kind not in INDEX_TYPES:
        raise ValueError(f"index type must be one of {', '.join(INDEX_TYPES)}, got {kind!r}")
    if kind == "auto":
        return "flat" if count <= AUTO_EXACT_LIMIT else "hnsw"
    return kind


def new_index(kind: str, dim: int, count: int) -> faiss.Index:
    """An empty index of a resolved kind, sized for `count` vectors."""
    if kind == "flat":
        return faiss.IndexFlatIP(dim)
    if kind == "hnsw":
        index = faiss.IndexHNSWFlat(dim, HNSW_M, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
        index.hnsw.efSearch = HNSW_EF_SEARCH
        return index
    if kind == "ivfpq":
        nlist = int(max(IVF_MIN_LISTS, min(IVF_MAX_LISTS, IVF_LISTS_PER_ROOT * np.sqrt(count))))
        code_bytes = next(m for m in (PQ_BYTES, dim // 8, dim // 4, dim) if m and dim % m == 0)
        index = faiss.IndexIVFPQ(faiss.IndexFlatIP(dim), dim, nlist, code_bytes, PQ_CODE_BITS,
                                 faiss.METRIC_INNER_PRODUCT)
        index.nprobe = IVF_NPROBE
        return index
    raise ValueError(f"unknown index type {kind!r}")


def train_sample(shards: list[np.ndarray], size: int) -> np.ndarray:
    """Up to `size` vectors spread evenly over the shards (memory-mapped ones are read only there), for IVF-PQ."""
    total = sum(len(s) for s in shards)
    stride = max(1, total // max(1, size))
    rows = [np.asarray(s[(-offset) % stride::stride], dtype=np.float32)
            for s, offset in zip(shards, np.cumsum([0, *[len(s) for s in shards[:-1]]]))]
    return np.ascontiguousarray(np.concatenate(rows)[:size], dtype=np.float32)


def exact_top_k(queries: np.ndarray, shards: Iterator[np.ndarray], k: int) -> np.ndarray:
    """Ids of the exact top-k inner products, computed shard by shard (never all vectors in memory)."""
    best_scores = np.full((len(queries), 0), -np.inf, dtype=np.float32)
    best_ids = np.zeros((len(queries), 0), dtype=np.int64)
    offset = 0
    for shard in shards:
        scores = queries @ shard.T
        ids = np.broadcast_to(np.arange(offset, offset + len(shard)), scores.shape)
        all_scores = np.concatenate([best_scores, scores], axis=1)
        all_ids = np.concatenate([best_ids, ids], axis=1)
        keep = np.argsort(-all_scores, axis=1, kind="stable")[:, :k]
        best_scores = np.take_along_axis(all_scores, keep, axis=1)
        best_ids = np.take_along_axis(all_ids, keep, axis=1)
        offset += len(shard)
    return best_ids


def recall_against_exact(index: faiss.Index, queries: np.ndarray, exact_ids: np.ndarray) -> float:
    """Mean fraction of the exact top-k that the index also returns in its top-k."""
    k = exact_ids.shape[1]
    _, found = index.search(np.ascontiguousarray(queries, dtype=np.float32), k)
    hits = [len(set(f.tolist()) & set(e.tolist())) / k for f, e in zip(found, exact_ids)]
    return float(np.mean(hits))


def probe_queries(shards: list[np.ndarray], count: int, seed: int = 0) -> np.ndarray:
    """Queries near the data: document vectors from every shard with noise, renormalised (so a query is never
    a stored vector). `shards` may be memory-mapped; only the picked rows are read."""
    rng = np.random.default_rng(seed)
    per_shard = -(-count // max(1, len(shards)))
    picked = [np.asarray(s[np.sort(rng.choice(len(s), min(len(s), per_shard), replace=False))], dtype=np.float32)
              for s in shards if len(s)]
    pool = np.concatenate(picked)[:count]
    # noise of norm ~0.2 at 384 dimensions: near a document, as a query about it is, but never equal to it
    noisy = pool + rng.normal(0, 0.2 / np.sqrt(pool.shape[1]), pool.shape).astype(np.float32)
    return noisy / np.linalg.norm(noisy, axis=1, keepdims=True)
