"""What `langgraph dev` serves besides the graph (langgraph.json `http.app`): the chat page at /ui, a health
report at /claimhop/health, the graph's node table at /claimhop/nodes (what the chat page draws its progress
from), claimhop as one readable MCP tool at /mcp (claimhop.server.mcp_tool), and the middleware in front of every
route (claimhop.server.guard: the key, the write allow-list, the body limit and the body checks). Loading it in a
server bound beyond loopback without a key stops the server (claimhop.server.exposure)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.responses import JSONResponse, RedirectResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from claimhop.server.bodies import problem_with
from claimhop.server.exposure import refuse_open_exposure
from claimhop.server.guard import Guard
from claimhop.server.health import health
from state.steps import node_table

__all__ = ["app", "problem_with"]
FRONTEND = Path(__file__).resolve().parent / "static"

if "langgraph_api.server" in sys.modules:  # loaded by a starting LangGraph server, not imported by a test
    refuse_open_exposure()


async def to_ui(request):
    return RedirectResponse("/ui/")


async def nodes(request):
    """GET /claimhop/nodes returns the graph's node table (`state.steps.node_table()`, with each node's name,
    label, calls_model and claim_path, in the order a claim runs them), so the chat page keeps no copy of the node
    order or labels. Like /claimhop/health it needs the server's key when one is set (the page sends it).
    The server's OpenAPI page reads a route's docstring as YAML, so this one has no colon followed by a space."""
    return JSONResponse(node_table())


def mcp_routes() -> tuple[list, Any]:
    """The MCP tool's routes and the lifespan its session manager needs; none without the `mcp` package (the
    server's own /mcp answers then)."""
    try:
        from claimhop.server.mcp_tool import mcp_app
    except ImportError:
        return [], None
    served = mcp_app()
    return list(served.routes), served.router.lifespan_context


MCP_ROUTES, MCP_LIFESPAN = mcp_routes()
app = Starlette(routes=[
    Route("/claimhop/health", health),
    Route("/claimhop/nodes", nodes, methods=["GET"]),
    Route("/ui", to_ui),
    Mount("/ui/", StaticFiles(directory=FRONTEND, html=True), name="ui"),
    *MCP_ROUTES,
], lifespan=MCP_LIFESPAN)
app.add_middleware(Guard)
