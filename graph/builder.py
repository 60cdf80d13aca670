"""The claimhop StateGraph: search the claim -> decompose -> early gap -> dual retrieval -> entities -> bridge -> gap loop ->
later links -> select -> verify -> mitigate; a follow-up question on a checked thread goes intake -> follow_up.
Built once at import; `graph` is what langgraph.json serves."""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph

from claimhop.steps.common import MODEL_RETRY
from graph.routers import route_after_bridge, route_after_gap_loop, route_after_intake
from nodes import (
    bridge,
    decompose,
    dual_retrieval,
    early_gap,
    extract_entities,
    follow_up,
    gap_loop,
    intake,
    later_links,
    mitigate,
    search_claim,
    select_documents,
    verify,
)
from state.context import Context
from state.schema import InputState, OutputState, State

# The node table, written once: name -> (node function, whether it calls the model, so it gets MODEL_RETRY).
# A claim runs these in this order; `follow_up` answers a question about a finished check instead.
NODES = {
    "intake": (intake, False),
    "search_claim": (search_claim, False),
    "decompose": (decompose, True),
    "early_gap": (early_gap, True),
    "dual_retrieval": (dual_retrieval, False),
    "extract_entities": (extract_entities, False),
    "bridge": (bridge, True),
    "gap_loop": (gap_loop, True),
    "later_links": (later_links, False),
    "select_documents": (select_documents, False),
    "verify": (verify, True),
    "mitigate": (mitigate, True),
    "follow_up": (follow_up, True),
}
NODE_ORDER = [name for name in NODES if name != "follow_up"]


def build_graph() -> StateGraph:
    """The graph's wiring, uncompiled (tests compile it with their own checkpointer)."""
    builder = StateGraph(State, input_schema=InputState, output_schema=OutputState, context_schema=Context)
    for name, (node, calls_model) in NODES.items():
        builder.add_node(name, node, retry_policy=MODEL_RETRY if calls_model else None)
    builder.add_edge(START, "intake")
    builder.add_conditional_edges("intake", route_after_intake)
    builder.add_edge("search_claim", "decompose")
    builder.add_edge("decompose", "early_gap")
    builder.add_edge("early_gap", "dual_retrieval")
    builder.add_edge("dual_retrieval", "extract_entities")
    builder.add_edge("extract_entities", "bridge")
    builder.add_conditional_edges("bridge", route_after_bridge)
    builder.add_conditional_edges("gap_loop", route_after_gap_loop)
    builder.add_edge("later_links", "select_documents")
    builder.add_edge("select_documents", "verify")
    builder.add_edge("verify", "mitigate")
    builder.add_edge("mitigate", END)
    builder.add_edge("follow_up", END)
    return builder


graph = build_graph().compile(name="claimhop")
