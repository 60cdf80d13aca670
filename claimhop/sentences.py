"""Sentence splitting with spaCy's rule-based sentencizer (no model needed), spans kept verbatim."""

from __future__ import annotations

import re
import threading
from functools import lru_cache

_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def _splitter():
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    return nlp


def split_sentences(text: str) -> list[str]:
    """Sentences exactly as they stand in `text` (each one a substring of it)."""
    with _LOCK:
        doc = _splitter()(text)
    return [s.text.strip() for s in doc.sents if s.text.strip()]


_CONTENT = re.compile(r"[a-z0-9]+")
_COMMON = frozenset("the a an and or of in on at to for by with from as is was were are be been being that which "
                    "who this these those it its their they than then into about after before not".split())


def stems(text: str) -> set[str]:
    """The text's content words cut to five letters, so "associated" and "association" meet: how the reading
    and the plan's facts compare a text with the claim without a model."""
    return {w[:5] for w in _CONTENT.findall(text.lower()) if len(w) > 2 and w not in _COMMON}
