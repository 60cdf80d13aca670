"""`langgraph dev` serves the graph offline on a free port; a run through langgraph_sdk streams every node."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from langgraph_sdk import get_client

from graph import NODE_ORDER

ROOT = Path(__file__).resolve().parents[2]
CLAIM = "Steve Augeri and the lead singer of The Runaways were both American musicians."


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = free_port()
    log = tmp_path_factory.mktemp("server") / "langgraph-dev.log"
    env = {**os.environ, "LANGGRAPH_CLI_NO_ANALYTICS": "1", "LANGGRAPH_NO_VERSION_CHECK": "1"}
    cmd = [str(Path(sys.executable).parent / "langgraph"), "dev", "--port", str(port), "--host", "127.0.0.1",
           "--no-browser", "--no-reload", "--config", str(ROOT / "langgraph.json")]
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 180
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/ok", timeout=2) as resp:
                if resp.status == 200:
                    break
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError(f"langgraph dev exited: {log.read_text()[-2000:]}")
            time.sleep(1)
    else:
        proc.terminate()
        raise RuntimeError(f"langgraph dev did not start: {log.read_text()[-2000:]}")
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()


async def stream_run(url: str, payload: dict, context: dict) -> tuple[list[str], list[dict], list]:
    client = get_client(url=url)
    assistants = await client.assistants.search(graph_id="claimhop")
    assert assistants, "graph id 'claimhop' is not served"
    thread = await client.threads.create()
    nodes, events, errors = [], [], []
    async for part in client.runs.stream(thread["thread_id"], "claimhop", input=payload, context=context,
                                         stream_mode=["updates", "custom"]):
        if part.event == "updates":
            nodes.extend(part.data)
        elif part.event == "custom":
            events.append(part.data)
        elif part.event == "error":
            errors.append(part.data)
    state = await client.threads.get_state(thread["thread_id"])
    return nodes, events, errors, state["values"]


def test_a_chat_message_run_streams_every_node_and_ends_with_the_answer(server):
    payload = {"messages": [{"role": "human", "content": [{"type": "text", "text": CLAIM}]}]}
    nodes, events, errors, values = asyncio.run(stream_run(server, payload, {"max_iterations": 1}))
    assert not errors
    assert [n for n in dict.fromkeys(nodes)] == NODE_ORDER
    assert {e["node"] for e in events} >= set(NODE_ORDER)
    last = values["messages"][-1]
    assert last["type"] == "ai" and last["content"].startswith("Verdict: ")
    assert values["verdict"] in {"SUPPORTED", "CONTRADICTED", "INSUFFICIENT_INFO"}


@pytest.mark.parametrize(
    "payload, context, problem",
    [({"claim": "   "}, {}, "claim is empty"),
     ({"messages": [{"role": "human", "content": ""}]}, {}, "claim is empty"),
     ({"claim": 42}, {}, "must be a string"),
     ({"claim": "x" * 3000}, {}, "limit is 2000"),
     ({"claim": "A claim."}, {"top_k": 0}, "top_k")],
)
def test_bad_input_is_refused_with_422_naming_the_problem(server, payload, context, problem):
    request = urllib.request.Request(
        f"{server}/runs/wait", method="POST", headers={"Content-Type": "application/json"},
        data=json.dumps({"assistant_id": "claimhop", "input": payload, "context": context}).encode(),
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)
    assert refused.value.code == 422
    assert problem in json.loads(refused.value.read())["detail"]
