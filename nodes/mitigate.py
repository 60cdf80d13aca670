"""Step 9: the final answer: verdict, a short explanation with [n] citations, and the checked reference list."""

from __future__ import annotations

from langgraph.runtime import Runtime

from claimhop.steps.answer import explained_answer, mitigate_facts
from claimhop.steps.common import program_for, settings_of
from state.context import Context
from state.schema import State


def mitigate(state: State, runtime: Runtime[Context]) -> dict:
    """Write the answer: verdict, explanation with only valid [n] citations, fact lines and references."""
    ctx = settings_of(runtime)
    # the passages, facts or QA verifier's answer is written from its facts, as is a claim with nothing to go on
    # (no facts, no evidence): no model call; verifier=single's evidence is explained by the program's Explain
    if state.get("facts") is not None and (ctx.verifier in ("facts", "qa", "passages") or not state.get("facts")):
        return mitigate_facts(state, ctx.model)
    return explained_answer(state, ctx, program_for(ctx))
