"""Reciprocal rank fusion of ranked lists (Cormack et al. 2009), the usual hybrid of BM25 and dense."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass


@dataclass(frozen=True)
class Fusion:
    """How hybrid search fuses BM25 and dense: each list's weight, RRF's k (larger flattens the rank curve), and
    how deep each list is read before fusing."""

    bm25_weight: float = 1.5  # chosen on HotpotQA questions held apart from the dev claims (benchmarks/fusion.py)
    dense_weight: float = 1.0
    k: int = 20
    depth: int = 100

    def __post_init__(self) -> None:
        if self.bm25_weight < 0 or self.dense_weight < 0 or self.bm25_weight + self.dense_weight <= 0:
            raise ValueError("fusion weights must be >= 0 and not both 0")
        if self.k < 1 or self.depth < 1:
            raise ValueError("fusion k and depth must be at least 1")


def reciprocal_rank_fusion(
    rankings: list[list[int]], weights: list[float] | None = None, k: int = 60
) -> list[tuple[int, float]]:
    """Fuse ranked id lists; score(d) = sum_i w_i / (k + rank_i(d)), rank from 1."""
    weights = weights or [1.0] * len(rankings)
    scores: dict[int, float] = defaultdict(float)
    for ranking, weight in zip(rankings, weights):
        for rank, doc_id in enumerate(ranking, start=1):
            scores[doc_id] += weight / (k + rank)
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


# the one default every engine, the run settings and the tuned search start from
DEFAULT_FUSION = Fusion()
