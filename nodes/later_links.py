"""Step 6b: the chain's next hop: follow the links of the articles it has reached, no model call
(claimhop/program/bridge/links.py)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from claimhop.program import stages_for
from claimhop.program.runtime import emit, say, settings_of
from state.context import Context
from state.schema import State


def later_links(state: State, runtime: Runtime[Context]) -> dict:
    """Add the articles that the claim's own articles and the later hops' documents name, most specific first."""
    out = stages_for(settings_of(runtime)).links(candidates=state.get("candidates", {}),
                                                 claim_entities=state.get("claim_entities", []))
    for hop in out.hops:
        emit("later_links", event="hop", **hop)
    emit("later_links", event="linked", titles=list(out.candidates), status=out.status)
    return {
        "candidates": out.candidates,
        "hops": out.hops,
        "messages": [say("later_links", f"Followed the links of the articles reached: {out.status}.")],
    }
