"""claimhop as one MCP tool at `/mcp` of the LangGraph server (Streamable HTTP), for MCP clients.

`langgraph dev` already answers at `/mcp`, but its tool is described as "Tool based on the claimhop assistant",
takes `messages` as a plain string and returns a dump of the whole output state. This route shadows it (custom
routes come first) with one tool that says what it does, takes the claim (and optional settings) and returns the
cited answer as text, verdict first. Each call is a run of the server's own `claimhop` assistant, so it is
queued, checkpointed and limited like any other run, and its settings pass the same client policy.

A check takes from ten seconds to minutes, and common MCP clients give up on a silent call after 60 s, so the tool
streams the run and sends a progress notification as each node finishes (its name and what it found) and at least
every HEARTBEAT_S seconds; replies are server-sent event streams (JSON-response mode would drop them)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Annotated, Any

from mcp.server.mcpserver import Context as ToolContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from claimhop.program.client_policy import client_settings_problem
from claimhop.redact import client_message
from state.context import Context
from state.steps import NODE_ORDER
from state.validation import validate_claim

ASSISTANT = "claimhop"
HEARTBEAT_S = 10.0  # well inside the 60 s after which common clients give up on a silent call
DESCRIPTION = (
    "Check a factual claim against claimhop's document collection (Wikipedia intro paragraphs by default). "
    "claimhop hops across the collection to gather every document the claim depends on, judges the claim and "
    "answers SUPPORTED, CONTRADICTED or INSUFFICIENT_INFO with a confidence, the sentence that decided each "
    "part of the claim quoted with [n] citations, and the cited documents. A check takes about half a minute "
    "to two minutes on a laptop."
)

server = MCPServer(name="claimhop", instructions="Use check_claim to fact-check one claim at a time.")


def answer_text(output: dict[str, Any]) -> str:
    """The run's output as a person reads it: the cited answer, which starts with the verdict."""
    answer = str(output.get("answer") or "").strip()
    return answer or f"Verdict: {output.get('verdict') or 'INSUFFICIENT_INFO'}"


def node_progress(node: str, update: dict[str, Any] | None) -> str:
    """What a finished node found, in a few words, for a progress notification."""
    update = update or {}
    found = []
    if update.get("selected"):
        found.append(f"{len(update['selected'])} documents kept")
    elif update.get("hops"):
        found.append(f"{len(update['hops'])} searches")
    if update.get("verdict"):
        found.append(f"verdict {update['verdict']}")
    return f"{node} done" + (f": {', '.join(found)}" if found else "")


@server.tool(name="check_claim", title="claimhop: check a claim", description=DESCRIPTION)
async def check_claim(
    claim: Annotated[str, Field(description="The factual claim to check, in one or a few sentences.")],
    settings: Annotated[dict[str, Any] | None, Field(
        description="Optional run settings, e.g. {\"max_iterations\": 1}; see claimhop's docs/settings.md.")] = None,
    ctx: ToolContext | None = None,
) -> str:
    """Runs the claim on this server's `claimhop` assistant, reporting each finished node, and returns the cited
    answer."""
    from langgraph_sdk import get_client

    problem = client_settings_problem(settings or {})
    if problem:
        raise ToolError(problem)
    try:
        claim = validate_claim(claim)
        Context.from_any(settings or {})
    except ValueError as err:
        raise ToolError(str(err)) from None
    client = get_client(url=None)  # this server, in process
    steps, last = 0, "started"
    output: dict[str, Any] = {}

    async def report(message: str) -> None:
        if ctx is not None:
            await ctx.report_progress(steps, len(NODE_ORDER), message)

    async def heartbeat() -> None:
        while True:
            await asyncio.sleep(HEARTBEAT_S)
            await report(f"still working (last: {last})")

    beat = asyncio.create_task(heartbeat())
    try:
        await report("started")
        async for part in client.runs.stream(None, ASSISTANT, input={"claim": claim}, context=settings or None,
                                             stream_mode=["updates", "values"]):
            if part.event == "error":
                data = part.data if isinstance(part.data, dict) else {}
                raise ToolError(client_message(str(data.get("message") or data.get("error") or part.data)))
            if part.event == "values" and isinstance(part.data, dict):
                output = part.data
            elif part.event == "updates" and isinstance(part.data, dict):
                for node, update in part.data.items():
                    steps = min(steps + 1, len(NODE_ORDER))
                    last = node_progress(node, update if isinstance(update, dict) else None)
                    await report(last)
    finally:
        beat.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await beat
    return answer_text(output)


def transport_security():
    """Without a key the server is on loopback, and the `mcp` package's check of Host and Origin headers keeps a
    web page that rebinds its own name to 127.0.0.1 out (its default), a second copy of the check claimhop's
    middleware makes on every route (claimhop.server.origins). With a key the server may be reached by any name,
    and the key keeps such pages out (they cannot read it); with CLAIMHOP_ALLOWED_HOSTS or CLAIMHOP_ALLOWED_ORIGINS
    the operator widened the middleware's lists, which the package's loopback-only copy would contradict. In both
    cases the package's check is off and the middleware's decides."""
    import os

    from mcp.server.transport_security import TransportSecuritySettings

    from claimhop.server.keys import expected_key
    from claimhop.server.origins import HOSTS_ENV, ORIGINS_ENV

    widened = any(os.environ.get(name, "").strip() for name in (HOSTS_ENV, ORIGINS_ENV))
    return TransportSecuritySettings(enable_dns_rebinding_protection=False) if expected_key() or widened else None


def mcp_app():
    """The Starlette app serving the tool at /mcp: stateless, replies as event streams (so progress reaches the
    client); loopback Host headers only unless the server has a key."""
    return server.streamable_http_app(streamable_http_path="/mcp", stateless_http=True, json_response=False,
                                      transport_security=transport_security())
