"""The link table of a collection, kept up to date: which titles each passage names is stored with the passage,
so an update scans only new or changed passages in full, and the unchanged ones only for titles that are new.

The table is the one `claimhop.retrieval.article_links.build_links` makes (the same automaton, the same sections,
the same rules; a test checks they agree): names are kept instead of row numbers because rows move when
documents come and go, and a name's targets are looked up again in each version."""

from __future__ import annotations

from collections.abc import Sequence

import ahocorasick

from claimhop.retrieval.title_mentions import (
    common_words,
    sections_of,
    title_automaton,
    whole_word_matches,
)


def _names_in(automaton: ahocorasick.Automaton, text: str) -> set[str]:
    """The automaton's names that stand in `text` as whole words, section by section (as build_links reads)."""
    return {name for part in sections_of(text) for name, _ in whole_word_matches(automaton, part)}


def _automaton_of(names: dict[str, tuple[int, ...]]) -> ahocorasick.Automaton:
    automaton = ahocorasick.Automaton()
    for name, targets in names.items():
        automaton.add_word(name, (name, targets))
    automaton.make_automaton()
    return automaton


def update_links(titles: list[str], texts: list[str], previous_names: Sequence[list[str] | None],
                 previous_linkable: set[str] | None) -> tuple[list[list[int]], list[list[str]], set[str], int]:
    """Each passage's links, the names it matched and the linkable names of this version, and how many passages
    were scanned in full. `previous_names[i]` is what passage i matched in the last version when it is unchanged
    (None when new or changed); `previous_linkable` is the last version's set of linkable names."""
    automaton = title_automaton(titles, common_words(texts))
    names: dict[str, tuple[int, ...]] = {name: targets for name, (_, targets) in automaton.items()}
    linkable = set(names)
    new_names = linkable - (previous_linkable or set())
    extra = _automaton_of({n: names[n] for n in new_names}) if new_names and previous_linkable is not None else None
    matched: list[list[str]] = []
    scanned = 0
    for text, before in zip(texts, previous_names, strict=True):
        if before is None or previous_linkable is None:
            found = _names_in(automaton, text)
            scanned += 1
        else:
            found = {n for n in before if n in linkable}
            if extra is not None:
                found |= _names_in(extra, text)
        matched.append(sorted(found))
    links = [sorted({t for name in found for t in names[name]} - {doc_id}) for doc_id, found in enumerate(matched)]
    return links, matched, linkable, scanned
