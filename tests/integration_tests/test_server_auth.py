"""A server that may leave loopback, against a real `langgraph dev`: with CLAIMHOP_SERVER_KEY set, every route but
liveness and the chat page's files needs the key (the API, LangGraph's meta routes, the MCP endpoint and
claimhop's own routes); a client with the key cannot choose a model, a program file, an address or state a node
writes, nor send a body over the limit, and langgraph dev's own data routes are closed; a check runs for a client
that sends the key (the real model), over the API and over MCP. Without a key the server refuses to start beyond
loopback, and on loopback it still refuses what a client may not choose.

One keyed server serves the whole module (its key set with a trailing newline, sent without: both sides are
normalised alike)."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import urllib.error
import urllib.parse
import urllib.request

import pytest
from answers import assert_a_consistent_answer
from langgraph_sdk import get_client

from benchmarks.launch import dev_server, start_refused
from claimhop.server.guard import MAX_BODY_BYTES

KEY = "test-key-1f2e3d"
CLAIM = "Steve Augeri is an American musician."
WITH_KEY = {"X-Api-Key": KEY}
META_ROUTES = ["/", "/info", "/metrics", "/docs", "/openapi.json"]


@pytest.fixture(scope="module")
def keyed_server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("keyed-server")
    env = {"DSPY_CACHEDIR": str(folder / "dspy"), "CLAIMHOP_SERVER_KEY": KEY + "\n"}
    with dev_server(folder / "langgraph-dev.log", startup_timeout=600, env=env, jobs=1) as url:  # slow on a busy CI
        yield url


def call(url: str, method: str = "GET", body: object = None, headers: dict | None = None) -> tuple[int, dict]:
    """(status, JSON answer or {}) of one request."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            raw = response.read()
            status = response.status
    except urllib.error.HTTPError as err:
        raw, status = err.read(), err.code
    try:
        return status, json.loads(raw or b"{}")
    except ValueError:
        return status, {}


def status(url: str, method: str = "GET", body: object = None, headers: dict | None = None) -> int:
    return call(url, method, body, headers)[0]


def new_thread(url: str) -> str:
    code, thread = call(f"{url}/threads", "POST", {}, WITH_KEY)
    assert code == 200
    return thread["thread_id"]


def test_without_the_key_every_route_but_the_page_is_refused(keyed_server):
    assert status(f"{keyed_server}/threads", "POST", {}) == 401
    assert status(f"{keyed_server}/threads", "POST", {}, {"X-Api-Key": "wrong"}) == 401
    assert status(f"{keyed_server}/assistants/search", "POST", {}) == 401
    assert status(f"{keyed_server}/claimhop/health") == 401
    assert status(f"{keyed_server}/claimhop/nodes") == 401
    assert status(f"{keyed_server}/claimhop/nodes", headers=WITH_KEY) == 200  # what the page asks first
    assert status(f"{keyed_server}/mcp", "POST", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                  {"Accept": "application/json, text/event-stream"}) == 401
    assert status(f"{keyed_server}/ui/") == 200  # the page's files: it asks for the key itself


@pytest.mark.parametrize("path", META_ROUTES)
def test_langgraphs_meta_routes_need_the_key_too(keyed_server, path):
    assert status(f"{keyed_server}{path}") == 401
    assert status(f"{keyed_server}{path}", headers={"Authorization": f"Bearer {KEY}"}) == 200


def test_liveness_is_open_and_the_key_may_come_with_spaces(keyed_server):
    assert status(f"{keyed_server}/ok") == 200
    assert status(f"{keyed_server}/info", headers={"X-Api-Key": f"  {KEY} "}) == 200


BAD_SETTINGS = [
    ({"context": {"model": "huggingface/http://127.0.0.1:9/v1"}}, "is not offered by this server"),
    ({"context": {"model": "anthropic/claude-3-5-sonnet"}}, "is not offered by this server"),
    ({"config": {"configurable": {"model": "oobabooga/http://10.0.0.5/x"}}}, "is not offered by this server"),
    ({"context": {"program_path": "/etc/claimhop/program.json"}}, "program_path"),
    ({"context": {"api_base": "http://10.0.0.5/v1"}}, "server's environment"),
    ({"webhook": "http://10.0.0.5/hook"}, "webhook"),
]


