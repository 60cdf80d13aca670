"""The claimhop StateGraph: search the claim -> decompose -> early gap -> dual retrieval -> entities -> bridge -> gap loop ->
later links -> select -> verify -> mitigate; a follow-up question on a checked thread goes intake -> follow_up.
Built once at import; `graph` is what langgraph.json serves."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from langgraph.graph import END, START, StateGraph

from claimhop.program.runtime import MODEL_RETRY
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


class Node(NamedTuple):
    """One row of the node table: the function, whether it may call the model (it then gets MODEL_RETRY), and the
    label people see (the chat page and the CLI read it from the graph: `node_table()`)."""

    function: Callable
    calls_model: bool
    label: str


# The node table, written once. A claim runs these in this order; `follow_up` answers a question about a finished
# check instead.
NODES = {
    "intake": Node(intake, False, "Read the claim"),
    "search_claim": Node(search_claim, False, "First documents"),
    "decompose": Node(decompose, True, "Sub-questions"),
    "early_gap": Node(early_gap, True, "Early gap analysis"),  # asks the model only with planner=two_calls
    "dual_retrieval": Node(dual_retrieval, False, "Dual-phase retrieval"),
    "extract_entities": Node(extract_entities, False, "Entities in the documents"),
    "bridge": Node(bridge, True, "Bridging entities"),  # asks the model only with bridge_pick=lm
    "gap_loop": Node(gap_loop, True, "Gap loop"),
    "later_links": Node(later_links, False, "Next hop by links"),
    "select_documents": Node(select_documents, False, "Selection"),
    "verify": Node(verify, True, "Verify"),
    "mitigate": Node(mitigate, True, "Cited answer"),
    "follow_up": Node(follow_up, True, "Follow-up"),
}
NODE_ORDER = [name for name in NODES if name != "follow_up"]


def node_table() -> list[dict]:
    """The nodes in the order a claim runs them, with their labels: what the server serves at /claimhop/nodes, so the chat
    page and the CLI keep no copy of their own."""
    return [{"name": name, "label": node.label, "calls_model": node.calls_model, "claim_path": name in NODE_ORDER}
            for name, node in NODES.items()]


def build_graph() -> StateGraph:
    """The graph's wiring, uncompiled (tests compile it with their own checkpointer)."""
    builder = StateGraph(State, input_schema=InputState, output_schema=OutputState, context_schema=Context)
    for name, node in NODES.items():
        builder.add_node(name, node.function, retry_policy=MODEL_RETRY if node.calls_model else None,
                         metadata={"label": node.label})
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
