"""Step 2: before searching, ask what facts and entities the claim needs (DSPy EarlyGapAnalysis); with
`planner=one_call` the decompose step's PlanClaim call has already answered, and this step reads its answer."""

from __future__ import annotations

from langgraph.runtime import Runtime

from claimhop.entities.ner import extract_entities, unique
from claimhop.steps.common import (
    call_lm,
    calls_made,
    clean_list,
    emit,
    program_for,
    say,
    settings_of,
)
from state.context import Context
from state.schema import State


def early_gap(state: State, runtime: Runtime[Context]) -> dict:
    """Name the facts and entities the claim needs before searching (read from the plan when it already says)."""
    ctx = settings_of(runtime)
    claim = state["claim"]
    planned = state.get("planned_gap")
    calls, degraded, facts = 0, None, []
    if planned is not None:
        queries, gap_entities = planned["queries"], planned["entities"]
    else:
        program = program_for(ctx)

        def ask():
            out = program.early_gap(claim=claim)
            return out.facts_needed, out.entities, out.queries

        (facts, gap_entities, queries), degraded = call_lm(
            ctx, "early_gap", ask, lambda: ([], [], [claim]), usable=lambda out: bool(clean_list(out[2], 1))
        )
        calls = calls_made(ctx, "early_gap")
    queries = clean_list(queries, ctx.tuning.max_gap_queries) or [claim]
    gap_entities = clean_list(gap_entities, 8)
    claim_entities = unique(extract_entities([claim], with_spans=True)[0])
    emit(
        "early_gap", event="gap_analysis", facts_needed=facts, entities=gap_entities, queries=queries,
        claim_entities=claim_entities, degraded=degraded, planned_with_decompose=planned is not None,
    )
    return {
        "facts_needed": clean_list(facts, 6),
        "gap_queries": queries,
        "gap_entities": gap_entities,
        "claim_entities": claim_entities,
        "lm_calls": calls,
        "degraded": [degraded] if degraded else [],
        "messages": [say("early_gap", "To find: " + "; ".join(queries))],
    }
