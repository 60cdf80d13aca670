"""What a step does with the model's outputs before anyone reads them, and the words they share."""

from __future__ import annotations

from typing import Any

# the option a question of the QA verifier offers beside the documents' answers; the cited answer leaves it out
NOT_STATED = "not stated"


def clean_list(items: Any, limit: int) -> list[str]:
    """LM list output -> distinct non-empty strings, at most `limit`."""
    out: list[str] = []
    for item in items or []:
        text = " ".join(str(item).split())
        if text and text.casefold() not in {o.casefold() for o in out}:
            out.append(text)
    return out[:limit]
