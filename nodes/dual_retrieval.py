"""Step 3: phase 1 searches the claim and its sub-questions, phase 2 the early gap queries."""

from __future__ import annotations

from nodes.common import emit, retriever_for, say, settings_of
from nodes.search import search_round
from retrieval.service import SearchEngine
from state.context import Context
from state.schema import Candidate, Hop, State, merge_candidates


def dual_phase_search(
    retriever: SearchEngine, claim: str, sub_questions: list[str], gap_queries: list[str], ctx: Context
) -> tuple[dict[str, Candidate], list[Hop]]:
    """Phase 1: the claim and its sub-questions (the claim leads: as one query it already finds most single-hop
    evidence); phase 2: the early gap queries. Each phase yields its k distinct documents."""
    found1, hops1 = search_round(
        retriever, [claim, *sub_questions], "phase1", ctx.phase1_k, ctx.phase1_k, ctx.retrieval_mode
    )
    found2, hops2 = search_round(retriever, gap_queries, "phase2", ctx.phase2_k, ctx.phase2_k, ctx.retrieval_mode)
    return merge_candidates(found1, found2), hops1 + hops2


def dual_retrieval(state: State, runtime) -> dict:
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
