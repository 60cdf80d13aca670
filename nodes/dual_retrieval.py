"""Step 3: phase 1 searches the claim and its sub-questions, phase 2 the early gap queries."""

from __future__ import annotations

from nodes.common import emit, retriever_for, say, settings_of
from nodes.search import search_round
from state.schema import State, merge_candidates


def dual_retrieval(state: State, runtime) -> dict:
    ctx = settings_of(runtime)
    retriever = retriever_for(ctx)
    # The claim itself leads phase 1: as one query it already finds most single-hop evidence.
    phase1_queries = [state["claim"], *state.get("sub_questions", [])]
    found1, hops1 = search_round(
        retriever, phase1_queries, "phase1", ctx.phase1_k, ctx.phase1_k, ctx.retrieval_mode
    )
    found2, hops2 = search_round(
        retriever, state.get("gap_queries", []), "phase2", ctx.phase2_k, ctx.phase2_k, ctx.retrieval_mode
    )
    for hop in hops1 + hops2:
        emit("dual_retrieval", event="hop", **hop)
    found = merge_candidates(found1, found2)
    return {
        "candidates": found,
        "hops": hops1 + hops2,
        "messages": [say("dual_retrieval", f"Retrieved {len(found)} distinct documents in two phases.")],
    }
