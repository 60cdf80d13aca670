"""Step 1: split the claim into sub-questions (DSPy DecomposeClaim); with `planner=one_call`, one DSPy PlanClaim
call also names the entities to look up (the early gap analysis's entities and queries), which the next node
then only reads; with `planner=facts` (the default), one DSPy PlanClaimAsFacts call splits the claim into the
atomic facts that serve as the sub-questions and later as the facts verify judges, and names the entities."""

from __future__ import annotations

from langgraph.runtime import Runtime

from claimhop.steps.common import (
    call_lm,
    calls_made,
    clean_list,
    program_for,
    settings_of,
)
from claimhop.steps.planning import plan_as_facts, plan_in_one_call, planned
from state.context import Context
from state.schema import State


def decompose(state: State, runtime: Runtime[Context]) -> dict:
    """Plan the claim (sub-questions, names to look up, and with planner=facts its atomic facts) in one model call."""
    ctx = settings_of(runtime)
    claim = state["claim"]
    program = program_for(ctx)
    if ctx.planner == "one_call":
        return plan_in_one_call(claim, ctx, program)
    if ctx.planner == "facts":
        return plan_as_facts(claim, ctx, program)
    result, degraded = call_lm(
        ctx, "decompose", lambda: program.decompose(claim=claim).sub_questions, lambda: [claim],
        usable=lambda questions: bool(clean_list(questions, ctx.max_sub_questions)),
    )
    sub_questions = clean_list(result, ctx.max_sub_questions) or [claim]
    return planned(sub_questions, None, degraded, calls_made(ctx, "decompose"))
