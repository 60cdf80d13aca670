"""Does a document mention an entity, or is it about it? Compared on normalised text, on word boundaries."""

from __future__ import annotations

from claimhop.retrieval.titles import base_title, normalize_title


def is_about(entity: str, title: str) -> bool:
    """The document's title (or its base, without "(disambiguation)") names the entity."""
    key = normalize_title(entity)
    return bool(key) and key in {normalize_title(title), normalize_title(base_title(title))}


def mentions(entity: str, normalized_text: str) -> bool:
    """`normalized_text` must come from normalize_title(); the entity must occur as whole words."""
    key = normalize_title(entity)
    return bool(key) and f" {key} " in f" {normalized_text} "
