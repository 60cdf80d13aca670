"""Step 1: split the claim into sub-questions (DSPy DecomposeClaim)."""

from __future__ import annotations

from nodes.common import call_lm, clean_list, emit, program_for, say, settings_of
from state.schema import State


def decompose(state: State, runtime) -> dict:
    ctx = settings_of(runtime)
    claim = state["claim"]
    program = program_for(ctx)
    result, degraded = call_lm(
        ctx, "decompose", lambda: program.decompose(claim=claim).sub_questions, lambda: [claim],
        usable=lambda questions: bool(clean_list(questions, ctx.max_sub_questions)),
    )
    sub_questions = clean_list(result, ctx.max_sub_questions) or [claim]
    emit("decompose", event="sub_questions", sub_questions=sub_questions, degraded=degraded)
    lines = "\n".join(f"- {q}" for q in sub_questions)
    return {
        "sub_questions": sub_questions,
        "lm_calls": 1,
        "degraded": [degraded] if degraded else [],
        "messages": [say("decompose", f"Sub-questions:\n{lines}")],
    }
