"""A follow-up question on a thread that already checked a claim ("why did you drop X?", "what says so?"),
answered from the thread's checkpointed state without searching again."""

from __future__ import annotations

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from claimhop.steps.common import emit, program_for, settings_of
from claimhop.steps.follow_ups import answer_follow_up
from state.context import Context
from state.schema import State


def follow_up(state: State, runtime: Runtime[Context]) -> dict:
    """Answer a question about the thread's finished check from its checkpointed state, without searching again."""
    ctx = settings_of(runtime)
    answer, degraded, calls = answer_follow_up(state, ctx, program_for(ctx))
    emit("follow_up", event="follow_up", question=state["question"], answer=answer)
    return {
        "follow_up": answer, "lm_calls": calls, "degraded": [degraded] if degraded else [],
        "messages": [AIMessage(content=answer, name="follow_up")],
    }
