"""A server that may leave loopback: with CLAIMHOP_SERVER_KEY set, `langgraph dev` (through langgraph.json's
`auth`) refuses the API, the MCP endpoint and claimhop's own routes without the key, serves the chat page's
files, and runs a check for a client that sends the key (the real model)."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request

import pytest
from answers import assert_a_consistent_answer
from langgraph_sdk import get_client

from claimhop.server.launch import dev_server

KEY = "test-key-1f2e3d"
CLAIM = "Steve Augeri is an American musician."


@pytest.fixture(scope="module")
def keyed_server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("keyed-server")
    env = {"DSPY_CACHEDIR": str(folder / "dspy"), "CLAIMHOP_SERVER_KEY": KEY}
    with dev_server(folder / "langgraph-dev.log", env=env, jobs=1) as url:
        yield url


def status(url: str, method: str = "GET", body: dict | None = None, headers: dict | None = None) -> int:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as err:
        return err.code


def test_without_the_key_every_route_but_the_page_is_refused(keyed_server):
    assert status(f"{keyed_server}/threads", "POST", {}) == 401
    assert status(f"{keyed_server}/threads", "POST", {}, {"X-Api-Key": "wrong"}) == 401
    assert status(f"{keyed_server}/assistants/search", "POST", {}) == 401
    assert status(f"{keyed_server}/claimhop/health") == 401
    assert status(f"{keyed_server}/claimhop/nodes") == 401
    assert status(f"{keyed_server}/claimhop/nodes", headers={"X-Api-Key": KEY}) == 200  # what the page asks first
    assert status(f"{keyed_server}/mcp", "POST", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                  {"Accept": "application/json, text/event-stream"}) == 401
    assert status(f"{keyed_server}/ui/") == 200  # the page's files: it asks for the key itself


def test_a_client_with_the_key_runs_a_check(keyed_server):
    assert status(f"{keyed_server}/threads", "POST", {}, {"Authorization": f"Bearer {KEY}"}) == 200

    async def run() -> dict:
        client = get_client(url=keyed_server, api_key=KEY)  # sent as X-Api-Key, as agent-chat-ui sends it
        thread = await client.threads.create()
        return await client.runs.wait(thread["thread_id"], "claimhop", input={"claim": CLAIM},
                                      context={"max_iterations": 1})

    final = asyncio.run(run())
    assert_a_consistent_answer(final)
    assert "Steve Augeri" in {d["title"] for d in final["selected"]}
