"""BM25 with bm25s (English stemmer and stop words), persisted as bm25s's own plain files."""

from __future__ import annotations

from pathlib import Path

import bm25s
import numpy as np
import Stemmer
from bm25s.tokenization import Tokenized, Tokenizer

from claimhop.atomic import atomic_dir

_STEMMER = Stemmer.Stemmer("english")


def _tokenize(texts: list[str], show_progress: bool = False):
    return bm25s.tokenize(texts, stopwords="en", stemmer=_STEMMER, show_progress=show_progress)


def tokens_of(texts: list[str]) -> list[list[str]]:
    """The index's tokenisation (English stop words and stemmer) as strings: what a text's BM25 terms are."""
    return bm25s.tokenize(texts, stopwords="en", stemmer=_STEMMER, return_ids=False, show_progress=False)


class BM25Builder:
    """Tokenises documents chunk by chunk as the corpus streams by (token ids kept as int32 arrays, not texts),
    then builds the same index `bm25s.tokenize` + `BM25.index` would."""

    def __init__(self) -> None:
        self.tokenizer = Tokenizer(stopwords="en", stemmer=_STEMMER)
        self.ids: list[np.ndarray] = []

    def add(self, documents: list[str]) -> None:
        tokens = self.tokenizer.tokenize(documents, update_vocab=True, return_as="ids", show_progress=False)
        self.ids.extend(np.asarray(t, dtype=np.int32) for t in tokens)

    def build(self) -> BM25Index:
        model = bm25s.BM25()
        model.index(Tokenized(ids=self.ids, vocab=self.tokenizer.get_vocab_dict()), show_progress=False)
        self.ids = []
        return BM25Index(model)


class BM25Index:
    def __init__(self, model: bm25s.BM25):
        self.model = model

    @classmethod
    def build(cls, documents: list[str]) -> BM25Index:
        model = bm25s.BM25()
        model.index(_tokenize(documents, show_progress=True), show_progress=True)
        return cls(model)

    @classmethod
    def load(cls, folder: Path) -> BM25Index:
        return cls(bm25s.BM25.load(str(folder)))

    def persist(self, folder: Path) -> None:
        """Write bm25s's files into a temporary folder, then rename it into place."""
        with atomic_dir(folder) as tmp:
            self.model.save(str(tmp))

    def __len__(self) -> int:
        return int(self.model.scores["num_docs"])

    def document_frequencies(self, terms: list[str]) -> dict[str, int]:
        """How many documents hold each (stemmed) term; a term the index never saw is left out."""
        vocab, starts = self.model.vocab_dict, self.model.scores["indptr"]
        return {t: int(starts[vocab[t] + 1] - starts[vocab[t]]) for t in terms if t in vocab}

    def holding_all(self, word_sets: list[list[str]]) -> list[int]:
        """For each set of (stemmed) terms, how many documents hold every one of them (0 for a term never seen)."""
        vocab, starts, docs = self.model.vocab_dict, self.model.scores["indptr"], self.model.scores["indices"]
        counts = []
        for words in word_sets:
            if not words or any(w not in vocab for w in words):
                counts.append(0)
                continue
            postings = sorted((docs[starts[vocab[w]]:starts[vocab[w] + 1]] for w in set(words)), key=len)
            held = postings[0]
            for more in postings[1:]:
                held = np.intersect1d(held, more, assume_unique=True)
            counts.append(int(len(held)))
        return counts

    def search(self, queries: list[str], k: int) -> list[list[tuple[int, float]]]:
        """Top-k (doc id, BM25 score) per query, equal scores by id (as the PostgreSQL engine orders them);
        documents scoring 0 are dropped."""
        k = min(k, len(self))
        if k <= 0 or not queries:
            return [[] for _ in queries]
        ids, scores = self.model.retrieve(_tokenize(queries), k=k, show_progress=False, n_threads=1)
        return [
            sorted(((int(i), float(s)) for i, s in zip(row_ids, row_scores) if s > 0), key=lambda hit: (-hit[1], hit[0]))
            for row_ids, row_scores in zip(ids, scores)
        ]
