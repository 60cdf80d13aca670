"""Step 2: what the claim needs before searching: the entities and queries the plan named (no model call), or,
with planner=two_calls, the model's early gap analysis (claimhop/program/plan/alternatives/two_calls.py); and the names the
claim itself gives (spaCy)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from claimhop.entities.ner import extract_entities, unique
from claimhop.program import stages_for
from claimhop.program.runtime import emit, say, settings_of
from state.context import Context
from state.schema import State


def early_gap(state: State, runtime: Runtime[Context]) -> dict:
    """Name the facts and entities the claim needs before searching (read from the plan when it already says)."""
    gap = stages_for(settings_of(runtime)).early_gap(claim=state["claim"], planned=state.get("planned_gap"))
    claim_entities = unique(extract_entities([state["claim"]], with_spans=True)[0])
    emit("early_gap", event="gap_analysis", facts_needed=gap.facts_needed, entities=gap.entities,
         queries=gap.queries, claim_entities=claim_entities, degraded=gap.degraded,
         planned_with_decompose=state.get("planned_gap") is not None)
    return {
        "facts_needed": gap.facts_needed, "gap_queries": gap.queries, "looked_up": gap.entities,
        "claim_entities": claim_entities, "lm_calls": gap.calls, "degraded": [gap.degraded] if gap.degraded else [],
        "messages": [say("early_gap", "To find: " + "; ".join(gap.queries))],
    }
