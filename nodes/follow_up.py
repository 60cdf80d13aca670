"""A follow-up question on a thread that already checked a claim ("why did you drop X?", "what says so?"),
answered from the thread's checkpointed state without searching again."""

from __future__ import annotations

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from claimhop.steps.common import call_lm, calls_made, emit, program_for, settings_of
from claimhop.steps.facts import numbered
from claimhop.steps.follow_ups import about_a_document, fallback_answer, grounded_answer
from state.context import Context
from state.schema import State


def follow_up(state: State, runtime: Runtime[Context]) -> dict:
    """Answer a question about the thread's finished check from its checkpointed state, without searching again."""
    ctx = settings_of(runtime)
    question = state["question"]
    answer = about_a_document(question, state, ctx)
    degraded, calls = None, 0
    if answer is None:
        evidence = state.get("evidence", [])
        program = program_for(ctx)
        text, degraded = call_lm(
            ctx, "follow_up",
            lambda: program.follow_up(question=question, claim=state["claim"], verdict=state.get("verdict", ""),
                                      evidence=numbered(evidence)).answer,
            lambda: "",
            usable=lambda answer: bool(str(answer).strip()),
        )
        calls = calls_made(ctx, "follow_up")
        answer = grounded_answer(text, evidence) if text.strip() else fallback_answer(state)
    emit("follow_up", event="follow_up", question=question, answer=answer)
    return {
        "follow_up": answer,
        "lm_calls": calls,
        "degraded": [degraded] if degraded else [],
        "messages": [AIMessage(content=answer, name="follow_up")],
    }
