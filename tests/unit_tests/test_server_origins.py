"""The local server answers only its own names and the pages it serves (issue 56): a web page the user visits
cannot read or write checks, whether it calls http://127.0.0.1:2024 from its own origin (CORS, the Origin header)
or points its own name at 127.0.0.1 (DNS rebinding, the Host header); and a body nested too deep is a 422, not a
500. The middleware is tried in front of LangGraph's own default CORS middleware (every origin), as the server
stacks them."""

from __future__ import annotations

import pytest

from claimhop.server.origins import host_allowed, origin_allowed

SERVER = "http://127.0.0.1:2024"
EVIL = "http://evil.example"
CLAIM = "Cherie Currie and Steve Augeri were both American."
DOOR_ENV = ("CLAIMHOP_SERVER_KEY", "CLAIMHOP_ALLOWED_HOSTS", "CLAIMHOP_ALLOWED_ORIGINS")


@pytest.fixture
def server(monkeypatch):
    """claimhop's middleware in front of LangGraph's default CORS middleware (allow every origin) and an app that
    answers every route; no key, as `langgraph dev` starts."""
    from starlette.applications import Starlette
    from starlette.middleware.cors import CORSMiddleware
    from starlette.responses import JSONResponse
    from starlette.routing import Route
    from starlette.testclient import TestClient

    from claimhop.server.guard import Guard

    for name in DOOR_ENV:
        monkeypatch.delenv(name, raising=False)

    async def answer(request):
        return JSONResponse({"threads": ["every check"], "got": len(await request.body())})

    inner = Starlette(routes=[Route("/{path:path}", answer, methods=["GET", "POST", "PUT", "PATCH", "DELETE"])])
    langgraph_cors = CORSMiddleware(inner, allow_origins=["*"], allow_methods=["*"], allow_headers=["*"])
    return TestClient(Guard(langgraph_cors), base_url=SERVER)


# --- the decision ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("host", ["127.0.0.1:2024", "127.0.0.1", "localhost:2024", "LOCALHOST.:80", "[::1]:2024",
                                  "127.0.0.2:9"])
def test_the_loopback_names_are_answered_on_any_port(host):
    assert host_allowed(host, env={})


@pytest.mark.parametrize("host", ["evil.example", "evil.example:2024", "localhost.evil.example:2024",
                                  "127.0.0.1.nip.io:2024", "0.0.0.0:2024", "192.168.1.20:2024", "", "a b:1", "x:99999"])
def test_without_a_key_any_other_name_is_refused(host):
    assert not host_allowed(host, env={})


def test_the_operator_names_other_hosts_and_a_key_lets_any_name_in_unless_the_operator_lists_them():
    assert host_allowed("claimhop.example:2024", env={"CLAIMHOP_SERVER_KEY": "k"})  # behind a proxy, on a LAN
    listed = {"CLAIMHOP_SERVER_KEY": "k", "CLAIMHOP_ALLOWED_HOSTS": "claimhop.lan, 10.0.0.5:2024"}
    assert host_allowed("claimhop.lan:443", env=listed) and host_allowed("CLAIMHOP.LAN", env=listed)
    assert host_allowed("10.0.0.5:2024", env=listed) and not host_allowed("10.0.0.5:2025", env=listed)
    assert host_allowed("127.0.0.1:2024", env=listed)  # loopback always
    assert not host_allowed("evil.example", env=listed)
    assert host_allowed("claimhop.lan", env={"CLAIMHOP_ALLOWED_HOSTS": "claimhop.lan"})  # a proxy, no key
    assert host_allowed("anything", env={"CLAIMHOP_ALLOWED_HOSTS": "*"})


@pytest.mark.parametrize("origin", ["http://127.0.0.1:2024", "http://127.0.0.1:3000", "http://localhost:3000",
                                    "http://localhost", "https://localhost:8443", "http://[::1]:3000"])
