"""Step 1: plan the search (the program's Plan module): with planner=facts, the default, one model call splits the
claim into atomic facts, which are the sub-questions and later the facts verify quotes, and names the entities
to look up."""

from __future__ import annotations

from langgraph.runtime import Runtime

from claimhop.steps.common import emit, model_update, program_for, say, settings_of
from claimhop.steps.planning import plan_claim, plan_cost_step
from state.context import Context
from state.schema import State


def decompose(state: State, runtime: Runtime[Context]) -> dict:
    """Plan the claim (sub-questions, names to look up, and with planner=facts its atomic facts) in one model call."""
    ctx = settings_of(runtime)
    plan, degraded = plan_claim(state["claim"], ctx, program_for(ctx))
    emit("decompose", event="sub_questions", sub_questions=plan.sub_questions, degraded=degraded)
    lines = "\n".join(f"- {q}" for q in plan.sub_questions)
    update = {"sub_questions": plan.sub_questions, **model_update(ctx, "decompose", degraded, plan_cost_step(ctx)),
              "messages": [say("decompose", f"Sub-questions:\n{lines}")]}
    if plan.gap is not None:
        update["planned_gap"] = plan.gap
    if ctx.planner == "facts":
        update["planned_facts"] = plan.facts
    return update
