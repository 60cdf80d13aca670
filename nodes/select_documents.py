"""Step 7: deduplicated, entity- and chain-scored selection of the top documents (21 by default), in score order
(claimhop/program/select/stage.py)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from claimhop.program import stages_for
from claimhop.program.runtime import emit, say, settings_of
from state.context import Context
from state.schema import State


def select_documents(state: State, runtime: Runtime[Context]) -> dict:
    """Choose the documents to judge: the claim's own top ranks, then coverage of its entities and the links
    that chain them."""
    out = stages_for(settings_of(runtime)).select(
        candidates=state.get("candidates", {}), claim_entities=state.get("claim_entities", []),
        looked_up=state.get("looked_up", []), claim_ranking=state.get("claim_ranking", []),
        claim=state.get("claim", ""))
    selected = out.selected
    emit("select_documents", event="selection", candidates=out.pooled,
         selected=[{"rank": d["rank"], "title": d["title"], "score": d["score"]} for d in selected])
    return {
        "selected": selected,
        "messages": [say("select_documents", f"Kept {len(selected)} of {out.pooled} documents: "
                         + ", ".join(d["title"] for d in selected[:8]) + ("…" if len(selected) > 8 else ""))],
    }
