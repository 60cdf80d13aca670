"""Which names and which web pages the server answers (the first check of claimhop.server.guard, before the key).

A server on 127.0.0.1 is still reachable from every web page the user opens: the page's JavaScript can send
requests to http://127.0.0.1:2024 (LangGraph's default CORS answers every origin, and `langgraph dev` allows
private-network requests), and a page whose own name the attacker points at 127.0.0.1 (DNS rebinding) is
same-origin with it, so CORS never applies. As Jupyter and Ollama do, two headers decide:

- Host: a browser always sends the name it resolved. A server without CLAIMHOP_SERVER_KEY answers only its
  loopback names (127.0.0.1 and the rest of 127.0.0.0/8, localhost, [::1], any port) and the names in
  CLAIMHOP_ALLOWED_HOSTS, so a rebinding page (Host: evil.example) is refused. With a key the server may be reached
  by any name (behind a proxy, on a LAN; a page cannot read the key), unless CLAIMHOP_ALLOWED_HOSTS is set, which
  then lists the names beside loopback.
- Origin: a browser sends it with every cross-origin request and every write. A request carrying one is answered
  only for this server's own pages (Origin's host and port are the request's Host), pages served from this
  machine (http://127.0.0.1:*, http://localhost:*, http://[::1]:*: the chat page, agent-chat-ui on :3000, as
  Ollama's default allows) and the origins in CLAIMHOP_ALLOWED_ORIGINS; any other (a web site, `null` from a
  sandboxed frame or a file) gets 403, whatever the method, so it gets no CORS answer either: LangGraph's own CORS
  middleware sits behind this check and sees only allowed origins.

A request without an Origin header is not a browser's cross-site request (curl, the SDK, MCP clients): it
passes, as in the `mcp` package's check. Requests LangGraph makes to itself in-process skip both checks
(claimhop.server.guard.from_inside)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

from claimhop.server.exposure import is_loopback
from claimhop.server.keys import KEY_ENV, header_bytes

HOSTS_ENV = "CLAIMHOP_ALLOWED_HOSTS"
ORIGINS_ENV = "CLAIMHOP_ALLOWED_ORIGINS"
DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def listed(env: Mapping[str, str], name: str) -> list[str]:
    """A comma-separated variable's entries, stripped and lowercased, empty ones dropped."""
    return [entry.strip().lower().rstrip("/") for entry in env.get(name, "").split(",") if entry.strip()]


def split_host(host: str) -> tuple[str, int | None] | None:
    """(name, port) of a Host header or a host entry ("name", "name:port", "[::1]:2024"); None when malformed."""
    try:
        parts = urlsplit("//" + host.strip())
        name, port = parts.hostname, parts.port
    except ValueError:
        return None
    if not name or parts.path or parts.query or parts.fragment or parts.username is not None:
        return None
    return name.rstrip("."), port


def host_allowed(host: str | None, env: Mapping[str, str] | None = None, keyed: bool | None = None) -> bool:
    """True when the server may answer a request sent to this Host header."""
    env = os.environ if env is None else env
    keyed = bool(env.get(KEY_ENV, "").strip()) if keyed is None else keyed
    if host is None:  # no Host header (HTTP/1.0): not a browser, which always sends one
        return True
    entries = listed(env, HOSTS_ENV)
    if "*" in entries or (keyed and not entries):
        return True
    parsed = split_host(host)
    if parsed is None:
        return False
    name, port = parsed
    if is_loopback(name):
        return True
    for entry in entries:
        allowed = split_host(entry)
        if allowed and allowed[0] == name and allowed[1] in (None, port):
            return True
    return False


def split_origin(origin: str) -> tuple[str, str, int | None] | None:
    """(scheme, name, port) of an origin or an origin entry; port None for an entry ending in ":*" (any port)."""
    origin = origin.strip().lower().rstrip("/")
    any_port = origin.endswith(":*")
    try:
        parts = urlsplit(origin[:-2] if any_port else origin)
        scheme, name, port = parts.scheme, (parts.hostname or "").rstrip("."), parts.port
    except ValueError:
        return None
    if scheme not in DEFAULT_PORTS or not name or parts.path or parts.query or parts.username is not None:
        return None  # `null` (a sandboxed frame, a file), an extension's scheme, anything malformed
    return scheme, name, None if any_port else (port or DEFAULT_PORTS[scheme])


def origin_allowed(origin: str, host: str | None, env: Mapping[str, str] | None = None) -> bool:
    """True when a page of this origin may use the server (the request being sent to `host`)."""
    env = os.environ if env is None else env
    entries = listed(env, ORIGINS_ENV)
    if "*" in entries:
        return True
    parsed = split_origin(origin)
    if parsed is None or parsed[2] is None:
        return False
    scheme, name, port = parsed
    if is_loopback(name):  # a page served from this machine
        return True
    for entry in entries:
        allowed = split_origin(entry)
        if allowed and allowed[:2] == (scheme, name) and allowed[2] in (None, port):
            return True
    target = split_host(host) if host else None  # this server's own page: the origin is where it was sent
    return bool(target) and target[0] == name and (target[1] or DEFAULT_PORTS[scheme]) == port


def header(headers: Iterable[tuple[bytes | str, bytes | str]], name: bytes) -> str | None:
    """The first header of this name, decoded as it came off the wire (Latin-1), or None."""
    for key, value in headers:
        if header_bytes(key).lower() == name:
            return header_bytes(value).decode("latin-1")
    return None


def shown(value: str) -> str:
    return repr(value[:100])


def door_problem(headers: Iterable[tuple[bytes | str, bytes | str]],
                 env: Mapping[str, str] | None = None) -> str | None:
    """Why a request with these headers is refused (403) before anything else is said, or None."""
    headers = list(headers)
    host = header(headers, b"host")
    if not host_allowed(host, env):
        return (f"this server answers only to its loopback names (127.0.0.1, localhost, [::1]), not Host "
                f"{shown(host or '')}: a web page that points its own name at this machine is refused; an operator "
                f"serving under another name lists it in {HOSTS_ENV}")
    origin = header(headers, b"origin")
    if origin is not None and not origin_allowed(origin, host, env):
        return (f"requests from web pages of {shown(origin)} are refused: this server answers its own pages, pages "
                f"served from this machine (http://127.0.0.1:*, http://localhost:*) and the origins its operator "
                f"lists in {ORIGINS_ENV}")
    return None


def allowed_origin(headers: Iterable[tuple[bytes | str, bytes | str]]) -> str | None:
    """The request's Origin when it is one the server answers (for CORS headers on claimhop's own refusals)."""
    headers = list(headers)
    origin = header(headers, b"origin")
    return origin if origin is not None and origin_allowed(origin, header(headers, b"host")) else None
