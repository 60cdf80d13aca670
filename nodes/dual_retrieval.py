"""Step 3: phase 1 searches the claim and its sub-questions, phase 2 the early gap queries (claimhop/program/search/stage.py)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from claimhop.program import stages_for
from claimhop.program.runtime import emit, say, settings_of
from state.context import Context
from state.schema import State


def dual_retrieval(state: State, runtime: Runtime[Context]) -> dict:
    """Search the claim and its sub-questions (phase 1), then the early gap queries (phase 2)."""
    found = stages_for(settings_of(runtime)).search(claim=state["claim"], sub_questions=state.get("sub_questions", []),
                                                   gap_queries=state.get("gap_queries", []))
    for hop in found.hops:
        emit("dual_retrieval", event="hop", **hop)
    return {
        "candidates": found.candidates,
        "hops": found.hops,
        "messages": [say("dual_retrieval", f"Retrieved {len(found.candidates)} distinct documents in two phases.")],
    }
