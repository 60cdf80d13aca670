"""Reading a chat turn: a new claim, or a follow-up question about the claim already checked."""

from __future__ import annotations

import re

from langchain_core.messages import HumanMessage

from state.schema import State
from state.validation import message_text, validate_claim

# What one run accumulates; a new claim on the same (checkpointed) thread starts these afresh.
PER_RUN_RESET = {
    "hops": [], "candidates": {}, "looked_up": [], "degraded": [], "lm_calls": 0,
}
# What one check writes; a new claim on the same thread clears it, so nothing of the last check (its facts,
# verdict, follow-up reply, gap queries) shows in, or steers, the next one. `facts` is None, not [], because the
# answer step reads None as "this verifier gives no facts".
PER_CHECK_CLEARED = {
    "verdict": None, "confidence": None, "verdict_reason": None, "facts": None, "answer": None, "follow_up": None,
    "question": None, "evidence": [], "selected": [], "sub_questions": [], "facts_needed": [], "gap_queries": [],
    "claim_entities": [], "claim_ranking": [], "doc_entities": [], "bridge_entities": [], "missing": [],
    "gap_shown": [], "gap_complete": False, "new_last_round": 0, "iteration": 0, "planned_gap": None,
    "planned_facts": None,
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
