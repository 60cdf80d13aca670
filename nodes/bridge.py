"""Step 5: look up the bridging entities (the entity ranking's best; with bridge_pick=lm, the model's picks
interleaved with them), title match first, and follow the best documents' links (claimhop/program/bridge/stage.py)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from claimhop.program import stages_for
from claimhop.program.runtime import emit, say, settings_of
from state.context import Context
from state.schema import State


def bridge(state: State, runtime: Runtime[Context]) -> dict:
    """Look up the claim's bridging entities and follow found articles' links; returns the new candidates and a hop."""
    out = stages_for(settings_of(runtime)).bridge(
        claim=state["claim"], sub_questions=state.get("sub_questions", []), doc_entities=state.get("doc_entities", []),
        candidates=state.get("candidates", {}))
    for hop in out.hops:
        emit("bridge", event="hop", **hop)
    emit("bridge", event="bridging_entities", entities=out.entities, picked_by_lm=out.picked, degraded=out.degraded)
    new = [t for t in out.candidates if t not in state.get("candidates", {})]
    return {
        "bridge_entities": out.entities,
        # what the bridge looked up (by name or by following links) joins the names selection weighs: a linked
        # article has no query behind it, so its retrieval score alone would rank it last
        "looked_up": out.looked_up, "candidates": out.candidates, "hops": out.hops, "lm_calls": out.calls,
        "degraded": [out.degraded] if out.degraded else [],
        "messages": [say("bridge", f"Bridging entities: {', '.join(out.entities) or 'none'}; {len(new)} new documents.")],
    }
