"""Step 5: pick the bridging entities (the entity ranking's best; with `bridge_pick=lm`, DSPy PickBridgingEntities
interleaved with them), fetch their documents, title match first, and follow the best documents' links."""

from __future__ import annotations

from langgraph.runtime import Runtime

from claimhop.entities.matching import is_about
from claimhop.steps.bridging import SHOWN_TO_LM, choose, fetch_entities, follow_links, generic_names
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
from state.context import Context
from state.schema import State


def bridge(state: State, runtime: Runtime[Context]) -> dict:
    """Look up the claim's bridging entities and follow found articles' links; returns the new candidates and a hop."""
    ctx = settings_of(runtime)
    retriever = retriever_for(ctx)
    ranked = [e for e in state.get("doc_entities", []) if not any(is_about(e, t) for t in state.get("candidates", {}))]
    generic = generic_names(retriever, ranked, ctx.tuning.generic_links)  # "United States" bridges nothing
    shown = [e for e in ranked if e not in generic][:SHOWN_TO_LM]
    picked: list[str] = []
    calls = 0
    degraded = None
    if shown and ctx.max_bridge_entities > 0 and ctx.bridge_pick == "lm":
        program = program_for(ctx)
        result, degraded = call_lm(
            ctx,
            "bridge",
            lambda: program.bridge(
                claim=state["claim"], sub_questions=state.get("sub_questions", []), candidates=shown
            ).entities,
            list,
        )
        picked = clean_list(result, ctx.max_bridge_entities)
        calls = calls_made(ctx, "bridge")
    entities = choose(picked, shown, ctx.max_bridge_entities)
    found, hops = fetch_entities(retriever, entities, "bridge", ctx.bridge_k, ctx.retrieval_mode,
                                 must_name=ctx.tuning.bridge_search == "naming")
    looked_up = list(entities)
    if ctx.link_articles:
        linked, link_hops = follow_links(retriever, state.get("candidates", {}), ctx.link_articles,
                                         by_specificity=ctx.tuning.link_weighting == "idf", generic=ctx.tuning.generic_links)
        found = {**linked, **found}
        hops += link_hops
        looked_up += [t for t in linked if t not in looked_up]
    for hop in hops:
        emit("bridge", event="hop", **hop)
    emit("bridge", event="bridging_entities", entities=entities, picked_by_lm=picked, degraded=degraded)
    new = [t for t in found if t not in state.get("candidates", {})]
    return {
        "bridge_entities": entities,
        # what the bridge looked up (by name or by following links) counts for selection like the gap analyses'
        # entities: a linked article has no query behind it, so its retrieval score alone would rank it last
        "gap_entities": looked_up,
        "candidates": found,
        "hops": hops,
        "lm_calls": calls,
        "degraded": [degraded] if degraded else [],
        "messages": [say("bridge", f"Bridging entities: {', '.join(entities) or 'none'}; {len(new)} new documents.")],
    }