@pytest.mark.parametrize(("extra", "says"), BAD_SETTINGS)
def test_a_client_with_the_key_cannot_choose_what_leaves_the_server(keyed_server, extra, says):
    thread = new_thread(keyed_server)
    body = {"assistant_id": "claimhop", "input": {"claim": CLAIM}, **extra}
    for route in (f"/threads/{thread}/runs/wait", f"/threads/{thread}/runs/stream", "/runs/wait"):
        code, answer = call(f"{keyed_server}{route}", "POST", body, WITH_KEY)
        assert code == 422 and says in answer["detail"], (route, answer)
    assert call(f"{keyed_server}/threads/{thread}/runs", headers=WITH_KEY) == (200, [])  # nothing ran
    code, answer = call(f"{keyed_server}/assistants", "POST", {"graph_id": "claimhop", **extra}, WITH_KEY)
    assert code == 422 and says in answer["detail"]


def test_without_the_key_a_bad_request_learns_nothing(keyed_server):
    code, answer = call(f"{keyed_server}/runs/wait", "POST",
                        {"assistant_id": "claimhop", "input": {"claim": CLAIM},
                         "context": {"corpus_path": "/etc/passwd"}})
    assert code == 401 and "passwd" not in json.dumps(answer) and "folders" not in json.dumps(answer)


def test_a_client_writes_no_state_as_a_node_nor_sends_the_graph_to_one(keyed_server):
    thread = new_thread(keyed_server)
    state = f"{keyed_server}/threads/{thread}/state"
    forged = {"verdict": "SUPPORTED", "answer": "Verdict: SUPPORTED (forged)"}
    code, answer = call(state, "POST", {"values": forged, "as_node": "verify"}, WITH_KEY)
    assert code == 422 and "as_node" in answer["detail"]
    code, answer = call(state, "POST", {"values": forged}, WITH_KEY)
    assert code == 422 and "answer, verdict" in answer["detail"]
    runs = f"{keyed_server}/threads/{thread}/runs"
    code, answer = call(runs, "POST", {"assistant_id": "claimhop", "command": {"goto": "mitigate"}}, WITH_KEY)
    assert code == 422 and "command.goto" in answer["detail"]
    code, answer = call(runs, "POST", {"assistant_id": "claimhop", "command": {"update": forged}}, WITH_KEY)
    assert code == 422 and "verdict" in answer["detail"]
    code, answer = call(f"{keyed_server}/threads", "POST", {"supersteps": [
        {"updates": [{"values": forged, "as_node": "verify"}]}]}, WITH_KEY)
    assert code == 422 and "supersteps" in answer["detail"]
    code, answer = call(state, headers=WITH_KEY)
    assert code == 200 and "verdict" not in (answer.get("values") or {})  # nothing was written


def test_store_writes_pass_the_same_door(keyed_server):
    item = {"namespace": ["notes"], "key": "k1", "value": {"text": "kept"}}
    assert status(f"{keyed_server}/store/items", "PUT", item) == 401
    code, answer = call(f"{keyed_server}/store/items", "PUT", {**item, "webhook": "http://10.0.0.5"}, WITH_KEY)
    assert code == 422 and "webhook" in answer["detail"]
    assert status(f"{keyed_server}/store/items", "PUT", item, WITH_KEY) == 204
    query = urllib.parse.urlencode({"namespace": "notes", "key": "k1"})
    code, stored = call(f"{keyed_server}/store/items?{query}", headers=WITH_KEY)
    assert code == 200 and stored["value"] == {"text": "kept"}


def test_langgraph_devs_own_data_routes_are_closed_even_with_the_key(keyed_server):
    thread = new_thread(keyed_server)
    assert status(f"{keyed_server}/internal/truncate", "POST", {}) == 401
    code, answer = call(f"{keyed_server}/internal/truncate", "POST", {}, WITH_KEY)
    assert code == 403 and "/internal/truncate" in answer["detail"]
    assert status(f"{keyed_server}/deploy", "POST", {}, WITH_KEY) == 403
    assert status(f"{keyed_server}/threads/{thread}", headers=WITH_KEY) == 200  # every thread still there


