"""The no-key rule looks at the socket the server listens on (issue 56): a server listening beyond loopback without
CLAIMHOP_SERVER_KEY is refused in one line naming the address and the variable, whatever its command line or
LANGGRAPH_API_URL say (`gunicorn -b 0.0.0.0:8000`, `UVICORN_HOST=0.0.0.0` name no `--host`); one listening on
loopback starts. Each test opens a real listening socket in this process, as the server's would be."""

from __future__ import annotations

import socket
import threading
import time

import pytest

import claimhop.server.exposure as exposure

REFUSAL = ("claimhop: refusing to serve on 0.0.0.0 without a key: set CLAIMHOP_SERVER_KEY (every request must then "
           "send it), or CLAIMHOP_ALLOW_OPEN=1 if a proxy of your own checks every request")
LOOPBACK_URL = "http://127.0.0.1:2024"  # what a misleading LANGGRAPH_API_URL says


class Exits(list):
    """The exit codes the check asked for (os._exit recorded, not done), and an event set at the first."""

    def __init__(self):
        super().__init__()
        self.stopped = threading.Event()


@pytest.fixture
def exits(monkeypatch):
    """os._exit recorded instead of done; a clean slate for the check's state and environment."""
    codes = Exits()

    def record(code):
        codes.append(code)
        codes.stopped.set()

    monkeypatch.setattr(exposure.os, "_exit", record)
    monkeypatch.setattr(exposure, "_CLEARED", False, raising=False)
    monkeypatch.setattr(exposure, "_WATCHING", threading.Lock(), raising=False)
    done = threading.Event()
    monkeypatch.setattr(exposure, "_STOP", done)
    for name in ("CLAIMHOP_SERVER_KEY", "CLAIMHOP_ALLOW_OPEN", "UVICORN_HOST"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANGGRAPH_API_URL", LOOPBACK_URL)
    yield codes
    done.set()  # this test's watcher ends with it


def listen_on(host: str) -> socket.socket:
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind((host, 0))  # a free port
    server.listen()
    return server


def command_lines(port: int) -> dict[str, tuple[list[str], dict[str, str]]]:
    return {
        "gunicorn -b": (["gunicorn", "-b", f"0.0.0.0:{port}", "-k", "uvicorn.workers.UvicornWorker",
                         "claimhop.server.webapp:app"], {}),
        "UVICORN_HOST": (["uvicorn", "claimhop.server.webapp:app"], {"UVICORN_HOST": "0.0.0.0"}),
    }


@pytest.mark.parametrize("how", ["gunicorn -b", "UVICORN_HOST"])
def test_a_server_listening_on_every_interface_without_a_key_is_refused_whatever_it_says(how, exits, monkeypatch,
                                                                                          capsys):
    server = listen_on("0.0.0.0")
    try:
        argv, env = command_lines(server.getsockname()[1])[how]
        monkeypatch.setattr(exposure.sys, "argv", argv)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        exposure.refuse_open_exposure()
        assert exits == [2]
        assert capsys.readouterr().err.strip().splitlines() == [REFUSAL]
        monkeypatch.setenv("CLAIMHOP_SERVER_KEY", "k3y")  # with a key it may
        exposure.refuse_open_exposure()
        assert exits == [2]
    finally:
        server.close()


def test_a_server_listening_on_loopback_starts(exits, monkeypatch, capsys):
    server = listen_on("127.0.0.1")
    try:
        monkeypatch.setattr(exposure.sys, "argv", ["gunicorn", "-b", f"127.0.0.1:{server.getsockname()[1]}", "app"])
        exposure.refuse_open_exposure()
        assert exits == [] and capsys.readouterr().err == ""
    finally:
        server.close()


def load_as_uvicorn_on_every_interface(exits, monkeypatch) -> None:
    """The app loaded by `UVICORN_HOST=0.0.0.0 uvicorn ...` before it binds: nothing says a host beyond loopback yet."""
    monkeypatch.setattr(exposure.sys, "argv", ["uvicorn", "claimhop.server.webapp:app"])
    monkeypatch.setenv("UVICORN_HOST", "0.0.0.0")
    exposure.refuse_open_exposure()
    assert exits == []


def assert_stopped_once_it_listens_everywhere(exits, capsys) -> None:
    server = listen_on("0.0.0.0")
    try:
        assert exits.stopped.wait(5), "the server listened on 0.0.0.0 without a key and was not stopped"
        assert exits == [2] and capsys.readouterr().err.strip().splitlines() == [REFUSAL]
    finally:
        server.close()


def test_a_server_that_starts_listening_after_loading_the_app_is_stopped_then(exits, monkeypatch, capsys):
    """uvicorn loads the app (and runs its startup) before it binds: the watcher sees the socket when it listens."""
    load_as_uvicorn_on_every_interface(exits, monkeypatch)
    assert_stopped_once_it_listens_everywhere(exits, capsys)


def test_a_server_binding_after_something_else_listened_on_loopback_is_stopped_then(exits, monkeypatch, capsys):
    """The process may listen on loopback before the server binds (the in-process model's own listener): the
    watcher goes on looking, so the server's later socket on 0.0.0.0 is still seen."""
    other = listen_on("127.0.0.1")
    try:
        load_as_uvicorn_on_every_interface(exits, monkeypatch)
        time.sleep(1.0)  # the watcher has seen the loopback socket by now
        assert_stopped_once_it_listens_everywhere(exits, capsys)
    finally:
        other.close()


def test_no_request_is_answered_while_the_server_listens_beyond_loopback_without_a_key(exits, monkeypatch):
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route
    from starlette.testclient import TestClient

    from claimhop.server.guard import Guard

    inner = Starlette(routes=[Route("/ok", lambda request: PlainTextResponse("ok"))])
    client = TestClient(Guard(inner), base_url=LOOPBACK_URL)
    server = listen_on("0.0.0.0")
    try:
        refused = client.get("/ok", headers={"Host": "127.0.0.1:2024"})
        assert refused.status_code == 503 and refused.json()["detail"] == REFUSAL
    finally:
        server.close()
    time.sleep(0.05)
    loopback = listen_on("127.0.0.1")
    try:
        assert client.get("/ok").status_code == 200
    finally:
        loopback.close()
