"""Planning calls: the claim as sub-questions, search names and (planner=facts) atomic facts, in one or two model calls."""

from __future__ import annotations

import dspy

from claimhop.program import ClaimHopProgram
from claimhop.steps.common import (
    call_lm,
    calls_made,
    clean_list,
    emit,
    say,
)
from state.context import Context


def plan_in_one_call(claim: str, ctx: Context, program: ClaimHopProgram) -> dict:
    """Sub-questions and the entities to look up from one model call that reads the claim once. The entities'
    names are the early gap queries: a name finds its own article, which a sub-question may not."""
    questions, gap, degraded = one_planning_call(claim, ctx, program.plan, "sub_questions")
    return planned(clean_list(questions, ctx.max_sub_questions) or [claim], gap, degraded,
                   calls_made(ctx, "decompose", "plan"))


def plan_as_facts(claim: str, ctx: Context, program: ClaimHopProgram) -> dict:
    """The claim's atomic facts and the entities to look up from one model call. A fact is a statement, and a
    statement finds its article as well as a question does, so the facts are the sub-questions too, and verify
    judges them without splitting the claim again (one call and ~56 generated tokens fewer per claim)."""
    facts, gap, degraded = one_planning_call(claim, ctx, program.plan_facts, "facts")
    facts = clean_list(facts, 5)
    update = planned(facts[: ctx.max_sub_questions] or [claim], gap, degraded, calls_made(ctx, "decompose", "plan"))
    update["planned_facts"] = facts if not degraded else None  # a failed plan leaves the split to verify
    return update


def one_planning_call(claim: str, ctx: Context, predictor: dspy.Predict, field: str) -> tuple[list[str], dict, str | None]:
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
    return items, {"queries": entities[: ctx.tuning.max_gap_queries] or [claim], "entities": entities}, degraded


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
