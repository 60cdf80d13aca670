"""The claimhop StateGraph: search the claim -> decompose -> early gap -> dual retrieval -> entities -> bridge -> gap loop ->
later links -> select -> verify -> mitigate; a follow-up question on a checked thread goes intake -> follow_up.
Built once at import; `graph` is what langgraph.json serves. In a server process, an error a step raises reaches
the client without the operator's paths, hosts or user names (`shown_to_clients`); the server's log has it whole."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import NamedTuple

from langgraph.errors import GraphBubbleUp
from langgraph.graph import END, START, StateGraph

from claimhop.program.client_policy import enforced
from claimhop.program.runtime import MODEL_RETRY
from claimhop.redact import MORE_IN_LOG, client_message
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
from state.steps import NODE_ORDER, STEPS, node_table

log = logging.getLogger("claimhop")
# NODE_ORDER and node_table are state.steps' own, kept here for the code that reads them from the graph
__all__ = ["NODES", "NODE_ORDER", "Node", "build_graph", "client_error", "graph", "node_table", "shown_to_clients"]


class Node(NamedTuple):
    """One row of the node table (`state.steps.STEPS`) with its function: the function, whether it may call the
    model (it then gets MODEL_RETRY), and the label people see."""

    function: Callable
    calls_model: bool
    label: str


# The node functions, one per row of the node table (state/steps.py), in its order.
FUNCTIONS = [intake, search_claim, decompose, early_gap, dual_retrieval, extract_entities, bridge, gap_loop,
             later_links, select_documents, verify, mitigate, follow_up]
if [function.__name__ for function in FUNCTIONS] != [step.name for step in STEPS]:
    raise ImportError("graph/builder.py's node functions and state/steps.py's node table name different nodes: "
                      f"{[function.__name__ for function in FUNCTIONS]} != {[step.name for step in STEPS]}")
NODES = {step.name: Node(function, step.calls_model, step.label) for step, function in zip(STEPS, FUNCTIONS)}


def client_error(err: Exception) -> Exception:
    """`err` as a server's client may see it: in a server process (`claimhop.program.client_policy.enforced`), an
    error whose message names the operator's paths, hosts or user names becomes one of the same type whose message
    does not (`claimhop.redact.client_message`); anywhere else, or with nothing to hide, `err` itself."""
    if not enforced():
        return err
    message = str(err)
    shown = client_message(message)
    if shown == message:
        return err
    try:  # the same type, so retry policies and the client's error name stay as they were; __init__ is not rerun
        safe = type(err).__new__(type(err))
        safe.args = (shown + MORE_IN_LOG,)
        if str(safe) != shown + MORE_IN_LOG:
            raise TypeError("a message of its own making")
    except Exception:  # noqa: BLE001 - a type that cannot be remade so: the message alone, as a RuntimeError
        safe = RuntimeError(shown + MORE_IN_LOG)
    return safe


def shown_to_clients(name: str, function: Callable) -> Callable:
    """The node `function`, raising `client_error`'s version of what it raises (LangGraph's own control flow passes
    as it is); the whole error goes to the `claimhop` log first, for the operator."""

    @functools.wraps(function)
    def node(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except GraphBubbleUp:
            raise
        except Exception as err:
            safe = client_error(err)
            if safe is err:
                raise
            log.error("step %s failed; its client was shown: %s", name, safe, exc_info=err)
            raise safe from None

    return node


def build_graph() -> StateGraph:
    """The graph's wiring, uncompiled (tests compile it with their own checkpointer)."""
    builder = StateGraph(State, input_schema=InputState, output_schema=OutputState, context_schema=Context)
    for name, node in NODES.items():
        builder.add_node(name, shown_to_clients(name, node.function),
                         retry_policy=MODEL_RETRY if node.calls_model else None, metadata={"label": node.label})
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
