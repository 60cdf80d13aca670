"""A follow-up question on a thread that already checked a claim ("why did you drop X?", "what says so?"),
answered from the thread's checkpointed state without searching again (claimhop/program/follow_up.py)."""

from __future__ import annotations

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from claimhop.program import stages_for
from claimhop.program.runtime import emit, settings_of
from state.context import Context
from state.schema import State


def follow_up(state: State, runtime: Runtime[Context]) -> dict:
    """Answer a question about the thread's finished check from its checkpointed state, without searching again."""
    out = stages_for(settings_of(runtime)).follow_up(question=state["question"], state=state)
    emit("follow_up", event="follow_up", question=state["question"], answer=out.text)
    return {
        "follow_up": out.text, "lm_calls": out.calls, "degraded": [out.degraded] if out.degraded else [],
        "messages": [AIMessage(content=out.text, name="follow_up")],
    }
