"""Does a document mention an entity, or is it about it? Compared on normalised text, on word boundaries."""

from __future__ import annotations

import re

from rapidfuzz import fuzz

from claimhop.retrieval.titles import FUZZY_TITLE_CUTOFF, base_title, normalize_title


def is_about(entity: str, title: str) -> bool:
    """The document's title (or its base, without "(disambiguation)") names the entity."""
    key = normalize_title(entity)
    return bool(key) and key in {normalize_title(title), normalize_title(base_title(title))}


def mentions(entity: str, normalized_text: str) -> bool:
    """`normalized_text` must come from normalize_title(); the entity must occur as whole words."""
    key = normalize_title(entity)
    return bool(key) and f" {key} " in f" {normalized_text} "


def names_loosely(entity: str, title: str) -> bool:
    """The entity names the document as the title lookup would find it: exactly, or spelt a little differently
    ("Yellowcraig" for "Yellowcraigs", "Lawerence Turman" for "Lawrence Turman")."""
    key = normalize_title(entity)
    return is_about(entity, title) or (
        bool(key) and fuzz.ratio(key, normalize_title(base_title(title))) >= FUZZY_TITLE_CUTOFF)


def words_within(title: str, normalized_text: str) -> bool:
    """Every word of the title's base is (nearly) among the text's words, in any order: "Stig Blomqvist" in "Stig
    Lennart Blomqvist drove an Audi". `normalized_text` must come from normalize_title()."""
    key = normalize_title(base_title(title))
    return bool(key) and bool(normalized_text) and fuzz.token_set_ratio(key, normalized_text) >= FUZZY_TITLE_CUTOFF


def capitalised_within(title: str, claim: str, every: bool = False) -> bool:
    """words_within, and a capitalised word of the title's base is capitalised in the claim too: "Nature" is not
    named by "the exact nature of the records", nor "Humidity" by "humidity is decreasing"; "Stig Blomqvist" is by
    "Stig Lennart Blomqvist", "International Harvester" by "an international Harvester bus" (with `every`, each
    capitalised word must be, and that is not). A claim's first word is capitalised, so "Humidity is decreasing"
    names "Humidity"; a title with no capitalised word is named as words_within says."""
    said = {w for w in re.findall(r"\w+", claim) if w[:1].isupper()}
    needed = [w for w in re.findall(r"\w+", base_title(title)) if w[:1].isupper()]
    within = words_within(title, normalize_title(claim))
    if not needed:  # a title with no capitalised word ("iPhone"): its case says nothing
        return within
    written = [any(fuzz.ratio(w.casefold(), s.casefold()) >= FUZZY_TITLE_CUTOFF for s in said) for w in needed]
    return within and (all(written) if every else any(written))


def names_no_title(titles: list[str], claim_entities: list[str], claim: str = "", named_words: str = "any") -> bool:
    """Whether the claim names none of the documents: no name it uses is one of `titles`, even spelt a little
    differently, and no title's words are all among its words. A scientific claim names no paper (a compound
    and an outcome are topics many documents mention); a Wikipedia claim with a longer or misspelt name ("Stig Lennart
    Blomqvist", "Ran Paul") still names its article."""
    said = normalize_title(claim)

    def within(title: str) -> bool:
        if named_words == "any":
            return words_within(title, said)
        return capitalised_within(title, claim, every=named_words == "every_capitalised")

    return not any(names_loosely(entity, title) for title in titles for entity in claim_entities) and not any(
        within(title) for title in titles)
