"""Step 4: entities of the retrieved documents (spaCy NER), ranked by how strongly the retrieval points at them.

Titles of retrieved documents are entities too, but already covered; the ranking keeps the uncovered ones,
which are what the bridging step can look up."""

from __future__ import annotations

from claimhop.steps.common import emit, say
from claimhop.steps.entity_ranking import rank_uncovered_entities
from state.schema import State


def extract_entities(state: State) -> dict:
    """Rank the names in the found documents that no search has covered yet (spaCy NER, no model call)."""
    doc_entities = rank_uncovered_entities(state)
    emit("extract_entities", event="entities", entities=doc_entities)
    return {
        "doc_entities": doc_entities,
        "messages": [say("extract_entities", "Entities not yet covered: " + ", ".join(doc_entities[:12]))],
    }
