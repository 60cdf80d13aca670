"""Read the claim from `claim` or the last human message, and reject bad input with a clear error."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage

from nodes.common import emit
from state.context import MAX_CLAIM_CHARS
from state.schema import State


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


def validate_claim(claim: Any) -> str:
    """The claim, whitespace-normalised; ValueError naming the problem otherwise."""
    if not isinstance(claim, str):
        raise ValueError(f"claim must be a string, got {type(claim).__name__}")
    text = " ".join("".join(ch if ch.isprintable() else " " for ch in claim).split())
    if not text:
        raise ValueError("claim is empty: give a factual statement to check")
    if len(text) > MAX_CLAIM_CHARS:
        raise ValueError(f"claim is {len(text)} characters long; the limit is {MAX_CLAIM_CHARS}")
    return text


def claim_from_state(state: State) -> tuple[str, bool]:
    """(claim, came_from_messages): an explicit `claim` wins, else the latest human message."""
    if state.get("claim") not in (None, ""):
        return validate_claim(state["claim"]), False
    for message in reversed(state.get("messages") or []):
        if isinstance(message, HumanMessage):
            return validate_claim(message_text(message.content)), True
    raise ValueError("no claim given: pass `claim` or send it as a human message")


def intake(state: State) -> dict:
    claim, from_messages = claim_from_state(state)
    emit("intake", event="claim", claim=claim)
    update: dict = {"claim": claim, "iteration": 0, "lm_calls": 0}
    if not from_messages:
        update["messages"] = [HumanMessage(content=claim)]
    return update
