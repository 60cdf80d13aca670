"""An MCP client (the `mcp` package's Streamable HTTP client) adds claimhop's server as a user's MCP client
configuration would, finds one readable tool, and checks a real claim with it."""

from __future__ import annotations

import asyncio

import pytest
from mcp import Client

CLAIM = "Steve Augeri and the lead singer of The Runaways were both American musicians."


def with_client(url: str, work):
    async def run():
        async with Client(f"{url}/mcp") as client:
            return await work(client)
    return asyncio.run(run())


def test_claimhop_is_one_tool_that_says_what_it_does_and_takes_a_claim(server):
    tools = with_client(server, lambda client: client.list_tools()).tools
    assert [t.name for t in tools] == ["check_claim"]
    tool = tools[0]
    assert "factual claim" in tool.description and "SUPPORTED" in tool.description
    assert tool.input_schema["properties"]["claim"]["type"] == "string"
    assert tool.input_schema["required"] == ["claim"]
    assert "settings" in tool.input_schema["properties"]


def test_a_tool_call_reports_each_node_then_returns_the_cited_answer_verdict_first(server):
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    result = with_client(server, lambda client: client.call_tool(
        "check_claim", {"claim": CLAIM, "settings": {"max_iterations": 1}}, read_timeout_seconds=900,
        progress_callback=on_progress))
    assert not result.is_error, result.content
    # progress arrived before the result: each finished node by name, counting up, the verdict among them
    messages = [m or "" for _, _, m in progress]
    for node in ("search_claim", "select_documents", "verify"):
        assert any(m.startswith(f"{node} done") for m in messages), messages
    assert any("documents kept" in m for m in messages) and any("verdict" in m for m in messages)
    counts = [done for done, _, _ in progress]
    assert counts == sorted(counts) and progress[-1][1] and counts[-1] <= progress[-1][1]
    text = result.content[0].text
    assert text.split(":", 1)[0] == "Verdict"
    assert text.split()[1] in {"SUPPORTED", "CONTRADICTED", "INSUFFICIENT_INFO"}
    assert "[1]" in text and "{" not in text  # citations, not a dump of the state


@pytest.mark.parametrize("arguments, says", [
    ({"claim": "   "}, "claim"),
    ({"claim": CLAIM, "settings": {"retriever": "os:getcwd"}}, "operator"),
    ({"claim": CLAIM, "settings": {"max_iterations": 99}}, "max_iterations"),
])
def test_a_bad_call_is_an_error_the_client_can_read(server, arguments, says):
    result = with_client(server, lambda client: client.call_tool("check_claim", arguments))
    assert result.is_error
    assert says in result.content[0].text
