"""Step 1: plan the search. With planner=facts, the default, one model call splits the claim into atomic facts,
which are the sub-questions and later the facts verify quotes, and names the entities to look up. The stage:
claimhop/program/plan/stage.py."""

from __future__ import annotations

from langgraph.runtime import Runtime

from claimhop.program import stages_for
from claimhop.program.runtime import emit, say, settings_of
from state.context import Context
from state.schema import State


def decompose(state: State, runtime: Runtime[Context]) -> dict:
    """Plan the claim (sub-questions, names to look up, and with planner=facts its atomic facts) in one model call."""
    ctx = settings_of(runtime)
    plan = stages_for(ctx).plan(claim=state["claim"])
    emit("decompose", event="sub_questions", sub_questions=plan.sub_questions, degraded=plan.degraded)
    lines = "\n".join(f"- {q}" for q in plan.sub_questions)
    update = {"sub_questions": plan.sub_questions, "lm_calls": plan.calls,
              "degraded": [plan.degraded] if plan.degraded else [],
              "messages": [say("decompose", f"Sub-questions:\n{lines}")]}
    if plan.gap is not None:
        update["planned_gap"] = plan.gap
    if ctx.planner == "facts":
        update["planned_facts"] = plan.facts
    return update