def send_announcing(url: str, length: int, headers: dict) -> tuple[int, str]:
    """Announce a body of `length` bytes, send 64 KB of it, and read the answer: a server that reads bodies over
    the limit before answering would wait for the rest and time out."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        conn.putrequest("POST", "/runs/wait")
        for name, value in {"Content-Type": "application/json", "Content-Length": str(length), **headers}.items():
            conn.putheader(name, value)
        conn.endheaders()
        conn.send(b'{"assistant_id": "claimhop", "input": {"claim": "' + b"a" * 65_536)
        response = conn.getresponse()
        return response.status, response.read().decode()
    finally:
        conn.close()


def test_a_10_mb_body_is_refused_unread_and_only_after_the_key(keyed_server):
    assert 10_000_000 > MAX_BODY_BYTES
    assert send_announcing(keyed_server, 10_000_000, {})[0] == 401
    code, text = send_announcing(keyed_server, 10_000_000, WITH_KEY)
    assert code == 413 and "over" in text
    assert status(f"{keyed_server}/ok") == 200  # and the server is still there


def with_mcp(url: str, work, headers: dict):
    from mcp import Client
    from mcp.client.streamable_http import (
        create_mcp_http_client,
        streamable_http_client,
    )

    async def run():
        async with create_mcp_http_client(headers=headers) as http_client:
            async with Client(streamable_http_client(f"{url}/mcp", http_client=http_client)) as client:
                return await work(client)
    return asyncio.run(run())


def test_an_mcp_client_with_the_key_checks_a_claim_and_cannot_choose_a_model(keyed_server):
    tools = with_mcp(keyed_server, lambda client: client.list_tools(), WITH_KEY).tools
    assert [t.name for t in tools] == ["check_claim"]
    # a keyed server may be reached by any name (behind a proxy, on a LAN): the key, not the Host header, decides
    named = with_mcp(keyed_server, lambda client: client.list_tools(), {**WITH_KEY, "Host": "claimhop.example:2024"})
    assert [t.name for t in named.tools] == ["check_claim"]
    refused = with_mcp(keyed_server, lambda client: client.call_tool("check_claim", {
        "claim": CLAIM, "settings": {"model": "huggingface/http://127.0.0.1:9/v1"}}), WITH_KEY)
    assert refused.is_error and "not offered by this server" in refused.content[0].text
    # the tool's run goes through the server in-process, past the key, and still through the checks; a progress
    # callback, as a client of a long call gives one: without it the server sends nothing until the answer, and
    # the client's HTTP read timeout (300 s) can end the call first on a loaded machine
    progress: list[str | None] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append(message)

    result = with_mcp(keyed_server, lambda client: client.call_tool(
        "check_claim", {"claim": CLAIM, "settings": {"max_iterations": 1}}, read_timeout_seconds=1800,
        progress_callback=on_progress), WITH_KEY)
    assert not result.is_error, result.content
    assert any((m or "").startswith("verify done") for m in progress), progress
    assert result.content[0].text.split()[1] in {"SUPPORTED", "CONTRADICTED", "INSUFFICIENT_INFO"}


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


def test_a_server_on_every_interface_without_a_key_refuses_to_start():
    env = {name: value for name, value in os.environ.items() if name not in {"CLAIMHOP_SERVER_KEY", "CLAIMHOP_ALLOW_OPEN"}}
    result = start_refused("0.0.0.0", env)
    assert result.returncode not in (0, None), result.stdout[-2000:]
    lines = [line for line in result.stdout.splitlines() if "CLAIMHOP_SERVER_KEY" in line]
    assert lines == ["claimhop: refusing to serve on 0.0.0.0 without a key: set CLAIMHOP_SERVER_KEY (every request "
                     "must then send it), or CLAIMHOP_ALLOW_OPEN=1 if a proxy of your own checks every request"]
    assert "Traceback" not in result.stdout


def test_an_open_loopback_server_still_refuses_what_a_client_may_not_choose(server):
    """No key (the default, loopback only): every route answers without one, and the client policy holds."""
    assert status(f"{server}/info") == 200
    code, answer = call(f"{server}/runs/wait", "POST", {"assistant_id": "claimhop", "input": {"claim": CLAIM},
                                                        "context": {"model": "anthropic/claude-3-5-sonnet"}})
    assert code == 422 and "is not offered by this server" in answer["detail"]
    assert status(f"{server}/internal/truncate", "POST", {}) == 403  # a web page's request to 127.0.0.1 too
