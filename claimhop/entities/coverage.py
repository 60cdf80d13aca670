"""Which names of the claim no retrieved document covers: the deterministic check that decides whether the gap
loop (a model call) is worth entering."""

from __future__ import annotations

from collections.abc import Iterable

from claimhop.entities.matching import is_about, mentions
from claimhop.retrieval.titles import normalize_title


def uncovered_entities(claim_entities: Iterable[str], documents: Iterable[dict]) -> list[str]:
    """The claim's entities that no document is about (by title) or names (in its title or text)."""
    docs = [(d["title"], normalize_title(f"{d['title']} {d['text']}")) for d in documents]
    return [e for e in claim_entities
            if not any(is_about(e, title) or mentions(e, text) for title, text in docs)]
