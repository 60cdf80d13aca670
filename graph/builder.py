"""The claimhop StateGraph: search the claim -> decompose -> early gap -> dual retrieval -> entities -> bridge -> gap loop ->
select -> verify -> mitigate; a follow-up question on a checked thread goes intake -> follow_up.
Built once at import; `graph` is what langgraph.json serves."""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph

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
    mitigate,
    search_claim,
    select_documents,
    verify,
)
from nodes.common import MODEL_RETRY
from state.context import Context
from state.schema import InputState, OutputState, State

NODE_ORDER = [
    "intake", "search_claim", "decompose", "early_gap", "dual_retrieval", "extract_entities", "bridge", "gap_loop",
    "select_documents", "verify", "mitigate",
]


def build_graph() -> StateGraph:
    builder = StateGraph(State, input_schema=InputState, output_schema=OutputState, context_schema=Context)
    model_steps = {"decompose", "early_gap", "bridge", "gap_loop", "verify", "mitigate", "follow_up"}
    for name, node in [
        ("intake", intake), ("search_claim", search_claim), ("decompose", decompose), ("early_gap", early_gap),
        ("dual_retrieval", dual_retrieval), ("extract_entities", extract_entities), ("bridge", bridge),
        ("gap_loop", gap_loop), ("select_documents", select_documents), ("verify", verify),
        ("mitigate", mitigate), ("follow_up", follow_up),
    ]:
        builder.add_node(name, node, retry_policy=MODEL_RETRY if name in model_steps else None)
    builder.add_edge(START, "intake")
    builder.add_conditional_edges("intake", route_after_intake)
    builder.add_edge("search_claim", "decompose")
    builder.add_edge("decompose", "early_gap")
    builder.add_edge("early_gap", "dual_retrieval")
    builder.add_edge("dual_retrieval", "extract_entities")
    builder.add_edge("extract_entities", "bridge")
    builder.add_conditional_edges("bridge", route_after_bridge)
    builder.add_conditional_edges("gap_loop", route_after_gap_loop)
    builder.add_edge("select_documents", "verify")
    builder.add_edge("verify", "mitigate")
    builder.add_edge("mitigate", END)
    builder.add_edge("follow_up", END)
    return builder


graph = build_graph().compile(name="claimhop")
