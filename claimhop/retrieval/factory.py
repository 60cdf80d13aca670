"""The one way to get something that searches (a `SearchEngine`) for a run's settings."""

from __future__ import annotations

from pathlib import Path

from claimhop.retrieval.fusion import DEFAULT_FUSION, Fusion
from claimhop.retrieval.rerank import Reranker
from claimhop.retrieval.service import SearchEngine, index_search
from claimhop.retrieval.tuned_search import TunedSearch


def search_engine(corpus_path: str | Path | None = None, index_dir: str | Path | None = None, *, retriever: str = "",
                  fusion: Fusion | None = None, reranker: Reranker | None = None, rerank_depth: int = 20
                  ) -> SearchEngine:
    """claimhop's own indexes for the corpus (bundled by default; loaded once per process), the same search in
    PostgreSQL (`retriever="postgresql"`), or the LangChain retriever the factory `retriever` names; with `fusion` or `reranker`, seen through a run's TunedSearch."""
    if retriever == "postgresql":
        from claimhop.retrieval.pg_search import pg_search

        engine: SearchEngine = pg_search()
    elif retriever:
        from claimhop.retrieval.engines import external_engine

        engine: SearchEngine = external_engine(retriever)
    else:
        engine = index_search(corpus_path or None, index_dir=index_dir or None)
    if fusion is None and reranker is None:
        return engine
    return TunedSearch(engine, fusion or DEFAULT_FUSION, reranker, rerank_depth)
