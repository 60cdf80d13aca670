"""The graph's nodes, one module each; a node reads the state and returns only the keys it changes."""

from nodes.bridge import bridge
from nodes.decompose import decompose
from nodes.dual_retrieval import dual_retrieval
from nodes.early_gap import early_gap
from nodes.extract_entities import extract_entities
from nodes.follow_up import follow_up
from nodes.gap_loop import gap_loop
from nodes.intake import intake
from nodes.later_links import later_links
from nodes.mitigate import mitigate
from nodes.search_claim import search_claim
from nodes.select_documents import select_documents
from nodes.verify import verify

__all__ = [
    "bridge", "decompose", "dual_retrieval", "early_gap", "extract_entities", "follow_up", "gap_loop", "intake",
    "later_links", "mitigate", "search_claim", "select_documents", "verify",
]
