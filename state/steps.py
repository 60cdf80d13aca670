"""The graph's node table, written once: each node's name, whether it may call the model, and the label people see,
in the order a claim runs them. It sits here, at the bottom of the layers, so that the server (/claimhop/nodes,
the MCP tool's progress) and the CLI read it without importing the graph; graph/builder.py pairs each row with its
node function."""

from __future__ import annotations

from typing import NamedTuple


class Step(NamedTuple):
    """One row of the node table: the node's name, whether it may call the model (the graph then gives it
    MODEL_RETRY), and its label (the chat page and the CLI show it)."""

    name: str
    calls_model: bool
    label: str


# A claim runs these in this order; `follow_up` answers a question about a finished check instead.
STEPS = (
    Step("intake", False, "Read the claim"),
    Step("search_claim", False, "First documents"),
    Step("decompose", True, "Sub-questions"),
    Step("early_gap", True, "Early gap analysis"),  # asks the model only with planner=two_calls
    Step("dual_retrieval", False, "Dual-phase retrieval"),
    Step("extract_entities", False, "Entities in the documents"),
    Step("bridge", True, "Bridging entities"),  # asks the model only with bridge_pick=lm
    Step("gap_loop", True, "Gap loop"),
    Step("later_links", False, "Next hop by links"),
    Step("select_documents", False, "Selection"),
    Step("verify", True, "Verify"),
    Step("mitigate", True, "Cited answer"),
    Step("follow_up", True, "Follow-up"),
)
NODE_ORDER = [step.name for step in STEPS if step.name != "follow_up"]


def node_table() -> list[dict]:
    """The nodes in the order a claim runs them, with their labels: what the server serves at /claimhop/nodes, so
    the chat page and the CLI keep no copy of their own."""
    return [{"name": step.name, "label": step.label, "calls_model": step.calls_model,
             "claim_path": step.name in NODE_ORDER} for step in STEPS]
