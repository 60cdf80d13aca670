"""Step 1: split the claim into sub-questions (DSPy DecomposeClaim); with `planner=one_call`, one DSPy PlanClaim
call also names the entities to look up (the early gap analysis's entities and queries), which the next node
then only reads; with `planner=facts` (the default), one DSPy PlanClaimAsFacts call splits the claim into the
atomic facts that serve as the sub-questions and later as the facts verify judges, and names the entities."""

from __future__ import annotations

from nodes.common import call_lm, clean_list, emit, program_for, say, settings_of
from state.schema import State


def decompose(state: State, runtime) -> dict:
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
    return planned(sub_questions, None, degraded, 1)


def plan_in_one_call(claim: str, ctx, program) -> dict:
    """Sub-questions and the entities to look up from one model call that reads the claim once. The entities'
    names are the early gap queries: a name finds its own article, which a sub-question may not."""
    questions, gap, degraded = one_planning_call(claim, ctx, program.plan, "sub_questions")
    return planned(clean_list(questions, ctx.max_sub_questions) or [claim], gap, degraded, 1)


def plan_as_facts(claim: str, ctx, program) -> dict:
    """The claim's atomic facts and the entities to look up from one model call. A fact is a statement, and a
    statement finds its article as well as a question does, so the facts are the sub-questions too, and verify
    judges them without splitting the claim again (one call and ~56 generated tokens fewer per claim)."""
    facts, gap, degraded = one_planning_call(claim, ctx, program.plan_facts, "facts")
    facts = clean_list(facts, 5)
    update = planned(facts[: ctx.max_sub_questions] or [claim], gap, degraded, 1)
    update["planned_facts"] = facts if not degraded else None  # a failed plan leaves the split to verify
    return update


def one_planning_call(claim: str, ctx, predictor, field: str) -> tuple[list[str], dict, str | None]:
    """One planning predictor's `field` list and, from its entity names, the early gap analysis it stands in for
    (the names are the gap queries); the claim itself, with no entities, when the call fails."""
    def ask():
        out = predictor(claim=claim)
        return getattr(out, field), out.entities

    (items, entities), degraded = call_lm(
        ctx, "decompose", ask, lambda: ([claim], []),
        usable=lambda out: bool(clean_list(out[0], 1)), cost_step="plan",
    )
    entities = clean_list(entities, 8)
    return items, {"queries": entities[: ctx.max_gap_queries] or [claim], "entities": entities}, degraded


def planned(sub_questions: list[str], gap: dict | None, degraded: str | None, calls: int) -> dict:
    emit("decompose", event="sub_questions", sub_questions=sub_questions, degraded=degraded)
    lines = "\n".join(f"- {q}" for q in sub_questions)
    update = {
        "sub_questions": sub_questions,
        "lm_calls": calls,
        "degraded": [degraded] if degraded else [],
        "messages": [say("decompose", f"Sub-questions:\n{lines}")],
    }
    if gap is not None:
        update["planned_gap"] = gap
    return update
