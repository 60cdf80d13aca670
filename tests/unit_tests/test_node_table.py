"""The node order and labels are written once, in the node table (`state.steps.STEPS`), which the graph pairs with
its node functions (`graph.builder.NODES`): the server serves it at /claimhop/nodes, the chat page draws its
progress from that table and keeps no copy, and the CLI prints the node each event names."""

from __future__ import annotations

import asyncio
import io
import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

import graph.builder
from claimhop.cli.render import render_event
from claimhop.server import auth
from claimhop.server.webapp import FRONTEND, app
from graph.builder import NODES
from state.steps import NODE_ORDER, STEPS, node_table

APP_JS = (FRONTEND / "app.js").read_text(encoding="utf-8")
STRING = r"""(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`)"""
STRING_ARRAY = re.compile(rf"\[\s*{STRING}(?:\s*,\s*{STRING})*\s*,?\s*\]")


def literal_values(array: str) -> list[str]:
    return [m.group(0)[1:-1] for m in re.finditer(STRING, array)]


def test_the_server_serves_the_node_table_in_graph_order_with_labels():
    response = TestClient(app, base_url="http://127.0.0.1").get("/claimhop/nodes")
    assert response.status_code == 200
    table = response.json()
    assert table == node_table()
    assert [row["name"] for row in table if row["claim_path"]] == NODE_ORDER
    assert [row["name"] for row in table] == list(NODES)  # follow_up too, after the claim path
    assert all(row["label"] == NODES[row["name"]].label for row in table)
    assert all(row["calls_model"] == NODES[row["name"]].calls_model for row in table)


def test_the_graph_runs_the_node_table_it_was_given():
    """The graph builds its nodes from the table, one function a row, and exports the table's order as its own."""
    assert [step.name for step in STEPS] == list(NODES) == [f.__name__ for f in graph.builder.FUNCTIONS]
    assert graph.builder.NODE_ORDER is NODE_ORDER and graph.builder.node_table is node_table
    assert all(NODES[step.name].function.__module__ == f"nodes.{step.name}" for step in STEPS)
    graph_nodes = graph.builder.graph.get_graph().nodes
    assert all(graph_nodes[step.name].metadata["label"] == step.label for step in STEPS)


def test_the_node_table_needs_the_servers_key_like_the_other_claimhop_routes(monkeypatch):
    monkeypatch.setenv(auth.KEY_ENV, "k")
    with pytest.raises(auth.Auth.exceptions.HTTPException) as refused:
        asyncio.run(auth.authenticate("/claimhop/nodes", {}, None))
    assert refused.value.status_code == 401
    assert asyncio.run(auth.authenticate("/claimhop/nodes", {"x-api-key": "k"}, None))["identity"]


def test_the_page_keeps_no_copy_of_the_node_order_or_labels():
    arrays = [values for m in STRING_ARRAY.finditer(APP_JS) if (values := literal_values(m.group(0)))]
    assert arrays, "the array pattern should at least find the page's stream modes"
    for values in arrays:
        named = [v for v in values if v in NODES]
        assert len(named) < 2, f"app.js lists nodes itself: {values}"
    keys = [name for name in NODES if re.search(rf"(?<![\w.\"'`]){name}\s*:(?!:)", APP_JS)]
    assert len(keys) < 2, f"app.js maps nodes itself (keys {keys})"
    mapped = [row["name"] for row in node_table()
              if re.search(rf"""\b{row['name']}["'`]?\s*:\s*["'`]{re.escape(row['label'])}["'`]""", APP_JS)]
    assert not mapped, f"app.js keeps labels of its own: {mapped}"
    assert "/claimhop/nodes" in APP_JS  # it draws the timeline from the server's table instead


def test_the_check_that_finds_a_copy_would_find_the_old_one():
    old = 'const NODES = ["intake", "search_claim",\n  "decompose"];\nconst LABELS = {\n  intake: "Read the claim" };'
    arrays = [literal_values(m.group(0)) for m in STRING_ARRAY.finditer(old)]
    assert arrays == [["intake", "search_claim", "decompose"]]
    assert [n for n in NODES if re.search(rf"(?<![\w.\"'`]){n}\s*:(?!:)", old)] == ["intake"]


def rendered(*events: dict) -> str:
    out = io.StringIO()
    for event in events:
        render_event(event, out)
    return out.getvalue()


def test_render_prints_the_node_the_event_names():
    assert rendered({"node": "decompose", "event": "sub_questions", "sub_questions": ["Who?"]}) == \
        "[decompose] sub-questions:\n    - Who?\n"
    # a node the renderer has never heard of is printed as the event names it
    assert rendered({"node": "plan_v2", "event": "sub_questions", "sub_questions": ["Who?"]}) == \
        "[plan_v2] sub-questions:\n    - Who?\n"
    assert rendered({"node": "search_v2", "event": "documents", "documents": []}).startswith("[search_v2] first documents")


def test_render_output_is_unchanged_for_the_graphs_own_events():
    doc = {"rank": 1, "title": "Foxes", "snippet": "Foxes are a band.", "score": 0.5}
    text = rendered(
        {"node": "intake", "event": "claim", "claim": "A claim."},
        {"node": "search_claim", "event": "documents", "documents": [doc]},
        {"node": "early_gap", "event": "gap_analysis", "entities": ["Foxes"], "queries": ["q1", "q2"]},
        {"node": "extract_entities", "event": "entities", "entities": ["Foxes"]},
        {"node": "bridge", "event": "bridging_entities", "entities": []},
        {"node": "gap_loop", "event": "gap_analysis", "iteration": 1, "complete": True, "missing": [],
         "new_documents": 2},
        {"node": "later_links", "event": "linked", "titles": [], "status": "no link"},
        {"node": "select_documents", "event": "selection", "selected": [doc], "candidates": 4},
        {"node": "verify", "event": "verdict", "verdict": "SUPPORTED", "confidence": 0.5, "read": ["Foxes"]},
        {"node": "gap_loop", "event": "degraded", "reason": "no model"},
    )
    assert text.splitlines() == [
        "[intake] claim: A claim.",
        "[search_claim] first documents for the claim (the model is planning the hops meanwhile):",
        "    1. Foxes: Foxes are a band.",
        "[early_gap] entities: Foxes",
        "[early_gap] queries: q1 | q2",
        "[extract_entities] uncovered: Foxes",
        "[bridge] bridging entities: -",
        "[gap_loop] round 1: complete; 2 new documents",
        "[later_links] next hop by links: no link",  # the node's label, from the graph
        "[select_documents] kept 1 of 4:",
        "     1. Foxes  (0.50)",
        "[verify] read together: Foxes",
        "[verify] verdict: SUPPORTED (confidence 0.50)",
        "[gap_loop] degraded: no model",
    ]


def test_render_source_names_no_node_in_its_prefixes():
    source = (Path(__file__).resolve().parents[2] / "claimhop" / "cli" / "render.py").read_text(encoding="utf-8")
    assert not [name for name in NODES if f"[{name}]" in source]
