"""Sentence splitting with spaCy's rule-based sentencizer (no model needed), spans kept verbatim."""

from __future__ import annotations

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
