"""Step 9: the final answer: verdict, a short explanation with [n] citations, and the checked reference list."""

from __future__ import annotations

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from claimhop.steps.answer import (
    HEADLINES,
    cited_statements,
    compose_answer,
    extractive_explanation,
    mitigate_facts,
)
from claimhop.steps.common import call_lm, calls_made, emit, program_for, settings_of
from claimhop.steps.facts import numbered
from claimhop.verification.citations import check_citations
from state.context import Context
from state.schema import State


def mitigate(state: State, runtime: Runtime[Context]) -> dict:
    """Write the answer: verdict, explanation with only valid [n] citations, fact lines and references."""
    ctx = settings_of(runtime)
    # the facts or QA verifier's answer, or a claim with nothing to go on (no facts, no evidence: no model call)
    if state.get("facts") is not None and (ctx.verifier in ("facts", "qa", "passages") or not state.get("facts")):
        return mitigate_facts(state, ctx.model)
    verdict = state.get("verdict", "INSUFFICIENT_INFO")
    evidence = state.get("evidence", [])
    program = program_for(ctx)
    statements, degraded = call_lm(
        ctx,
        "mitigate",
        lambda: program.explain(claim=state["claim"], verdict=verdict, evidence=numbered(evidence)).statements,
        list,
        usable=lambda statements: bool(cited_statements(statements, evidence)) or not evidence,
    )
    body = " ".join(cited_statements(statements, evidence)) or extractive_explanation(evidence)
    explanation = f"{HEADLINES[verdict]} {body}".strip()
    check_citations(explanation, evidence, state.get("selected", []))
    all_degraded = [*state.get("degraded", []), *([degraded] if degraded else [])]
    answer = compose_answer(state["claim"], verdict, explanation, evidence, all_degraded,
                            state.get("ignored_instructions"), ctx.model)
    emit("mitigate", event="answer", answer=answer, verdict=verdict, model=ctx.model)
    return {
        "answer": answer,
        "model": ctx.model,
        "lm_calls": calls_made(ctx, "mitigate"),
        "degraded": [degraded] if degraded else [],
        "messages": [AIMessage(content=answer, name="mitigate")],
    }
