"""Step 6: one round of the iterative gap loop: what is still missing (the program's GapRound), then search for it."""

from __future__ import annotations

from langgraph.runtime import Runtime

from claimhop.steps.common import emit, program_for, retriever_for, say, settings_of
from claimhop.steps.search import found_so_far, gap_round
from state.context import Context
from state.schema import State


def gap_loop(state: State, runtime: Runtime[Context]) -> dict:
    """Ask what is still missing, search for it, and record the round (the router decides whether to loop)."""
    ctx = settings_of(runtime)
    out = gap_round(state, ctx, retriever_for(ctx), program_for(ctx))
    new = [t for t in out.found if t not in state.get("candidates", {})]
    for hop in out.hops:
        emit("gap_loop", event="hop", iteration=out.iteration, **hop)
    emit("gap_loop", event="gap_analysis", iteration=out.iteration, missing=out.missing, entities=out.entities,
         queries=out.queries, complete=out.complete, new_documents=len(new), degraded=out.degraded)
    return {
        "iteration": out.iteration, "gap_shown": found_so_far(state), "missing": out.missing,
        "gap_entities": out.entities, "gap_complete": out.complete or not out.queries, "new_last_round": len(new),
        "candidates": out.found, "hops": out.hops, "lm_calls": out.calls,
        "degraded": [out.degraded] if out.degraded else [],
        "messages": [say("gap_loop", f"Round {out.iteration}: {len(new)} new documents for: " + "; ".join(out.queries))],
    }
