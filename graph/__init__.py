"""Wiring: the compiled graph and its routers. Entry points (CLI, server, tests) import from here."""

from graph.api import check_claim
from graph.builder import NODE_ORDER, build_graph, graph

__all__ = ["NODE_ORDER", "build_graph", "check_claim", "graph"]
