"""One run's view of a shared search engine: its own fusion weights and re-ranker over indexes every run shares."""

from __future__ import annotations

from claimhop.retrieval.fusion import DEFAULT_FUSION, Fusion
from claimhop.retrieval.rerank import Reranker
from claimhop.retrieval.service import (
    Hit,
    HybridSearch,
    Mode,
    SearchEngine,
)


class TunedSearch:
    """Search with fusion settings and an optional re-ranker. The re-ranker sees the first `rerank_depth` fused
    documents, so it can lift a document from below k into the top k."""

    def __init__(self, engine: SearchEngine, fusion: Fusion = DEFAULT_FUSION, reranker: Reranker | None = None,
                 rerank_depth: int = 20):
        self.engine = engine
        self.fusion = fusion
        self.reranker = reranker
        self.rerank_depth = rerank_depth

    def _fused(self, queries: list[str], k: int, mode: Mode) -> list[list[Hit]]:
        if isinstance(self.engine, HybridSearch):
            return self.engine.search_many(queries, k, mode, self.fusion)
        return self.engine.search_many(queries, k, mode)  # an external engine fuses (or not) its own way

    def search_many(self, queries: list[str], k: int, mode: Mode = "hybrid") -> list[list[Hit]]:
        if self.reranker is None:
            return self._fused(queries, k, mode)
        results = self._fused(queries, max(k, self.rerank_depth), mode)
        depth = self.rerank_depth
        return [(self.reranker.rerank(query, hits[:depth]) + hits[depth:])[:k] for query, hits in zip(queries, results)]

    def search_fused(self, query: str, k: int, mode: Mode = "hybrid") -> list[Hit]:
        """The fused ranking without the re-ranker (which may ask a model for every document)."""
        return self._fused([query], k, mode)[0]

    def search(self, query: str, k: int, mode: Mode = "hybrid") -> list[Hit]:
        return self.search_many([query], k, mode)[0]

    def by_title(self, name: str, limit: int = 5) -> list[Hit]:
        return self.engine.by_title(name, limit)

    def link_table(self):
        return self.engine.link_table()

    def document_frequencies(self, terms: list[str]) -> tuple[dict[str, int], int]:
        return self.engine.document_frequencies(terms)

    def holding_all(self, word_sets: list[list[str]]) -> tuple[list[int], int]:
        return self.engine.holding_all(word_sets)

    def has_term_statistics(self) -> bool:
        """Whether the engine can say how many documents hold a term (claimhop's own engines; a LangChain
        retriever cannot), which pseudo-relevance feedback needs."""
        return isinstance(self.engine, HybridSearch)

    def documents(self, doc_ids: list[int]) -> list[Hit]:
        return self.engine.documents(doc_ids)
