"""A real `langgraph dev` on loopback without a key (as the README starts it) answers only its own names and the
pages it serves (issue 56): a DNS-rebinding page (Host: evil.example) and a cross-site page (Origin:
http://evil.example) are refused with 403 before LangGraph sees the request, so a preflight from that page gets no
Access-Control-Allow-Origin; the chat page, agent-chat-ui on 127.0.0.1:3000 and clients without an Origin (the SDK,
curl, MCP) still work; a body nested 600 deep is a 422. No check runs."""

from __future__ import annotations

import http.client
import json
from urllib.parse import urlsplit

EVIL = "http://evil.example"


def send(url: str, method: str, path: str, headers: dict | None = None, body: bytes | None = None):
    """(status, headers, JSON answer or {}) of one request, with exactly these headers (Host included)."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    try:
        headers = {"Host": parts.netloc, **(headers or {})}
        if body is not None:
            headers.setdefault("Content-Type", "application/json")
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        raw = response.read()
        answer_headers = {name.lower(): value for name, value in response.getheaders()}
    finally:
        conn.close()
    try:
        return response.status, answer_headers, json.loads(raw or b"{}")
    except ValueError:
        return response.status, answer_headers, {}


def test_a_dns_rebinding_page_is_refused(server):
    port = urlsplit(server).port
    rebound = {"Host": f"evil.example:{port}", "Origin": f"http://evil.example:{port}"}  # same-origin to the browser
    for method, path, body in (("GET", "/ok", None), ("POST", "/threads/search", b"{}"), ("GET", "/info", None)):
        status, _, answer = send(server, method, path, rebound, body)
        assert status == 403, (path, answer)
        assert f"'evil.example:{port}'" in answer["detail"] and "CLAIMHOP_ALLOWED_HOSTS" in answer["detail"]
        assert "threads" not in answer


def test_a_cross_site_page_can_neither_write_nor_list_checks(server):
    for method, path, body in (("POST", "/threads/search", b"{}"), ("POST", "/threads", b"{}"),
                               ("POST", "/runs/wait", json.dumps({"assistant_id": "claimhop",
                                                                   "input": {"claim": "A claim."}}).encode()),
                               ("DELETE", "/threads/00000000-0000-0000-0000-000000000000", None)):
        status, headers, answer = send(server, method, path, {"Origin": EVIL}, body)
        assert status == 403, (path, answer)
        assert "'http://evil.example'" in answer["detail"] and "CLAIMHOP_ALLOWED_ORIGINS" in answer["detail"]
        assert "access-control-allow-origin" not in headers


def test_a_preflight_from_another_site_gets_no_cors_answer_and_agent_chat_uis_does(server):
    ask = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}
    status, headers, _ = send(server, "OPTIONS", "/threads/search", {"Origin": EVIL, **ask})
    assert status == 403 and "access-control-allow-origin" not in headers
    for origin in ("http://127.0.0.1:3000", "http://localhost:3000"):  # agent-chat-ui as the README starts it
        status, headers, _ = send(server, "OPTIONS", "/threads/search", {"Origin": origin, **ask})
        assert status == 200 and headers.get("access-control-allow-origin") in {"*", origin}


def test_the_chat_page_and_clients_without_an_origin_still_work(server):
    assert send(server, "GET", "/ok")[0] == 200
    status, _, _ = send(server, "GET", "/ui/")
    assert status == 200
    status, _, assistants = send(server, "POST", "/assistants/search", body=b"{}")
    assert status == 200 and any(a["graph_id"] == "claimhop" for a in assistants)
    status, _, threads = send(server, "POST", "/threads/search", {"Origin": server}, b"{}")  # the page's own request
    assert status == 200 and isinstance(threads, list)
    status, _, _ = send(server, "GET", "/claimhop/nodes", {"Host": f"localhost:{urlsplit(server).port}"})
    assert status == 200


def test_a_body_nested_600_deep_is_a_422_not_a_500(server):
    status, _, answer = send(server, "POST", "/runs/wait", body=b"[" * 600 + b"]" * 600)
    assert status == 422 and answer["detail"].startswith("the request body is nested too deeply")
    assert send(server, "GET", "/ok")[0] == 200  # and the server is still up
