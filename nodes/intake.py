"""Read the turn: a claim to check (from `claim` or a human message), or a follow-up question about the
thread's earlier check; reject bad input with a clear error."""

from __future__ import annotations

from langchain_core.messages import HumanMessage
from langgraph.types import Overwrite

from claimhop.program.runtime import emit
from state.instructions import split_instructions
from state.schema import State
from state.turns import PER_CHECK_CLEARED, PER_RUN_RESET, read_turn


def intake(state: State) -> dict:
    """Read the turn: a claim to check, or a follow-up question about this thread's check; refuse bad input."""
    kind, text, from_messages = read_turn(state)
    if kind == "follow_up":
        emit("intake", event="follow_up", question=text)
        return {"turn": "follow_up", "question": text}
    claim, ignored = split_instructions(text)  # validate_claim guarantees a statement remains
    emit("intake", event="claim", claim=claim, ignored_instructions=ignored)
    update: dict = {**PER_CHECK_CLEARED, "turn": "check", "claim": claim, "ignored_instructions": ignored,
                    **{k: Overwrite(v) for k, v in PER_RUN_RESET.items()}}
    if not from_messages:
        update["messages"] = [HumanMessage(content=claim)]
    return update
