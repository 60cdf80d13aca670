"""Which articles each article names: the entity graph's LINKS_TO edges as a small array file beside the indexes.

Why not only Kuzu: following links is all the bridge step needs, and that part of the graph takes seconds to
compute (an Aho-Corasick pass over the corpus), whereas the Kuzu graph also embeds every section and takes most
of an hour on 2 cores. So the links are computed on first use and saved once (`links.npz`, no pickles); the bundled
corpus's are shipped (claimhop/data/corpus.links.npz, made by `python -m benchmarks.shipped_links`), since they are the
same on every machine and take ~40 s to compute here. The Kuzu
build matches titles with the same code (`claimhop.retrieval.title_mentions`); a test checks the two agree edge for edge."""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Protocol

import numpy as np
from tqdm import tqdm

from claimhop.atomic import atomic_path
from claimhop.data import bundled
from claimhop.retrieval.title_mentions import (
    common_words,
    named_articles,
    sections_of,
    title_automaton,
)

LINKS_FILE = "links.npz"
SHIPPED_LINKS = bundled("corpus.links.npz")  # the bundled corpus's, the same on every machine


def build_links(titles: list[str], texts: list[str]) -> list[list[int]]:
    """For each article, the other articles whose title (or base title) its sections name."""
    automaton = title_automaton(titles, common_words(texts))
    texts = tqdm(texts, desc="article links (once per corpus)", unit="doc", disable=len(texts) < 1000)
    return [sorted(set().union(*(named_articles(automaton, part) for part in sections_of(text))) - {doc_id})
            for doc_id, text in enumerate(texts)]


class LinkTable(Protocol):
    """Which articles each article names, wherever the table lives: in memory (`ArticleLinks`, claimhop's own
    indexes) or in PostgreSQL (`claimhop.retrieval.pg_search.PgLinks`). Bridging, the later link hop and
    selection's chains read links only through this."""

    @property
    def count(self) -> int: ...

    def named_by(self, article: int) -> list[int]: ...

    def pairs(self, sources: list[int] | None = None) -> list[tuple[int, int]]: ...

    def times_named_of(self, article: int) -> int: ...

    def named_at_least(self, times: int) -> list[int]: ...

    def specificity(self, article: int) -> float: ...

    def relative_specificity(self, article: int) -> float: ...


def specificity_of(times_named: int, count: int) -> float:
    """Inverse document frequency of a link: log((N + 1) / (1 + articles naming it)). "United States", named
    by thousands of articles, is a weak bridge; an article named by two is a strong one."""
    return math.log((count + 1) / (1 + times_named))


@dataclass(frozen=True)
class ArticleLinks:
    """Compressed adjacency: article i names targets[offsets[i]:offsets[i + 1]]."""

    offsets: np.ndarray
    targets: np.ndarray
    corpus_sha256: str

    @classmethod
    def from_lists(cls, links: list[list[int]], corpus_sha256: str) -> ArticleLinks:
        offsets = np.zeros(len(links) + 1, dtype=np.int64)
        offsets[1:] = np.cumsum([len(t) for t in links])
        targets = np.array([t for row in links for t in row], dtype=np.int64)
        return cls(offsets, targets, corpus_sha256)

    @cached_property
    def times_named(self) -> np.ndarray:
        """How many articles name each article (its in-degree)."""
        return np.bincount(self.targets, minlength=len(self.offsets) - 1)

    @property
    def count(self) -> int:
        """How many articles the table covers."""
        return len(self.offsets) - 1

    def times_named_of(self, article: int) -> int:
        return int(self.times_named[article])

    def named_at_least(self, times: int) -> list[int]:
        """The articles `times` or more articles name (a country, a city: no bridge)."""
        return np.flatnonzero(self.times_named >= times).tolist()

    def specificity(self, article: int) -> float:
        return specificity_of(int(self.times_named[article]), self.count)

    def relative_specificity(self, article: int) -> float:
        """`specificity` over its largest value: 1 for an article no other names, about 0.2 for "United States"."""
        return self.specificity(article) / math.log(self.count + 1)

    def named_by(self, article: int) -> list[int]:
        return self.targets[self.offsets[article]:self.offsets[article + 1]].tolist()

    def pairs(self, sources: list[int] | None = None) -> list[tuple[int, int]]:
        """(source, target) for the given articles (all when None)."""
        every = range(len(self.offsets) - 1) if sources is None else sources
        return [(source, target) for source in every for target in self.named_by(source)]

    @classmethod
    def load(cls, path: Path) -> ArticleLinks | None:
        try:
            with np.load(path) as data:  # numpy refuses pickled objects by default
                return cls(data["offsets"], data["targets"], str(data["corpus_sha256"]))
        except (OSError, ValueError, KeyError):
            return None


_CACHE: dict[tuple[str, str], ArticleLinks] = {}
_LOCK = threading.Lock()


def article_links(folder: Path, titles: list[str], texts: list[str], corpus_sha256: str) -> ArticleLinks:
    """The corpus's links: from memory, else from `folder/links.npz` or the shipped file when made from this corpus,
    else computed (seconds to a minute) and saved there for the next process."""
    key = (str(folder), corpus_sha256)
    with _LOCK:
        if key in _CACHE:
            return _CACHE[key]
        links = next((found for found in map(ArticleLinks.load, (folder / LINKS_FILE, SHIPPED_LINKS))
                      if found is not None and found.corpus_sha256 == corpus_sha256
                      and len(found.offsets) == len(titles) + 1), None)
        if links is None:
            links = ArticleLinks.from_lists(build_links(titles, texts), corpus_sha256)
            save_links(links, folder / LINKS_FILE)
        _CACHE[key] = links
        return links


def save_links(links: ArticleLinks, path: Path) -> None:
    """Written whole or not at all (a temporary file, then renamed)."""
    with atomic_path(path, suffix=".tmp.npz") as tmp:
        np.savez(tmp, offsets=links.offsets, targets=links.targets, corpus_sha256=np.array(links.corpus_sha256))


def rank_linked(pairs: list[tuple[int, int]], article_ids: list[int], limit: int,
                exclude: list[int] | None = None, weight: Callable[[int], float] | None = None
                ) -> list[tuple[int, int]]:
    """(from, to) for articles the given ones name, other than themselves and `exclude`: the most named first
    (each naming counted `weight(to)` times, e.g. `ArticleLinks.specificity`; once without it), then, among
    equals, those named by an earlier (better) one of `article_ids`, which callers pass best first; "from" is
    that best source. Most articles are named once, so the order among equals decides what a small budget
    follows."""
    if not article_ids or limit <= 0:
        return []
    position = {article: i for i, article in reversed(list(enumerate(article_ids)))}
    skip = set(article_ids) | set(exclude or [])
    sources: dict[int, list[int]] = {}
    for source, target in pairs:
        if source in position and target not in skip:
            sources.setdefault(target, []).append(source)
    best = {target: min(found, key=position.__getitem__) for target, found in sources.items()}
    score = {t: len(found) * (weight(t) if weight else 1.0) for t, found in sources.items()}
    order = sorted(sources, key=lambda t: (-score[t], position[best[t]], t))
    return [(best[t], t) for t in order[:limit]]
