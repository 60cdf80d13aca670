"""Read the turn: a claim to check (from `claim` or a human message), or a follow-up question about the
thread's earlier check; reject bad input with a clear error."""

from __future__ import annotations

import re

from langchain_core.messages import HumanMessage
from langgraph.types import Overwrite

from nodes.common import emit
from state.instructions import split_instructions
from state.schema import State
from state.validation import message_text, validate_claim

# What one run accumulates; a new claim on the same (checkpointed) thread starts these afresh.
PER_RUN_RESET = {
    "hops": [], "candidates": {}, "gap_entities": [], "degraded": [], "lm_calls": 0,
}
# "check: ...", "check this instead: ...", "new claim: ..." always start a new check.
NEW_CLAIM = re.compile(r"^\s*(?:check(?:\s+this)?(?:\s+instead)?|new\s+claim|claim)\s*:\s*", re.IGNORECASE)
QUESTION_OPENERS = ("why", "explain", "show me", "tell me", "list", "which", "how")


def is_follow_up(text: str, state: State) -> bool:
    """A question (ends with '?' or opens like one) on a thread that has already answered a claim."""
    if not state.get("answer") or NEW_CLAIM.match(text):
        return False
    lowered = text.strip().lower()
    return lowered.endswith("?") or any(re.match(rf"{w}\b", lowered) for w in QUESTION_OPENERS)


def read_turn(state: State) -> tuple[str, str, bool]:
    """(kind, text, came_from_messages): kind is 'check' or 'follow_up'. A human message nothing has answered
    yet is the turn (a chat client); otherwise the `claim` field."""
    messages = state.get("messages") or []
    if messages and isinstance(messages[-1], HumanMessage):
        text = validate_claim(message_text(messages[-1].content))
        if is_follow_up(text, state):
            return "follow_up", text, True
        return "check", validate_claim(NEW_CLAIM.sub("", text)), True
    if state.get("claim") is not None:
        return "check", validate_claim(state["claim"]), False
    raise ValueError("no claim given: pass `claim` or send it as a human message")


def intake(state: State) -> dict:
    kind, text, from_messages = read_turn(state)
    if kind == "follow_up":
        emit("intake", event="follow_up", question=text)
        return {"turn": "follow_up", "question": text}
    claim, ignored = split_instructions(text)  # validate_claim guarantees a statement remains
    emit("intake", event="claim", claim=claim, ignored_instructions=ignored)
    # planned_gap/planned_facts are written by one check's decompose and read by its early_gap and verify: never
    # the last check's
    update: dict = {"turn": "check", "claim": claim, "ignored_instructions": ignored, "iteration": 0, "planned_gap": None,
                    "planned_facts": None,
                    **{k: Overwrite(v) for k, v in PER_RUN_RESET.items()}}
    if not from_messages:
        update["messages"] = [HumanMessage(content=claim)]
    return update