def test_pages_served_from_this_machine_are_answered(origin):
    assert origin_allowed(origin, "127.0.0.1:2024", env={})


@pytest.mark.parametrize("origin", [EVIL, "https://evil.example", "http://localhost.evil.example:3000",
                                    "null", "file://", "chrome-extension://abc", "http://127.0.0.1.nip.io:2024", ""])
def test_any_other_page_is_refused(origin):
    assert not origin_allowed(origin, "127.0.0.1:2024", env={})


def test_the_servers_own_page_by_any_name_and_the_operators_origins_are_answered():
    assert origin_allowed("http://claimhop.lan:2024", "claimhop.lan:2024", env={})  # same origin, keyed server
    assert origin_allowed("https://claimhop.example", "claimhop.example", env={})  # behind a TLS proxy
    assert not origin_allowed("http://claimhop.lan:3000", "claimhop.lan:2024", env={})  # another port: another site
    listed = {"CLAIMHOP_ALLOWED_ORIGINS": "https://smith.langchain.com, http://ui.lan:*"}
    assert origin_allowed("https://smith.langchain.com", "127.0.0.1:2024", env=listed)
    assert origin_allowed("http://ui.lan:3000", "127.0.0.1:2024", env=listed)
    assert not origin_allowed("https://ui.lan:3000", "127.0.0.1:2024", env=listed)  # another scheme
    assert not origin_allowed(EVIL, "127.0.0.1:2024", env=listed)
    assert origin_allowed(EVIL, "127.0.0.1:2024", env={"CLAIMHOP_ALLOWED_ORIGINS": "*"})


# --- through the middleware, every route ---------------------------------------------------------------------------

@pytest.mark.parametrize(("method", "path"), [("GET", "/ok"), ("GET", "/ui/"), ("POST", "/threads/search"),
                                              ("GET", "/claimhop/health"), ("POST", "/mcp"),
                                              ("DELETE", "/threads/t1"), ("GET", "/threads/t1/state")])
def test_a_rebinding_page_is_refused_on_every_route(server, method, path):
    refused = server.request(method, path, json={} if method == "POST" else None,
                             headers={"Host": "evil.example:2024", "Origin": "http://evil.example:2024"})
    assert refused.status_code == 403
    detail = refused.json()["detail"]
    assert "'evil.example:2024'" in detail and "CLAIMHOP_ALLOWED_HOSTS" in detail and "every check" not in refused.text


@pytest.mark.parametrize(("method", "path"), [("POST", "/threads/search"), ("POST", "/runs/wait"),
                                              ("DELETE", "/threads/t1"), ("PATCH", "/threads/t1"),
                                              ("PUT", "/store/items"), ("GET", "/threads/t1/state")])
def test_a_cross_site_page_can_neither_write_nor_read(server, method, path):
    body = {"assistant_id": "claimhop", "input": {"claim": CLAIM}} if method != "GET" else None
    refused = server.request(method, path, json=body, headers={"Origin": EVIL})
    assert refused.status_code == 403
    assert "'http://evil.example'" in refused.json()["detail"] and "CLAIMHOP_ALLOWED_ORIGINS" in refused.json()["detail"]
    assert "access-control-allow-origin" not in refused.headers and "every check" not in refused.text


def test_cors_answers_only_the_pages_the_server_serves(server):
    ask = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}
    evil = server.options("/threads/search", headers={"Origin": EVIL, **ask})
    assert evil.status_code == 403 and "access-control-allow-origin" not in evil.headers
    for origin in ("http://127.0.0.1:3000", "http://localhost:3000", SERVER):  # agent-chat-ui, the chat page
        allowed = server.options("/threads/search", headers={"Origin": origin, **ask})
        assert allowed.status_code == 200 and allowed.headers["access-control-allow-origin"] in {"*", origin}
        answered = server.post("/threads/search", json={}, headers={"Origin": origin})
        assert answered.status_code == 200 and answered.json()["threads"] == ["every check"]


