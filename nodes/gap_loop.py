"""Step 6: one round of the iterative gap loop: what is still missing (DSPy GapAnalysis), then search for it."""

from __future__ import annotations

from langgraph.runtime import Runtime

from claimhop.entities.matching import is_about
from claimhop.steps.common import (
    call_lm,
    calls_made,
    clean_list,
    emit,
    program_for,
    retriever_for,
    say,
    settings_of,
)
from claimhop.steps.search import found_so_far, search_round
from state.context import Context
from state.schema import State


def gap_loop(state: State, runtime: Runtime[Context]) -> dict:
    """Ask what is still missing, search for it, and record the round (the router decides whether to loop)."""
    ctx = settings_of(runtime)
    iteration = state.get("iteration", 0) + 1
    step = f"gap_loop_{iteration}"
    program = program_for(ctx)

    def ask():
        out = program.gap(claim=state["claim"], found=found_so_far(state))
        return out.missing, out.entities, out.queries, bool(out.complete)

    (missing, entities, queries, complete), degraded = call_lm(
        ctx, "gap_loop", ask, lambda: ([], [], [], True)
    )
    asked = {h["query"].casefold() for h in state.get("hops", [])}
    known = list(state.get("candidates", {}))
    # A query that repeats an earlier one, or names a document already found, cannot find anything new.
    queries = [
        q for q in clean_list(queries, 8) if q.casefold() not in asked and not any(is_about(q, t) for t in known)
    ][: ctx.tuning.loop_queries]
    entities = clean_list(entities, 8)
    found, hops = search_round(retriever_for(ctx), queries, step, None, ctx.loop_k, ctx.retrieval_mode)
    new = [t for t in found if t not in state.get("candidates", {})]
    for hop in hops:
        emit("gap_loop", event="hop", iteration=iteration, **hop)
    emit("gap_loop", event="gap_analysis", iteration=iteration, missing=missing, entities=entities,
         queries=queries, complete=complete, new_documents=len(new), degraded=degraded)
    return {
        "iteration": iteration,
        "gap_shown": found_so_far(state),
        "missing": clean_list(missing, 6),
        "gap_entities": entities,
        "gap_complete": complete or not queries,
        "new_last_round": len(new),
        "candidates": found,
        "hops": hops,
        "lm_calls": calls_made(ctx, "gap_loop"),
        "degraded": [degraded] if degraded else [],
        "messages": [say("gap_loop", f"Round {iteration}: {len(new)} new documents for: " + "; ".join(queries))],
    }
