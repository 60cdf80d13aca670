"""The citation check run before an answer is returned: every [n] points at a reference, every reference at a
selected document, and every quoted sentence stands verbatim in that document."""

from __future__ import annotations

import re

CITATION = re.compile(r"\[(\d+)\]")


class CitationError(AssertionError):
    """An answer cites something it cannot back; it is never returned."""


def cited_numbers(text: str) -> list[int]:
    return [int(n) for n in CITATION.findall(text)]


def drop_invalid_citations(text: str, n_refs: int) -> str:
    """Remove [n] markers that point outside the reference list (a small model sometimes invents them)."""
    return CITATION.sub(lambda m: m.group(0) if 1 <= int(m.group(1)) <= n_refs else "", text)


def check_citations(explanation: str, references: list[dict], selected: list[dict]) -> None:
    texts = {doc["title"]: doc["text"] for doc in selected}
    for number in cited_numbers(explanation):
        if not 1 <= number <= len(references):
            raise CitationError(f"citation [{number}] has no reference (there are {len(references)})")
    for ref in references:
        if ref["title"] not in texts:
            raise CitationError(f"reference [{ref['ref']}] cites {ref['title']!r}, which is not a selected document")
        if ref["sentence"] not in texts[ref["title"]]:
            raise CitationError(f"reference [{ref['ref']}] quotes a sentence not found in {ref['title']!r}")
