"""Which article titles a text names: the matching shared by the link table and the Kuzu entity graph.

A title counts when it stands as whole words, case-sensitive; a one-word title only when the corpus never uses it
as an ordinary lower-case word ("Madonna" is linked, "Journey" is not)."""

from __future__ import annotations

import re

import ahocorasick

from claimhop.retrieval.titles import base_title

# A long text is cut into runs of whole sentences up to this size: the pieces the link tables scan for titles, and
# the entity graph's Section nodes (each embedded). Not the size of a collection's passages, which are cut first
# (claimhop.retrieval.sections.PASSAGE_CHARS). Set by hand with the entity graph (d598cf3), not tuned.
MENTION_SECTION_CHARS = 800
MIN_ONE_WORD_TITLE_CHARS = 4  # a one-word title shorter than this ("Ra", "Io") is never linked; not tuned (d598cf3)
MAX_TARGETS_PER_NAME = 3  # a name several titles share ("Ralph Smart", "Ralph Smart (footballer)") links to at most 3


def linkable(name: str, common_words: set[str]) -> bool:
    """Several words, or one capitalised word the corpus never uses as an ordinary (lower-case) word."""
    words = name.split()
    return len(words) >= 2 or (len(name) >= MIN_ONE_WORD_TITLE_CHARS and name[:1].isupper()
                               and name.lower() not in common_words)


_LOWER_WORD = re.compile(r"\b[a-z][a-z'-]+\b")


def common_words(texts) -> set[str]:
    """Every lower-case word the texts use."""
    found: set[str] = set()
    for text in texts:
        found.update(_LOWER_WORD.findall(text))
    return found


def title_automaton(titles: list[str], ordinary: set[str]) -> ahocorasick.Automaton:
    """Every linkable title and base title ("Foxes (soundtrack)" -> "Foxes") -> the articles it names."""
    names: dict[str, list[int]] = {}
    for doc_id, title in enumerate(titles):
        for name in dict.fromkeys([title, base_title(title)]):
            if linkable(name, ordinary):
                targets = names.setdefault(name, [])
                if len(targets) < MAX_TARGETS_PER_NAME:
                    targets.append(doc_id)
    automaton = ahocorasick.Automaton()
    for name, targets in names.items():
        automaton.add_word(name, (name, tuple(targets)))
    automaton.make_automaton()
    return automaton


_WORD = re.compile(r"\w")


def whole_word_matches(automaton: ahocorasick.Automaton, text: str):
    """(name, targets) of each of the automaton's names standing in `text` as whole words."""
    for end, (name, targets) in automaton.iter(text):
        start = end - len(name) + 1
        before = text[start - 1] if start > 0 else " "
        after = text[end + 1] if end + 1 < len(text) else " "
        if not _WORD.match(before) and not _WORD.match(after):
            yield name, targets


def named_articles(automaton: ahocorasick.Automaton, text: str) -> set[int]:
    """Articles whose title stands in `text` as whole words."""
    found: set[int] = set()
    for _, targets in whole_word_matches(automaton, text):
        found.update(targets)
    return found


def sections_of(text: str) -> list[str]:
    from claimhop.sentences import split_sentences

    sections: list[str] = []
    for sentence in split_sentences(text) or [text]:
        if sections and len(sections[-1]) + 1 + len(sentence) <= MENTION_SECTION_CHARS:
            sections[-1] += " " + sentence
        else:
            sections.append(sentence)
    return sections