def test_clients_without_an_origin_and_the_chat_page_still_work(server):
    assert server.get("/ok").status_code == 200  # curl, the SDK, MCP clients send no Origin
    assert server.post("/assistants/search", json={}).status_code == 200
    assert server.get("/ui/", headers={"Host": "localhost:2024"}).status_code == 200
    same_origin = server.post("/threads/search", json={}, headers={"Origin": SERVER})
    assert same_origin.status_code == 200


def test_the_door_comes_before_the_key_and_a_keyed_server_answers_any_name(server, monkeypatch):
    monkeypatch.setenv("CLAIMHOP_SERVER_KEY", "k3y")
    assert server.post("/threads/search", json={}, headers={"Origin": EVIL, "X-Api-Key": "k3y"}).status_code == 403
    named = {"Host": "claimhop.example:2024"}
    assert server.post("/threads/search", json={}, headers=named).status_code == 401  # the key decides
    assert server.post("/threads/search", json={}, headers={**named, "X-Api-Key": "k3y"}).status_code == 200
    monkeypatch.setenv("CLAIMHOP_ALLOWED_HOSTS", "claimhop.lan")  # the operator lists the names
    assert server.post("/threads/search", json={}, headers={**named, "X-Api-Key": "k3y"}).status_code == 403


def test_the_servers_own_refusals_can_be_read_by_the_pages_it_serves(server):
    refused = server.post("/runs/wait", json={"input": {"claim": "  "}}, headers={"Origin": "http://127.0.0.1:3000"})
    assert refused.status_code == 422 and refused.headers["access-control-allow-origin"] == "http://127.0.0.1:3000"


def test_langgraphs_own_in_process_requests_pass_the_door(server):
    from starlette.testclient import TestClient

    inside = TestClient(server.app, base_url="http://api", root_path="/noauth")  # the SDK's loopback transport
    assert inside.post("/noauth/threads/search", json={}).status_code == 200


def test_the_mcp_packages_loopback_check_gives_way_when_the_operator_widens_the_lists(monkeypatch):
    pytest.importorskip("mcp")
    from claimhop.server.mcp_tool import transport_security

    for name in DOOR_ENV:
        monkeypatch.delenv(name, raising=False)
    assert transport_security() is None  # loopback only: the package's default, the same as the middleware's
    monkeypatch.setenv("CLAIMHOP_ALLOWED_HOSTS", "claimhop.lan")
    assert transport_security().enable_dns_rebinding_protection is False


# --- deep JSON -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("path", "body"), [
    ("/runs/wait", b"[" * 600 + b"]" * 600),  # /runs/batch's list shape: the check walked it and overflowed
    ("/runs/batch", b"[" * 600 + b"]" * 600),
    ("/threads/t1/runs/wait", b'{"input": {"claim": "x"}, "metadata": ' + b'{"a": ' * 600 + b"1" + b"}" * 601),
    ("/store/items", b'{"namespace": ["a"], "key": "k", "value": ' + b"[" * 600 + b"]" * 600 + b"}"),
    ("/runs/wait", b"[" * 200_000),
])
def test_a_body_nested_600_deep_is_a_422_naming_the_problem(server, path, body):
    method = "PUT" if path == "/store/items" else "POST"
    refused = server.request(method, path, content=body, headers={"Content-Type": "application/json"})
    assert refused.status_code == 422
    assert refused.json()["detail"] == ("the request body is nested too deeply: more than 64 levels of objects "
                                        "and lists")


def test_an_ordinary_chat_body_is_not_too_deep(server):
    body = {"assistant_id": "claimhop", "input": {"messages": [{"role": "human", "content": [
        {"type": "text", "text": CLAIM}]}]}, "metadata": {"a": {"b": {"c": [[[1]]]}}}}
    assert server.post("/threads/t1/runs/stream", json=body).status_code == 200
