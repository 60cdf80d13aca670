"""What `langgraph dev` serves besides the graph (langgraph.json `http.app`): the chat page at /ui, a health
report at /claimhop/health, the graph's node table at /claimhop/nodes (what the chat page draws its progress
from), claimhop as one readable MCP tool at /mcp (claimhop.server.mcp_tool), and a middleware that refuses a run
whose claim or settings are bad with 422 naming the problem, before a run is created."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.responses import JSONResponse, RedirectResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from claimhop.server.health import health
from state.client_policy import client_settings_problem
from state.context import Context
from state.validation import message_text, validate_claim

FRONTEND = Path(__file__).resolve().parent / "static"
CHECKED_PATHS = re.compile(r"^/((threads/[^/]+/)?runs(/stream|/wait|/batch|/crons)?|assistants(/[^/]+)?)$")


def settings_problem(body: dict[str, Any]) -> str | None:
    """Settings may come as `context` or as `config.configurable` (LangGraph copies one into the other)."""
    config = body.get("config")
    configurable = config.get("configurable") if isinstance(config, dict) else None
    for settings in (body.get("context"), configurable):
        if settings is None:
            continue
        problem = client_settings_problem(settings)  # the client's own settings, not the operator's environment
        if problem:
            return problem
        if settings is body.get("context"):
            Context.from_any(settings)
    return None


def problem_with(body: dict[str, Any]) -> str | None:
    """The reason a run (or assistant) request cannot succeed, or None. Only claimhop's input shape is checked."""
    try:
        problem = settings_problem(body)
    except ValueError as err:
        return str(err)
    if problem:
        return problem
    payload = body.get("input")
    if payload is None:  # resuming or continuing a thread without new input, or an assistant
        return None
    if not isinstance(payload, dict):
        return "input must be an object with 'claim' or 'messages'"
    try:
        if payload.get("claim") not in (None, ""):
            validate_claim(payload["claim"])
        elif payload.get("messages"):
            if not isinstance(payload["messages"], list):
                return "input.messages must be a list of messages"
            human = [m for m in payload["messages"] if isinstance(m, dict) and m.get("role", m.get("type")) in {"human", "user"}]
            if human:
                validate_claim(message_text(human[-1].get("content")))
        else:
            validate_claim(payload.get("claim", ""))
    except ValueError as err:
        return str(err)
    return None


class ValidateRuns:
    """Pure ASGI middleware: reads a run request's JSON body, checks it, then replays it to the server."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] not in {"POST", "PATCH"} or not CHECKED_PATHS.match(scope["path"]):
            return await self.app(scope, receive, send)
        chunks, more = [], True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        raw = b"".join(chunks)
        try:
            body = json.loads(raw or b"{}")
            bodies = body if isinstance(body, list) else [body]  # /runs/batch sends a list of runs
            reason = next((r for b in bodies if isinstance(b, dict) and (r := problem_with(b))), None)
        except json.JSONDecodeError:
            reason = None  # not ours to judge: the server answers malformed JSON itself
        if reason:
            return await JSONResponse({"detail": reason}, status_code=422)(scope, receive, send)
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": raw, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send)


async def to_ui(request):
    return RedirectResponse("/ui/")


async def nodes(request):
    """GET /claimhop/nodes: the graph's node table (`graph.builder.node_table()`: name, label, calls_model,
    claim_path, in the order a claim runs them), so the chat page keeps no copy of the node order or labels. Like
    /claimhop/health it needs the server's key when one is set (the page fetches it with the key)."""
    from graph.builder import node_table  # imported here: importing the webapp stays light

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
app.add_middleware(ValidateRuns)
