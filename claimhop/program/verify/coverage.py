"""Nothing to go on: a claim none of whose names appears in any selected document is about something the
collection does not cover. Its verdict is INSUFFICIENT_INFO, said plainly, instead of a judgement of the
nearest documents (which a small model may still call SUPPORTED).

The names are the claim's entities (NER and capitalised spans) without nationalities and languages
("American"), which claims state about a name. A name counts as mentioned when a fuzzy partial match
(rapidfuzz, at least MENTIONED, accents folded) finds it in a document's title and text, so misspelt names
("Lousiville", "Fantiastic Voyage", "Batthyany") still count as covered. Measured offline on the 21 documents
selected for each of the 169 dev claims at 3750aa0 (docs/results/dev-169-selection, `python -m
benchmarks.lab.nothing_to_go_on`): the rule fires on none of
them; requiring every name to be mentioned exactly would flag 30. A claim whose only "name" is its capitalised opening
word ("Preventing future pandemics ...") has nothing to test (`without_opening_word`)."""

from __future__ import annotations

import html
import re
import unicodedata

from rapidfuzz import fuzz

from claimhop.entities.ner import (
    NAME_LABELS,
    attribute_words,
    labelled_entities,
    name_spans,
)
from claimhop.retrieval.titles import normalize_title

MENTIONED = 90  # rapidfuzz partial ratio at which a name counts as mentioned: a misspelling still counts (not tuned)


def folded(text: str) -> str:
    """Normalised (normalize_title), accents dropped: "Batthyány" and "Batthyany" match."""
    return "".join(c for c in unicodedata.normalize("NFKD", normalize_title(text)) if not unicodedata.combining(c))


_POSSESSIVE = re.compile(r"(?<=\w)['’]s\b")


def name_folded(text: str) -> str:
    """`folded` without possessive 's, as a claim writes a name ("Gisele" names "Gisèle", "Swint's" "Swint"): how
    the reading rules that fold names (chain-order-2) match a title in a claim."""
    return folded(_POSSESSIVE.sub("", html.unescape(text)))


def mentioned(name: str, folded_text: str) -> bool:
    """`name` appears in an already folded text, allowing for misspellings (the one test both rules use)."""
    return fuzz.partial_ratio(folded(name), folded_text) >= MENTIONED


def claim_names(claim: str, claim_entities: list[str]) -> list[str]:
    """The names a document about the claim would mention: its entities without nationalities and languages."""
    attributes = attribute_words(claim)
    return [name for name in claim_entities if name.strip().casefold() not in attributes]


_OPENING = " \t\r\n\"'“”‘’«»….([-—–*"  # what may stand before a claim's first word


def without_opening_word(claim: str, names: list[str]) -> list[str]:
    """The names without the claim's opening capitalised word when it is no name: a sentence starts with a capital,
    so "Preventing future pandemics ..." and "Each of the six ice ages ..." give the spans "Preventing" and "Each of
    the", which no document about the claim need mention. Only a span of one capitalised word (and "of", "the") is
    dropped, and only when the tagger finds no name there ("Barack Obama supports ...", "Skagen Painter Peder
    Severin Krøyer favored ..." and "Moana is a film ..." keep theirs)."""
    opened = claim.lstrip(_OPENING)
    spans = name_spans(opened)
    if not spans or not opened.startswith(spans[0]) or any(w[:1].isupper() for w in spans[0].split()[1:]):
        return names
    first = spans[0].split()[0].casefold()
    tagged = labelled_entities([claim])[0]
    if any(label in NAME_LABELS and first in entity.casefold().split() for entity, label in tagged):
        return names
    return [name for name in names if name.strip().casefold() != spans[0].casefold()]


def unmentioned_names(names: list[str], documents: list[dict]) -> list[str] | None:
    """The claim's names when no selected document mentions any of them, else None (the claim has something
    to go on). None too for a claim without names: nothing to test."""
    names = [n for n in names if folded(n)]
    if not names:
        return None
    texts = [folded(f"{d.get('title', '')} {d.get('text', '')}") for d in documents]
    for name in names:
        if any(mentioned(name, text) for text in texts):
            return None
    return names


def nothing_about(names: list[str]) -> str:
    return "the collection has nothing about " + ", ".join(names)
