"""The one door in front of every route of the server (langgraph.json's `http.app` middleware, which LangGraph
puts outside its own routes, meta routes included), in this order, so a client learns nothing before it shows the
key:

0. where the server listens (claimhop.server.exposure): a server listening beyond loopback without a key answers
   503 naming the address and CLAIMHOP_SERVER_KEY (the watcher started with the app stops such a server as soon as
   it listens; this covers the moment in between); then the names and pages the server answers
   (claimhop.server.origins): a Host header that is not one of the server's names (a DNS-rebinding page) or an
   Origin header of a web page it does not serve gets 403, on every route and method, before the key and before
   LangGraph's own CORS middleware sees the request;
1. the key (CLAIMHOP_SERVER_KEY, when set): every request but liveness (`GET /ok`), the chat page's static files
   (`GET /ui`, `/ui/...`) and CORS preflights (which carry no data and get none) needs it, or gets 401;
2. the write allow-list: a POST, PUT, PATCH or DELETE to a route claimhop does not serve writes on gets 403
   (langgraph dev's own `/internal/truncate`, which empties every thread, and `/deploy` among them);
3. the size limit: a body over MAX_BODY_BYTES gets 413, unread when it says its length up front;
4. the body check (claimhop.server.bodies): a body nested more than MAX_JSON_DEPTH objects and lists deep, or a
   run, assistant, thread state or store write a client may not make, gets 422 naming the problem, before any run
   is created.

Requests LangGraph makes to itself in-process (its SDK's loopback transport, root_path `/noauth`, which no
network request can set) skip the names, the pages and the key but not the checks. claimhop's own refusals to a
page it serves from another origin (agent-chat-ui) carry that origin's CORS header, so the page can read them."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Send

from claimhop.server.bodies import Check, write_check
from claimhop.server.exposure import serving_cleared, serving_problem
from claimhop.server.keys import (
    MISSING,
    WRONG,
    expected_key,
    key_matches,
    open_path,
    sent_key,
)
from claimhop.server.origins import allowed_origin, door_problem

MAX_BODY_BYTES = 1_000_000  # a run body is a claim of at most 2,000 characters and a few settings
MAX_JSON_DEPTH = 64  # a run body is about 6 deep (input.messages[0].content[0].text); LangGraph's parser stops at 1024
TOO_DEEP = f"the request body is nested too deeply: more than {MAX_JSON_DEPTH} levels of objects and lists"
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
Scope = dict[str, Any]


def route_path(scope: Scope) -> str:
    """The path the routes see (LangGraph's loopback client sends it under root_path)."""
    path, root = scope.get("path", ""), scope.get("root_path", "")
    if root and path.startswith(root + "/"):
        path = path[len(root):]
    return path or "/"


def from_inside(scope: Scope) -> bool:
    """A request LangGraph's SDK made in-process (the MCP tool's run): root_path cannot be set over the network."""
    root = scope.get("root_path", "")
    return root == "/noauth" or root.startswith("/noauth/")


def needs_no_key(scope: Scope) -> bool:
    """Liveness, the chat page's files and CORS preflights: no data goes either way."""
    method = scope.get("method", "GET")
    headers = {name.lower() for name, _ in scope.get("headers", [])}
    if method == "OPTIONS" and {b"origin", b"access-control-request-method"} <= headers:
        return True
    return scope["type"] == "http" and method in {"GET", "HEAD"} and open_path(route_path(scope))


def key_refusal(scope: Scope) -> str | None:
    """Why this request may not in (no key, wrong key), or None."""
    expected = expected_key()
    if not expected or from_inside(scope) or needs_no_key(scope):
        return None
    given = sent_key(scope.get("headers", []))
    if not given:
        return MISSING
    return None if key_matches(given, expected) else WRONG


def declared_length(scope: Scope) -> int | None:
    """The body length a request announces, or None."""
    for name, value in scope.get("headers", []):
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def read_body(receive: Receive, limit: int) -> bytes | None:
    """The whole body, or None as soon as it passes `limit` bytes."""
    chunks, size, more = [], 0, True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        more = message.get("more_body", False)
    return b"".join(chunks)


def nested_deeper(value: Any, limit: int) -> bool:
    """True when objects and lists nest more than `limit` levels deep (counted without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def body_problem(check: Check, raw: bytes) -> str | None:
    """The check's verdict on a JSON body; a body that is not JSON is left to the server's own answer. A body
    nested deeper than any request needs is refused before a check walks it (the checks recurse, as does
    LangGraph's serialiser)."""
    try:
        body = json.loads(raw or b"{}")
    except (ValueError, UnicodeDecodeError):
        return None
    except RecursionError:
        return TOO_DEEP
    if isinstance(body, (dict, list)) and nested_deeper(body, MAX_JSON_DEPTH):
        return TOO_DEEP
    try:
        return check(body)
    except RecursionError:
        return TOO_DEEP


def replayed(raw: bytes, receive: Receive) -> Receive:
    """A `receive` that hands the app the body already read, then whatever the connection says next."""
    sent = False

    async def replay():
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": raw, "more_body": False}
        return await receive()

    return replay


async def refuse(scope: Scope, receive: Receive, send: Send, status: int, detail: str, cors: bool = True) -> None:
    """Answer with the status and a one-line detail (a websocket is closed with policy violation). A page of an
    origin the server answers gets the CORS header with it, so it can read why (never a refused origin)."""
    if scope["type"] == "websocket":
        await send({"type": "websocket.close", "code": 1008, "reason": detail[:120]})
        return
    origin = allowed_origin(scope.get("headers", [])) if cors else None
    headers = {"Access-Control-Allow-Origin": origin, "Vary": "Origin"} if origin else None
    await JSONResponse({"detail": detail}, status_code=status, headers=headers)(scope, receive, send)


def door_refusal(scope: Scope) -> str | None:
    """Why the server does not answer this request's Host or Origin, or None (LangGraph's own requests pass)."""
    return None if from_inside(scope) else door_problem(scope.get("headers", []))


class Guard:
    """Pure ASGI middleware: where the server listens, the Host and Origin, the key, the write allow-list, the size limit and the body check,
    in that order."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in {"http", "websocket"}:
            return await self.app(scope, receive, send)
        # psutil reads /proc: a blocking call, kept off the event loop (langgraph dev refuses blocking calls in it)
        exposed = None if serving_cleared() else await asyncio.to_thread(serving_problem)
        if exposed:
            return await refuse(scope, receive, send, 503, exposed, cors=False)
        refusal = door_refusal(scope)
        if refusal:
            return await refuse(scope, receive, send, 403, refusal, cors=False)
        refusal = key_refusal(scope)
        if refusal:
            return await refuse(scope, receive, send, 401, refusal)
        if scope["type"] == "websocket" or scope["method"] in READ_METHODS:
            return await self.app(scope, receive, send)
        path = route_path(scope)
        check = write_check(scope["method"], path)
        if check is None:
            return await refuse(scope, receive, send, 403, f"this server takes no {scope['method']} at {path}")
        if (declared_length(scope) or 0) > MAX_BODY_BYTES:
            return await refuse(scope, receive, send, 413, f"the request body is over {MAX_BODY_BYTES:,} bytes")
        raw = await read_body(receive, MAX_BODY_BYTES)
        if raw is None:
            return await refuse(scope, receive, send, 413, f"the request body is over {MAX_BODY_BYTES:,} bytes")
        reason = body_problem(check, raw)
        if reason:
            return await refuse(scope, receive, send, 422, reason)
        return await self.app(scope, replayed(raw, receive), send)
