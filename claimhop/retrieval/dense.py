"""Dense retrieval: a FAISS inner-product index over unit-length vectors of the index's own encoder."""

from __future__ import annotations

from pathlib import Path

import faiss

from claimhop.atomic import atomic_path
from claimhop.retrieval.encoder import ENCODER_NAME


class DenseIndex:
    """Inner-product search over a FAISS index of any kind (exact, HNSW or IVF-PQ; see claimhop.retrieval.ann)."""

    def __init__(self, index: faiss.Index, encoder: str = ENCODER_NAME):
        self.index = index
        self.encoder = encoder  # queries are encoded by the model that encoded the documents

    @classmethod
    def load(cls, path: Path, encoder: str = ENCODER_NAME) -> DenseIndex:
        return cls(faiss.read_index(str(path)), encoder)

    def persist(self, path: Path) -> None:
        """Write the index atomically (a crash leaves the old file or the new one)."""
        with atomic_path(path) as tmp:
            faiss.write_index(self.index, str(tmp))

    def __len__(self) -> int:
        return int(self.index.ntotal)

    def search(self, queries: list[str], k: int) -> list[list[tuple[int, float]]]:
        """Top-k (doc id, cosine) per query; k beyond the corpus returns the whole corpus."""
        k = min(k, len(self))
        if k <= 0 or not queries:
            return [[] for _ in queries]
        from claimhop.retrieval.encoders import encoder_for

        scores, ids = self.index.search(encoder_for(self.encoder)(queries), k)
        return [
            [(int(i), float(s)) for i, s in zip(row_ids, row_scores) if i >= 0]
            for row_ids, row_scores in zip(ids, scores)
        ]
