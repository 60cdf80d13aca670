"""Step 0: search the claim alone, before any model call, and show what it finds at once.

A user sees documents within seconds while the model plans the hops. The same query leads phase 1 of
`dual_retrieval`, which makes these documents candidates; here they are only shown, so the graph's choices do
not depend on whether this step ran."""

from __future__ import annotations

from nodes.common import emit, retriever_for, say, settings_of
from state.schema import State

SHOWN = 7
SNIPPET_CHARS = 160


def search_claim(state: State, runtime) -> dict:
    ctx = settings_of(runtime)
    hits = retriever_for(ctx).search_fused(state["claim"], SHOWN, ctx.retrieval_mode)  # never the LM re-ranker
    documents = [{"rank": rank, "title": h.title, "snippet": h.text[:SNIPPET_CHARS]} for rank, h in enumerate(hits, 1)]
    emit("search_claim", event="documents", documents=documents)
    lines = "\n".join(f"{d['rank']}. {d['title']}" for d in documents)
    return {"messages": [say("search_claim", f"First documents for the claim (before any model call):\n{lines}")]}
