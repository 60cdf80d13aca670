"""Lookup of documents by title: normalised exact match, the title without its "(disambiguation)", then fuzzy."""

from __future__ import annotations

import html
import re
import string
import unicodedata
from collections import defaultdict

from rapidfuzz import fuzz, process

# a title matches a name at this rapidfuzz ratio: "Steve Augerri" scores 96 against "Steve Augeri", "Steve Austin" 75
FUZZY_TITLE_CUTOFF = 90.0

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = str.maketrans("", "", string.punctuation)
_PAREN = re.compile(r"\s*\([^)]*\)\s*$")


def normalize_title(title: str) -> str:
    """Like dspy's normalize_text (NFD, lower case, no punctuation or articles), after unescaping HTML."""
    text = unicodedata.normalize("NFD", html.unescape(title)).lower().translate(_PUNCT)
    return " ".join(_ARTICLES.sub(" ", text).split())


SECTION_JOIN = " > "  # a section of a long document of the user's collection: "Report > Findings"


def base_title(title: str) -> str:
    """"Foxes (soundtrack)" -> "Foxes", "Report > Findings (2)" -> "Report": the name a claim would use."""
    return _PAREN.sub("", html.unescape(title).split(SECTION_JOIN)[0]).strip()


class TitleIndex:
    """Maps a name to the documents titled by it, so a bridging entity lands on its own article first."""

    def __init__(self, titles: list[str]):
        self.titles = titles
        self.exact: dict[str, list[int]] = defaultdict(list)
        self.by_base: dict[str, list[int]] = defaultdict(list)
        for doc_id, title in enumerate(titles):
            self.exact[normalize_title(title)].append(doc_id)
            self.by_base[normalize_title(base_title(title))].append(doc_id)
        self._keys = list(self.exact)

    def lookup(self, name: str, limit: int = 5, fuzzy_cutoff: float = FUZZY_TITLE_CUTOFF) -> list[int]:
        """Documents whose title is `name` (exact, then same base title, then a close spelling), best first."""
        key = normalize_title(name)
        if not key:
            return []
        found: list[int] = list(self.exact.get(key, []))
        for doc_id in self.by_base.get(key, []):
            if doc_id not in found:
                found.append(doc_id)
        if not found:
            for match, _score, _ in process.extract(
                key, self._keys, scorer=fuzz.ratio, limit=limit, score_cutoff=fuzzy_cutoff
            ):
                found.extend(i for i in self.exact[match] if i not in found)
        return found[:limit]
