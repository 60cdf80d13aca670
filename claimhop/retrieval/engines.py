"""Retrieval engines behind one interface, in both directions with LangChain:

- `ClaimhopRetriever` is claimhop's own search (hybrid, BM25 or dense) as a langchain-core `BaseRetriever`,
  so any LangChain application can use it;
- `LangChainSearch` wraps any LangChain `BaseRetriever` (a vector store's `.as_retriever()`, for example
  PGVector) into what the graph asks of retrieval, so the graph runs unchanged on an engine a team already has.

The `retriever` setting picks the engine: empty for the built-in one, or `package.module:factory`, a function
returning a `BaseRetriever` (see claimhop.retrieval.pgvector_store for one).
"""

from __future__ import annotations

import importlib
import threading
from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict

from claimhop.retrieval.service import Hit, IndexSearch, Mode, index_search


class ClaimhopEmbeddings(Embeddings):
    """The encoder claimhop's indexes use (all-MiniLM-L6-v2, offline, unit vectors) as LangChain `Embeddings`."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        from claimhop.retrieval.encoder import encode

        return encode(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


class ClaimhopRetriever(BaseRetriever):
    """claimhop's search as a LangChain retriever: `Document`s with title, score, source and doc_id metadata."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    retriever: Any = None
    corpus_path: str = ""
    index_dir: str = ""
    mode: Mode = "hybrid"
    k: int = 21

    def _engine(self) -> IndexSearch:
        return self.retriever or index_search(self.corpus_path or None, index_dir=self.index_dir or None)

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        return [
            Document(page_content=hit.text, id=str(hit.doc_id),
                     metadata={"title": hit.title, "score": hit.score, "source": f"claimhop-{self.mode}",
                               "doc_id": hit.doc_id})
            for hit in self._engine().search(query, self.k, self.mode)
        ]


class LangChainSearch:
    """Any LangChain retriever as the graph's search. Its documents need a `title` in their metadata.

    The engine decides how it searches, so the graph's `retrieval_mode` does not apply; title lookup has no
    general LangChain form, so bridging entities go straight to search. Document ids are given per title, so a
    document found twice is one candidate."""

    def __init__(self, retriever: BaseRetriever):
        self.retriever = retriever
        self._ids: dict[str, int] = {}
        self._lock = threading.Lock()

    def _doc_id(self, title: str) -> int:
        with self._lock:
            return self._ids.setdefault(title, len(self._ids))

    def _ask(self, query: str, k: int) -> list[Document]:
        """A vector store retriever is asked for exactly k documents; any other returns what it returns."""
        retriever = self.retriever
        kwargs = getattr(retriever, "search_kwargs", None)
        if isinstance(kwargs, dict) and kwargs.get("k") != k:
            retriever = retriever.model_copy(update={"search_kwargs": {**kwargs, "k": k}})
        return retriever.invoke(query)

    def search(self, query: str, k: int, mode: Mode = "hybrid") -> list[Hit]:
        hits = []
        for rank, document in enumerate(self._ask(query, k)[:k], start=1):
            title = str(document.metadata.get("title") or "").strip()
            if not title:
                raise ValueError("the external retriever returned a document without a 'title' in its metadata")
            score = document.metadata.get("score")
            hits.append(Hit(self._doc_id(title), title, float(score) if score is not None else 1.0 / rank,
                            document.page_content))
        return hits

    def search_many(self, queries: list[str], k: int, mode: Mode = "hybrid") -> list[list[Hit]]:
        return [self.search(query, k, mode) for query in queries]

    def by_title(self, name: str, limit: int = 5) -> list[Hit]:
        return []

    def link_table(self) -> None:
        return None

    def documents(self, doc_ids: list[int]) -> list[Hit]:
        return []


_ENGINES: dict[str, LangChainSearch] = {}
_LOCK = threading.Lock()


def load_factory(spec: str, what: str = "retriever"):
    """`package.module:function` -> the function; a clear error (naming the setting `what`) for anything else."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"{what} must look like 'package.module:function', got {spec!r}")
    try:
        factory = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as err:
        raise ValueError(f"{what} {spec!r} cannot be loaded: {err}") from None
    if not callable(factory):
        raise ValueError(f"{what} {spec!r} is not a function")  # noqa: TRY004 - one error type for bad input
    return factory


def external_engine(spec: str) -> LangChainSearch:
    """The engine made by the factory `spec`, once per process."""
    with _LOCK:
        if spec not in _ENGINES:
            made = load_factory(spec)()
            if not isinstance(made, BaseRetriever):
                raise ValueError(f"retriever {spec!r} returned {type(made).__name__}, not a LangChain BaseRetriever")
            _ENGINES[spec] = LangChainSearch(made)
        return _ENGINES[spec]
