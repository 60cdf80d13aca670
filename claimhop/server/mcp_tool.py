"""claimhop as one MCP tool at `/mcp` of the LangGraph server (Streamable HTTP), for MCP clients.

`langgraph dev` already answers at `/mcp`, but its tool is described as "Tool based on the claimhop assistant",
takes `messages` as a plain string and returns a dump of the whole output state. This route shadows it (custom
routes come first) with one tool that says what it does, takes the claim (and optional settings) and returns the
cited answer as text, verdict first. Each call is a run of the server's own `claimhop` assistant, so it is
queued, checkpointed and limited like any other run, and its settings pass the same client policy."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from state.client_policy import client_settings_problem
from state.context import Context
from state.validation import validate_claim

ASSISTANT = "claimhop"
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


@server.tool(name="check_claim", title="claimhop: check a claim", description=DESCRIPTION)
async def check_claim(
    claim: Annotated[str, Field(description="The factual claim to check, in one or a few sentences.")],
    settings: Annotated[dict[str, Any] | None, Field(
        description="Optional run settings, e.g. {\"max_iterations\": 1}; see claimhop's docs/settings.md.")] = None,
) -> str:
    """Runs the claim on this server's `claimhop` assistant and returns the cited answer."""
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
    output = await client.runs.wait(None, ASSISTANT, input={"claim": claim}, context=settings or None,
                                    raise_error=False)
    if isinstance(output, dict) and "__error__" in output:
        raise ToolError(str(output["__error__"].get("message") or output["__error__"].get("error")))
    return answer_text(output if isinstance(output, dict) else {})


def mcp_app():
    """The Starlette app serving the tool at /mcp: stateless, JSON replies, loopback Host headers only."""
    return server.streamable_http_app(streamable_http_path="/mcp", stateless_http=True, json_response=True)
