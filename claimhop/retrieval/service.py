"""One retrieval service per corpus and process: dense, BM25, hybrid and title lookup over shared indexes."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from claimhop.retrieval.article_links import LinkTable
from claimhop.retrieval.corpus import BUNDLED_CORPUS, Corpus, load_corpus
from claimhop.retrieval.fusion import DEFAULT_FUSION, Fusion, reciprocal_rank_fusion
from claimhop.retrieval.index_store import Indexes, open_indexes
from claimhop.retrieval.titles import TitleIndex

Mode = Literal["hybrid", "bm25", "dense"]


@dataclass(frozen=True)
class Hit:
    doc_id: int
    title: str
    score: float
    text: str = ""
    source: str = ""  # the file it came from, for a collection indexed from a folder or table


class SearchEngine(Protocol):
    """Anything that searches, the one name for it: claimhop's own indexes (IndexSearch), any LangChain retriever
    (engines.LangChainSearch), or one run's view of either (tuned_search.TunedSearch). Made by
    `claimhop.retrieval.factory.search_engine`."""

    def search_many(self, queries: list[str], k: int, mode: Mode = "hybrid") -> list[list[Hit]]: ...

    def search(self, query: str, k: int, mode: Mode = "hybrid") -> list[Hit]: ...

    def by_title(self, name: str, limit: int = 5) -> list[Hit]: ...

    def link_table(self) -> LinkTable | None:
        """Which articles each document names (link following, the later hop and selection's chains read it):
        claimhop's own indexes and the PostgreSQL engine have one; None for an engine that only answers queries."""
        ...

    def documents(self, doc_ids: list[int]) -> list[Hit]:
        """The documents with these ids (those a link points to), in the order given."""
        ...


def fuse(lexical: list[list[tuple[int, float]]], dense: list[list[tuple[int, float]]], k: int, fusion: Fusion
         ) -> list[list[tuple[int, float]]]:
    """Hybrid ranking per query: BM25's and dense's lists fused by weighted reciprocal rank, filled up from the
    dense list (BM25 drops zero-score documents; dense always has k). Every engine with both fuses this way."""
    fused = []
    for lex, den in zip(lexical, dense, strict=True):
        ranked = reciprocal_rank_fusion(
            [[i for i, _ in lex], [i for i, _ in den]], [fusion.bm25_weight, fusion.dense_weight], fusion.k
        )
        if len(ranked) < k:
            seen = {i for i, _ in ranked}
            ranked += [(i, 0.0) for i, _ in den if i not in seen]
        fused.append(ranked)
    return fused


class HybridSearch:
    """An engine with a lexical (BM25) and a dense ranking of its own, fused the one way (`fuse`): claimhop's own
    indexes and the PostgreSQL engine. Subclasses give the two rankings and the documents; `k` beyond the corpus
    size returns the whole corpus."""

    def lexical(self, queries: list[str], k: int) -> list[list[tuple[int, float]]]:
        raise NotImplementedError

    def dense(self, queries: list[str], k: int) -> list[list[tuple[int, float]]]:
        raise NotImplementedError

    def documents(self, doc_ids: list[int]) -> list[Hit]:
        raise NotImplementedError

    def document_frequencies(self, terms: list[str]) -> tuple[dict[str, int], int]:
        """How many documents hold each BM25 term (stemmed, as claimhop.retrieval.lexical.tokens_of gives it), and
        how many documents there are: the collection statistics pseudo-relevance feedback weighs words by."""
        raise NotImplementedError

    def holding_all(self, word_sets: list[list[str]]) -> tuple[list[int], int]:
        """For each set of BM25 terms, how many documents hold all of them (a name's words: at least as many as
        hold the name), and how many documents there are: how common a name is in the collection."""
        raise NotImplementedError

    def _hits(self, scored: list[tuple[int, float]], k: int) -> list[Hit]:
        scored = scored[:k]
        found = {hit.doc_id: hit for hit in self.documents([i for i, _ in scored])}
        return [Hit(i, found[i].title, s, found[i].text, found[i].source) for i, s in scored]

    def search_many(
        self, queries: list[str], k: int, mode: Mode = "hybrid", fusion: Fusion = DEFAULT_FUSION
    ) -> list[list[Hit]]:
        """Top-k per query. Hybrid fuses BM25's and dense's top-`fusion.depth` lists by weighted reciprocal rank."""
        if mode == "bm25":
            return [self._hits(r, k) for r in self.lexical(queries, k)]
        if mode == "dense":
            return [self._hits(r, k) for r in self.dense(queries, k)]
        depth = max(k, fusion.depth)
        fused = fuse(self.lexical(queries, depth), self.dense(queries, depth), k, fusion)
        return [self._hits(ranked, k) for ranked in fused]

    def search(self, query: str, k: int, mode: Mode = "hybrid", fusion: Fusion = DEFAULT_FUSION) -> list[Hit]:
        return self.search_many([query], k, mode, fusion)[0]


class IndexSearch(HybridSearch):
    """claimhop's own indexes over a corpus held in memory: bm25s, FAISS, the title index and the link table."""

    def __init__(self, corpus: Corpus, indexes: Indexes):
        self.corpus = corpus
        self.indexes = indexes
        self.titles = TitleIndex(corpus.titles)

    def lexical(self, queries: list[str], k: int) -> list[list[tuple[int, float]]]:
        return self.indexes.bm25.search(queries, k)

    def dense(self, queries: list[str], k: int) -> list[list[tuple[int, float]]]:
        return self.indexes.dense.search(queries, k)

    def by_title(self, name: str, limit: int = 5) -> list[Hit]:
        """Documents titled `name` (normalised exact, then base title, then fuzzy)."""
        return [Hit(i, self.corpus.titles[i], 1.0, self.corpus.texts[i], self.corpus.source(i))
                for i in self.titles.lookup(name, limit=limit)]

    def link_table(self) -> LinkTable:
        """Built once per corpus (seconds), then read from the index folder and kept in memory."""
        from claimhop.retrieval.article_links import article_links

        return article_links(self.indexes.folder, self.corpus.titles, self.corpus.texts, self.corpus.sha256)

    def documents(self, doc_ids: list[int]) -> list[Hit]:
        return [Hit(i, self.corpus.titles[i], 0.0, self.corpus.texts[i], self.corpus.source(i)) for i in doc_ids]

    def document_frequencies(self, terms: list[str]) -> tuple[dict[str, int], int]:
        return self.indexes.bm25.document_frequencies(terms), len(self.indexes.bm25)

    def holding_all(self, word_sets: list[list[str]]) -> tuple[list[int], int]:
        return self.indexes.bm25.holding_all(word_sets), len(self.indexes.bm25)


_CACHE: dict[str, IndexSearch] = {}
_LOCK = threading.Lock()


def index_search(
    corpus_path: str | Path | None = None, rebuild: bool = False, index_dir: str | Path | None = None
) -> IndexSearch:
    """The process-wide IndexSearch over a corpus file (bundled HoVer corpus by default), built on first use; runs
    get theirs through `claimhop.retrieval.factory.search_engine`, which uses this one.

    Its indexes live in `index_dir` when given (as `claimhop index --index-dir` built them), else under
    CLAIMHOP_HOME, keyed by the corpus's content hash. A folder or table of your own documents (or an index folder
    holding one) is served from its collection index's current version; a run never re-reads the files."""
    from claimhop.retrieval.collection import resolve

    collection = resolve(corpus_path, index_dir)  # a folder or table indexed by `claimhop index PATH`
    if collection is not None:
        if rebuild:
            raise ValueError("your own documents' index is rebuilt by `claimhop index PATH --rebuild`, not by a run")
        corpus_path, index_dir = collection
    path = Path(corpus_path) if corpus_path else BUNDLED_CORPUS
    folder = Path(index_dir).expanduser() if index_dir else None
    key = f"{path.resolve()}|{folder.resolve() if folder else ''}"
    with _LOCK:
        if rebuild or key not in _CACHE:
            corpus = load_corpus(path)
            _CACHE[key] = IndexSearch(corpus, open_indexes(corpus, rebuild=rebuild, folder=folder))
        return _CACHE[key]
