"""Step 6b: the chain's next hop: follow the links of the articles it has reached (no model call).

Link following in `bridge` reads the best documents of the first searches. The articles the claim names, and
what the bridge and the gap loop found, are a hop further along the chain, and their own links are the next
hop: "Anthony Bushell" names "Danger Man", and only "Danger Man" names its creator "Ralph Smart". It runs after
the gap loop, so it changes no prompt: a rerun replays every model call from the DSPy cache."""

from __future__ import annotations

from langgraph.runtime import Runtime

from claimhop.steps.bridging import later_hop
from claimhop.steps.common import emit, retriever_for, say, settings_of
from state.context import Context
from state.schema import State


def later_links(state: State, runtime: Runtime[Context]) -> dict:
    """Add the articles that the claim's own articles and the later hops' documents name, most specific first."""
    ctx = settings_of(runtime)
    retriever = retriever_for(ctx)
    found, hops = later_hop(retriever, state.get("candidates", {}), state.get("claim_entities", []),
                            ctx.later_link_articles, ctx.tuning.later_link_weighting == "idf", ctx.tuning.generic_links)
    for hop in hops:
        emit("later_links", event="hop", **hop)
    if ctx.later_link_articles <= 0:
        status = "turned off (later_link_articles=0)"
    elif retriever.link_table() is None:
        status = "not possible: this search engine has no link table"
    else:
        status = f"{len(found)} new documents" + (f" ({', '.join(found)})" if found else "")
    emit("later_links", event="linked", titles=list(found), status=status)
    return {
        "candidates": found,
        "hops": hops,
        "messages": [say("later_links", f"Followed the links of the articles reached: {status}.")],
    }
