"""Step 0: search the claim alone, before any model call, and show what it finds at once.

A user sees documents within seconds while the model plans the hops. The same query leads phase 1 of
`dual_retrieval`, which makes its first documents candidates; the ranking kept here (`claim_ranking`) is what
selection may add from or keep whatever the entity scores say (`claim_k`, `claim_floor`). The stage:
claimhop/program/search/stage.py."""

from __future__ import annotations

from langgraph.runtime import Runtime

from claimhop.program import stages_for
from claimhop.program.found import candidate
from claimhop.program.runtime import emit, say, settings_of
from claimhop.program.search.stage import Search
from state.context import Context
from state.schema import State

SHOWN_SNIPPET_CHARS = 160  # of each first document, about two lines of the chat page


def search_claim(state: State, runtime: Runtime[Context]) -> dict:
    """Search the claim alone before any model call, so a user sees documents within seconds."""
    hits = stages_for(settings_of(runtime)).search.first_look(state["claim"])
    documents = [{"rank": rank, "title": h.title, "snippet": h.text[:SHOWN_SNIPPET_CHARS]}
                 for rank, h in enumerate(hits[: Search.SHOWN], 1)]
    emit("search_claim", event="documents", documents=documents)
    lines = "\n".join(f"{d['rank']}. {d['title']}" for d in documents)
    return {
        "claim_ranking": [candidate(h, rank, "claim") for rank, h in enumerate(hits, 1)],
        "hops": [{"step": "claim", "query": state["claim"], "titles": [h.title for h in hits]}],
        "messages": [say("search_claim", f"First documents for the claim (before any model call):\n{lines}")],
    }
