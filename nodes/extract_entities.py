"""Step 4: entities of the retrieved documents (spaCy NER), ranked by how strongly the retrieval points at them.

Titles of retrieved documents are entities too, but already covered; the ranking keeps the uncovered ones,
which are what the bridging step can look up (claimhop/program/bridge.py)."""

from __future__ import annotations

from claimhop.program.bridge import rank_uncovered_entities
from claimhop.program.runtime import emit, say
from state.schema import State


def extract_entities(state: State) -> dict:
    """Rank the names in the found documents that no search has covered yet (spaCy NER, no model call)."""
    doc_entities = rank_uncovered_entities(state["claim"], state.get("sub_questions", []), state.get("candidates", {}),
                                           state.get("claim_entities", []), state.get("gap_entities", []))
    emit("extract_entities", event="entities", entities=doc_entities)
    return {
        "doc_entities": doc_entities,
        "messages": [say("extract_entities", "Entities not yet covered: " + ", ".join(doc_entities[:12]))],
    }
