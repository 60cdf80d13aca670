"""Reciprocal rank fusion of ranked lists (Cormack et al. 2009), the usual hybrid of BM25 and dense."""

from __future__ import annotations

from collections import defaultdict


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
