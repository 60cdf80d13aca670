"""Read the claim from `claim` or the last human message, and reject bad input with a clear error."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage

from nodes.common import emit
from state.validation import message_text, validate_claim
from state.schema import State


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
