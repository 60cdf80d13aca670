"""What a valid claim is, in one place for the graph, the CLI and the server."""

from __future__ import annotations

from typing import Any

from state.context import MAX_CLAIM_CHARS
from state.instructions import split_instructions


def clean_text(text: str) -> str:
    """Whitespace normalised and control characters dropped: what a claim or a question is read as."""
    return " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())


def validate_claim(claim: Any) -> str:
    """The claim, whitespace-normalised and stripped of control characters; ValueError naming the problem."""
    if not isinstance(claim, str):
        raise ValueError(f"claim must be a string, got {type(claim).__name__}")  # noqa: TRY004 - one error type for bad input
    text = clean_text(claim)
    if not text:
        raise ValueError("claim is empty: give a factual statement to check")
    if len(text) > MAX_CLAIM_CHARS:
        raise ValueError(f"claim is {len(text)} characters long; the limit is {MAX_CLAIM_CHARS}")
    if not split_instructions(text)[0]:
        raise ValueError("claim holds only instructions to the checker, no statement to check")
    return text


def message_text(content: Any) -> str:
    """A message's text, whether a string or a list of content blocks (as agent-chat-ui sends)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            block if isinstance(block, str) else str(block.get("text", ""))
            for block in content
            if isinstance(block, str) or (isinstance(block, dict) and block.get("type", "text") == "text")
        )
    return ""
