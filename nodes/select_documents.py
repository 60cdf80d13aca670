"""Step 7: deduplicated, entity- and chain-scored selection of the top documents (21 by default), in score order."""

from __future__ import annotations

from langgraph.runtime import Runtime

from claimhop.steps.bridging import corpus_links
from claimhop.steps.common import emit, retriever_for, say, settings_of
from claimhop.steps.selection import candidate_pool, select_from
from state.context import Context
from state.schema import State


def select_documents(state: State, runtime: Runtime[Context]) -> dict:
    """Choose the documents to judge: the claim's own top ranks, then coverage of its entities and the links
    that chain them."""
    ctx = settings_of(runtime)
    candidates = state.get("candidates", {})
    selected = select_from(candidates, state.get("claim_entities", []), state.get("gap_entities", []),
                           state.get("claim_ranking", []), ctx,
                           corpus_links(retriever_for(ctx)) if ctx.tuning.chain_weight > 0 else None)
    pooled = len(candidate_pool(candidates, state.get("claim_ranking", []), ctx))
    emit("select_documents", event="selection", candidates=pooled,
         selected=[{"rank": d["rank"], "title": d["title"], "score": d["score"]} for d in selected])
    return {
        "selected": selected,
        "messages": [say("select_documents", f"Kept {len(selected)} of {pooled} documents: "
                         + ", ".join(d["title"] for d in selected[:8]) + ("…" if len(selected) > 8 else ""))],
    }
