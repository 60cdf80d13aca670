"""Planning: the run's settings for the program's Plan and EarlyGap modules, each call guarded (retry, fallback)."""

from __future__ import annotations

import dspy

from claimhop.program import ClaimHopProgram
from claimhop.steps.common import call_lm, calls_made, clean_list
from state.context import Context


def plan_cost_step(ctx: Context) -> str:
    """The model-cost step a plan is charged to: one call planning everything is `plan`; a bare decompose is itself."""
    return "decompose" if ctx.planner == "two_calls" else "plan"


def plan_claim(claim: str, ctx: Context, program: ClaimHopProgram) -> tuple[dspy.Prediction, str | None]:
    """The program's Plan on the claim under the run's planner; its fallback (the claim itself) when the model fails."""
    plan = program.plan
    out, degraded = call_lm(
        ctx, "decompose",
        lambda: plan(claim=claim, planner=ctx.planner, max_sub_questions=ctx.max_sub_questions,
                     max_gap_queries=ctx.tuning.max_gap_queries),
        lambda: plan.fallback(claim, ctx.planner),
        usable=lambda p: bool(p.sub_questions), cost_step=plan_cost_step(ctx),
    )
    if degraded:  # a failed plan leaves the claim's split to the verifier (switched off, the claim is its one fact)
        out.facts = None
    return out, degraded


def gap_analysis(state: dict, ctx: Context, program: ClaimHopProgram) -> tuple[dspy.Prediction, str | None, int]:
    """What the claim needs before any search: the plan's names when it gave them (no call), else EarlyGap's call.
    Returns the analysis (queries never empty: the claim itself at least), why it fell back, and the calls made."""
    claim, planned = state["claim"], state.get("planned_gap")
    if planned is not None:
        out, degraded, calls = dspy.Prediction(facts_needed=[], entities=planned["entities"],
                                               queries=planned["queries"]), None, 0
    else:
        step = program.early_gap
        out, degraded = call_lm(ctx, "early_gap", lambda: step(claim=claim, max_gap_queries=ctx.tuning.max_gap_queries),
                                lambda: step.fallback(claim), usable=lambda o: bool(o.queries))
        calls = calls_made(ctx, "early_gap")
    out.queries = clean_list(out.queries, ctx.tuning.max_gap_queries) or [claim]
    out.entities = clean_list(out.entities, 8)
    return out, degraded, calls
