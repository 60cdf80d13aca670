"""What `langgraph dev` serves besides the graph (langgraph.json `http.app`): the chat page at /ui, a health
report at /claimhop/health, and a middleware that refuses a run whose claim or settings are bad with 422 naming
the problem, before a run is created."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.responses import JSONResponse, RedirectResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from retrieval.corpus import BUNDLED_CORPUS, CorpusError, checked_corpus_path
from server.health import health
from state.context import Context
from state.validation import message_text, validate_claim

FRONTEND = Path(__file__).resolve().parent.parent / "frontend"
RUN_PATHS = re.compile(r"^/(threads/[^/]+/)?runs(/stream|/wait)?$")


def readable_corpus_dirs() -> list[Path]:
    """Folders a client of the server may name a corpus in: the bundled data and CLAIMHOP_CORPUS_DIRS (os.pathsep)."""
    extra = [Path(p).expanduser() for p in os.environ.get("CLAIMHOP_CORPUS_DIRS", "").split(os.pathsep) if p.strip()]
    return [BUNDLED_CORPUS.parent, *extra]


def corpus_problem(corpus_path: str) -> str | None:
    """A server reads only corpora its operator allowed: a client must not make it open any file it can name."""
    if not corpus_path:
        return None
    path = Path(corpus_path).expanduser().resolve()
    if not any(path.is_relative_to(folder.resolve()) for folder in readable_corpus_dirs()):
        return (f"corpus_path {corpus_path} is outside the folders this server reads corpora from; "
                "its operator can allow a folder with CLAIMHOP_CORPUS_DIRS")
    try:
        checked_corpus_path(path)
    except CorpusError as err:
        return str(err)
    return None


def index_dir_problem(index_dir: str) -> str | None:
    """Building an index writes files: a client may only point the server at an index inside an allowed folder."""
    if index_dir and not any(Path(index_dir).expanduser().resolve().is_relative_to(folder.resolve())
                             for folder in readable_corpus_dirs()[1:]):
        return (f"index_dir {index_dir} is outside the folders this server may use; "
                "its operator can allow a folder with CLAIMHOP_CORPUS_DIRS")
    return None


def problem_with(body: dict[str, Any]) -> str | None:
    """The reason a run request cannot succeed, or None. Only the claimhop input shape is checked."""
    payload = body.get("input")
    if payload is None:  # resuming or continuing a thread without new input
        return None
    if not isinstance(payload, dict):
        return "input must be an object with 'claim' or 'messages'"
    try:
        if "context" in body and body["context"] is not None:
            Context.from_any(body["context"])
            client = body["context"]  # the client's paths, not the operator's environment
            if client.get("retriever"):
                return "the retriever engine is chosen by the server's operator (CLAIMHOP_RETRIEVER), not per run"
            problem = corpus_problem(str(client.get("corpus_path") or "")) or index_dir_problem(str(client.get("index_dir") or ""))
            if problem:
                return problem
        if payload.get("claim") not in (None, ""):
            validate_claim(payload["claim"])
        elif payload.get("messages"):
            if not isinstance(payload["messages"], list):
                return "input.messages must be a list of messages"
            human = [m for m in payload["messages"] if isinstance(m, dict) and m.get("role", m.get("type")) in {"human", "user"}]
            if human:
                validate_claim(message_text(human[-1].get("content")))
        else:
            validate_claim(payload.get("claim", ""))
    except ValueError as err:
        return str(err)
    return None


class ValidateRuns:
    """Pure ASGI middleware: reads a run request's JSON body, checks it, then replays it to the server."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "POST" or not RUN_PATHS.match(scope["path"]):
            return await self.app(scope, receive, send)
        chunks, more = [], True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        raw = b"".join(chunks)
        try:
            body = json.loads(raw or b"{}")
            reason = problem_with(body) if isinstance(body, dict) else None
        except json.JSONDecodeError:
            reason = None  # not ours to judge: the server answers malformed JSON itself
        if reason:
            return await JSONResponse({"detail": reason}, status_code=422)(scope, receive, send)
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": raw, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send)


async def to_ui(request):
    return RedirectResponse("/ui/")


app = Starlette(routes=[
    Route("/claimhop/health", health),
    Route("/ui", to_ui),
    Mount("/ui/", StaticFiles(directory=FRONTEND, html=True), name="ui"),
])
app.add_middleware(ValidateRuns)
