"""Step 6: one round of the iterative gap loop: what is still missing (the model), then search for it
(claimhop/program/gap.py); graph/routers.py decides whether to go round again."""

from __future__ import annotations

from langgraph.runtime import Runtime

from claimhop.program import stages_for
from claimhop.program.gap import found_so_far
from claimhop.program.runtime import emit, say, settings_of
from state.context import Context
from state.schema import State


def gap_loop(state: State, runtime: Runtime[Context]) -> dict:
    """Ask what is still missing, search for it, and record the round (the router decides whether to loop)."""
    candidates = state.get("candidates", {})
    out = stages_for(settings_of(runtime)).gap(claim=state["claim"], candidates=candidates, hops=state.get("hops", []),
                                               iteration=state.get("iteration", 0))
    new = [t for t in out.candidates if t not in candidates]
    for hop in out.hops:
        emit("gap_loop", event="hop", iteration=out.iteration, **hop)
    emit("gap_loop", event="gap_analysis", iteration=out.iteration, missing=out.missing, entities=out.entities,
         queries=out.queries, complete=out.complete, new_documents=len(new), degraded=out.degraded)
    return {
        "iteration": out.iteration, "gap_shown": found_so_far(candidates), "missing": out.missing,
        "looked_up": out.entities, "gap_complete": out.complete or not out.queries, "new_last_round": len(new),
        "candidates": out.candidates, "hops": out.hops, "lm_calls": out.calls,
        "degraded": [out.degraded] if out.degraded else [],
        "messages": [say("gap_loop", f"Round {out.iteration}: {len(new)} new documents for: " + "; ".join(out.queries))],
    }
