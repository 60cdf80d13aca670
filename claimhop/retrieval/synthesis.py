"""Facts for a question from several articles at once, read from the entity graph's sections.

Sections of the given articles are scored against the question (relevance = (1 + cosine) / 2, in [0, 1]),
grouped by article, and articles ranked by the summed relevance of their kept sections: an article with several
relevant sections beats one lucky sentence. The top `max_articles`, each with its top `max_sections` sections
at or above `min_relevance`, are split into facts: sentences, dropping questions and fragments under 20
characters, each fact once. Answers are cached per (question, articles), since a chat asks the same again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

MIN_FACT_CHARS = 20  # a shorter sentence ("He died.") is no fact to synthesise on its own
CACHE_SIZE = 256  # documents' sentences kept in memory; changes no result


@dataclass(frozen=True)
class Fact:
    text: str
    article: int
    title: str
    relevance: float


def _check_range(name: str, value, low, high, integer: bool) -> None:
    kind = int if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kind):
        raise TypeError(f"{name} must be {'an integer' if integer else 'a number'}, got {type(value).__name__}")
    if not low <= value <= high:
        raise ValueError(f"{name}={value} is out of range [{low}, {high}]")


class MultiDocSynthesizer:
    """Ranks the sections of candidate articles for a question and extracts the facts worth reading."""

    def __init__(self, connection, max_articles: int = 5, max_sections: int = 3, min_relevance: float = 0.7,
                 encode=None):
        from claimhop.retrieval.entity_graph import require_kuzu

        if not isinstance(connection, require_kuzu().Connection):
            raise TypeError(f"connection must be a kuzu.Connection, got {type(connection).__name__}")
        _check_range("max_articles", max_articles, 1, 10, integer=True)
        _check_range("max_sections", max_sections, 1, 10, integer=True)
        _check_range("min_relevance", min_relevance, 0.0, 1.0, integer=False)
        if encode is None:
            from claimhop.retrieval.encoder import encode
        self.connection, self.encode = connection, encode
        self.max_articles, self.max_sections, self.min_relevance = max_articles, max_sections, float(min_relevance)
        self._cache: OrderedDict[tuple, list[Fact]] = OrderedDict()
        self._lock = threading.Lock()
        self.cache_hits = 0

    def _sections(self, article_ids: list[int]) -> list[tuple[int, str, str, np.ndarray]]:
        result = self.connection.execute(
            "MATCH (a:Article)-[:HAS_SECTION]->(s:Section) WHERE a.id IN $ids "
            "RETURN a.id, a.title, s.text, s.embedding ORDER BY a.id, s.position",
            {"ids": article_ids},
        )
        rows = []
        while result.has_next():
            article, title, text, embedding = result.get_next()
            rows.append((int(article), str(title), str(text), np.asarray(embedding, dtype=np.float32)))
        return rows

    def facts(self, question: str, article_ids: list[int]) -> list[Fact]:
        """The facts for `question` from `article_ids`, best article first, each article's best sections first."""
        if not isinstance(question, str) or not question.strip():
            raise ValueError("question must be a non-empty string")
        key = (" ".join(question.split()).casefold(), tuple(sorted(set(article_ids))))
        with self._lock:
            if key in self._cache:
                self.cache_hits += 1
                self._cache.move_to_end(key)
                return list(self._cache[key])
        facts = self._compute(question, list(key[1]))
        with self._lock:
            self._cache[key] = facts
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        return list(facts)

    def _compute(self, question: str, article_ids: list[int]) -> list[Fact]:
        sections = self._sections(article_ids)
        if not sections:
            return []
        query = np.asarray(self.encode([question]), dtype=np.float32)[0]
        by_article: dict[int, list[tuple[float, str]]] = {}
        titles: dict[int, str] = {}
        for article, title, text, embedding in sections:
            relevance = (1.0 + float(embedding @ query)) / 2.0
            if relevance >= self.min_relevance:
                by_article.setdefault(article, []).append((relevance, text))
                titles[article] = title
        ranked = []
        for article, scored in by_article.items():
            kept = sorted(scored, key=lambda item: -item[0])[: self.max_sections]
            ranked.append((sum(r for r, _ in kept), article, kept))
        ranked.sort(key=lambda item: (-item[0], item[1]))
        facts: list[Fact] = []
        seen: set[str] = set()
        for _, article, kept in ranked[: self.max_articles]:
            for relevance, text in kept:
                for sentence in sentences(text):
                    norm = " ".join(sentence.split()).casefold()
                    if len(sentence) < MIN_FACT_CHARS or sentence.rstrip().endswith("?") or norm in seen:
                        continue
                    seen.add(norm)
                    facts.append(Fact(sentence, article, titles[article], round(relevance, 4)))
        return facts


def sentences(text: str) -> list[str]:
    from claimhop.sentences import split_sentences

    return split_sentences(text)
