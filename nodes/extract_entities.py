"""Step 4: entities of the retrieved documents (spaCy NER), ranked by how strongly the retrieval points at them.

Titles of retrieved documents are entities too, but already covered; the ranking keeps the uncovered ones,
which are what the bridging step can look up (claimhop/program/bridge/ranking.py)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from claimhop.program import stages_for
from claimhop.program.runtime import emit, say, settings_of
from state.context import Context
from state.schema import State


def extract_entities(state: State, runtime: Runtime[Context]) -> dict:
    """Rank the names in the found documents that no search has covered yet (spaCy NER, no model call)."""
    doc_entities = stages_for(settings_of(runtime)).bridge.ranked_names(
        state["claim"], state.get("sub_questions", []), state.get("candidates", {}), state.get("claim_entities", []),
        state.get("looked_up", []))
    emit("extract_entities", event="entities", entities=doc_entities)
    return {
        "doc_entities": doc_entities,
        "messages": [say("extract_entities", "Entities not yet covered: " + ", ".join(doc_entities[:12]))],
    }
