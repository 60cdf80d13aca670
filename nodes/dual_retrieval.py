"""Step 3: phase 1 searches the claim and its sub-questions, phase 2 the early gap queries."""

from __future__ import annotations

from langgraph.runtime import Runtime

from claimhop.steps.common import emit, retriever_for, say, settings_of
from claimhop.steps.search import dual_phase_search
from state.context import Context
from state.schema import State


def dual_retrieval(state: State, runtime: Runtime[Context]) -> dict:
    """Search the claim and its sub-questions (phase 1), then the early gap queries (phase 2)."""
    ctx = settings_of(runtime)
    found, hops = dual_phase_search(
        retriever_for(ctx), state["claim"], state.get("sub_questions", []), state.get("gap_queries", []), ctx
    )
    for hop in hops:
        emit("dual_retrieval", event="hop", **hop)
    return {
        "candidates": found,
        "hops": hops,
        "messages": [say("dual_retrieval", f"Retrieved {len(found)} distinct documents in two phases.")],
    }
