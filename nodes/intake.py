"""Read the claim from `claim` or the last human message, and reject bad input with a clear error."""

from __future__ import annotations

from langchain_core.messages import HumanMessage
from langgraph.types import Overwrite

from nodes.common import emit
from state.schema import State
from state.validation import message_text, validate_claim

# What one run accumulates; a new claim on the same (checkpointed) thread starts these afresh.
PER_RUN_RESET = {
    "hops": [], "candidates": {}, "gap_entities": [], "degraded": [], "lm_calls": 0,
}


def claim_from_state(state: State) -> tuple[str, bool]:
    """(claim, came_from_messages): a human message that nothing has answered yet is the claim (a chat turn);
    otherwise the `claim` field."""
    messages = state.get("messages") or []
    if messages and isinstance(messages[-1], HumanMessage):
        return validate_claim(message_text(messages[-1].content)), True
    if state.get("claim") is not None:
        return validate_claim(state["claim"]), False
    raise ValueError("no claim given: pass `claim` or send it as a human message")


def intake(state: State) -> dict:
    claim, from_messages = claim_from_state(state)
    emit("intake", event="claim", claim=claim)
    update: dict = {"claim": claim, "iteration": 0, **{k: Overwrite(v) for k, v in PER_RUN_RESET.items()}}
    if not from_messages:
        update["messages"] = [HumanMessage(content=claim)]
    return update
