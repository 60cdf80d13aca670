"""Secrets stay in the environment, files are never unpickled or evaluated, and corpus and index paths are checked
before anything is read from or written to them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from fakes import fake_lm
from test_graph_routing import answers

import claimhop.cli.main
import claimhop.program.runtime
from claimhop.cache_root import cache_root
from claimhop.retrieval.corpus import CorpusError, load_corpus
from claimhop.retrieval.index_store import IndexFolderError, build_indexes
from claimhop.server.webapp import problem_with
from state.context import Context

ROOT = Path(__file__).resolve().parents[2]
SECRET = "sk-claimhop-test-0123456789abcdef"
CLAIM = "Cherie Currie and Steve Augeri were both American."


def test_a_key_given_as_a_setting_is_refused_without_repeating_it(capsys):
    with pytest.raises(ValueError, match="set them in the environment") as err:
        Context.from_any({"openai_api_key": SECRET})
    assert SECRET not in str(err.value)
    assert claimhop.cli.main.main(["check", CLAIM, "--set", f"api_key={SECRET}"]) == 2
    assert SECRET not in capsys.readouterr().err
    reason = problem_with({"input": {"claim": CLAIM}, "context": {"api_token": SECRET}})
    assert reason and SECRET not in reason


def test_keys_in_the_environment_never_reach_checkpoints_logs_or_output(tmp_path, monkeypatch, small_corpus,
                                                                        capsys, caplog):
    home = tmp_path / "home"
    monkeypatch.setenv("CLAIMHOP_HOME", str(home))
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "LANGSMITH_API_KEY"):
        monkeypatch.setenv(name, SECRET)
    monkeypatch.setattr(claimhop.cli.main, "stop_at_once_on_ctrl_c", lambda: None)
    lm, _ = fake_lm(answers())
    monkeypatch.setattr(claimhop.program.runtime, "get_lm", lambda model: lm)
    caplog.set_level("DEBUG")
    code = claimhop.cli.main.main(["check", CLAIM, "--model", "openai/gpt-4o-mini", "--corpus", str(small_corpus),
                          "--set", "max_iterations=1", "--set", "use_optimized_program=false", "--set", "verifier=single", "--json"])
    assert code == 0
    out = capsys.readouterr()
    assert SECRET not in out.out + out.err + caplog.text
    stored = [p for p in home.rglob("*") if p.is_file()]
    assert any(p.name.startswith("checkpoints.sqlite") for p in stored)
    for path in stored:
        assert SECRET.encode() not in path.read_bytes(), f"secret stored in {path}"


UNSAFE_CALLS = {"eval", "exec", "compile", "__import__"}
UNSAFE_MODULES = {"pickle", "cloudpickle", "dill", "joblib", "marshal", "shelve"}


def project_sources() -> list[Path]:
    skip = {".venv", "tests", "build", ".git"}
    return [p for p in ROOT.rglob("*.py") if not skip & set(p.relative_to(ROOT).parts)]


def test_no_file_is_ever_unpickled_or_evaluated():
    found = []
    for path in project_sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in UNSAFE_CALLS:
                found.append(f"{path.name}:{node.lineno} {node.func.id}()")
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] + ([node.module] if isinstance(node, ast.ImportFrom) else [])
                found += [f"{path.name}:{node.lineno} import {n}" for n in names if n and n.split(".")[0] in UNSAFE_MODULES]
            if isinstance(node, ast.keyword) and node.arg == "allow_pickle":
                found.append(f"{path.name}:{node.lineno} allow_pickle")
    assert len(project_sources()) > 30 and found == []


@pytest.mark.parametrize(("make", "message"), [
    (lambda tmp: Path("/dev/zero"), "not a regular file"),
    (lambda tmp: tmp, "not a regular file"),
    (lambda tmp: (tmp / "notes.txt").write_text('{"title": "a", "text": "b"}') and tmp / "notes.txt", "must end in"),
    (lambda tmp: tmp / "missing.jsonl", "not found"),
])
def test_a_corpus_path_must_name_a_jsonl_file(tmp_path, make, message):
    with pytest.raises(CorpusError, match=message):
        load_corpus(make(tmp_path))


def test_a_server_client_may_only_name_corpora_in_allowed_folders(tmp_path, monkeypatch, small_corpus):
    monkeypatch.delenv("CLAIMHOP_CORPUS_DIRS", raising=False)
    body = {"input": {"claim": CLAIM}, "context": {"corpus_path": str(small_corpus)}}
    assert "outside the folders" in problem_with(body)
    assert "outside the folders" in problem_with({**body, "context": {"corpus_path": "/etc/passwd"}})
    monkeypatch.setenv("CLAIMHOP_CORPUS_DIRS", str(small_corpus.parent))
    assert problem_with(body) is None
    sneaky = str(small_corpus.parent / ".." / ".." / "etc" / "passwd")
    assert "outside the folders" in problem_with({**body, "context": {"corpus_path": sneaky}})


def test_client_settings_are_checked_however_they_are_sent(monkeypatch, small_corpus):
    monkeypatch.delenv("CLAIMHOP_CORPUS_DIRS", raising=False)
    bad = {"retriever": "os:abort"}
    assert "operator" in problem_with({"input": {"claim": CLAIM}, "config": {"configurable": bad}})
    assert "operator" in problem_with({"input": None, "context": bad})  # a resume without input too
    assert "outside the folders" in problem_with({"config": {"configurable": {"corpus_path": str(small_corpus)}}})


@pytest.mark.parametrize("name", ["api_base", "base_url", "OPENAI_API_BASE", "model_endpoint"])
def test_a_client_can_never_choose_where_the_model_is_reached(name):
    """The operator's key must not go to an address a client names: the address comes from the environment."""
    for body in ({"input": {"claim": CLAIM}, "context": {name: "http://203.0.113.9/v1"}},
                 {"input": {"claim": CLAIM}, "config": {"configurable": {name: "http://203.0.113.9/v1"}}}):
        assert "server's environment" in problem_with(body)


def test_nodes_refuse_forbidden_client_settings_in_a_server_process(monkeypatch):
    from types import SimpleNamespace

    from claimhop.program.runtime import settings_of

    monkeypatch.setenv("CLAIMHOP_CLIENT_POLICY", "1")
    with pytest.raises(ValueError, match="operator"):
        settings_of(SimpleNamespace(context={"retriever": "os:abort"}))
    with pytest.raises(ValueError, match="outside the folders"):
        settings_of(SimpleNamespace(context={"index_dir": "/etc"}))
    assert settings_of(SimpleNamespace(context={"max_iterations": 1})).max_iterations == 1
    monkeypatch.delenv("CLAIMHOP_CLIENT_POLICY")
    assert settings_of(SimpleNamespace(context={"index_dir": "/tmp/x"})).index_dir == "/tmp/x"  # CLI, Python


def test_an_index_is_never_built_into_a_folder_of_other_files(tmp_path, small_corpus):
    corpus = load_corpus(small_corpus)
    folder = tmp_path / "my-documents"
    folder.mkdir()
    (folder / "thesis.tex").write_text("years of work")
    (folder / "bm25").mkdir()
    with pytest.raises(IndexFolderError, match="thesis.tex"):
        build_indexes(corpus, folder)
    assert (folder / "thesis.tex").read_text() == "years of work" and (folder / "bm25").is_dir()
    only_a_shards_folder = tmp_path / "data"
    (only_a_shards_folder / "shards").mkdir(parents=True)
    (only_a_shards_folder / "shards" / "mine.txt").write_text("keep")
    with pytest.raises(IndexFolderError):
        build_indexes(corpus, only_a_shards_folder, rebuild=True)
    assert (only_a_shards_folder / "shards" / "mine.txt").read_text() == "keep"
    fresh = build_indexes(corpus, tmp_path / "new-index")
    assert fresh.manifest["count"] == len(corpus)
    assert build_indexes(corpus, tmp_path / "new-index").manifest["count"] == len(corpus)  # its own folder: rebuilt


def test_claimhop_home_must_be_a_usable_folder(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    monkeypatch.setenv("CLAIMHOP_HOME", str(blocker))
    with pytest.raises(ValueError, match="CLAIMHOP_HOME"):
        cache_root()


# --- a server's client chooses nothing that leaves the server (issue 42) ---------------------------------------

LEAVING_MODELS = ["huggingface/https://evil.example/v1", "anthropic/claude-3-5-sonnet", "oobabooga/http://10.0.0.5/x",
                  "openai/gpt-4o", " local", "LOCAL", "local\n", 5, ["local"]]  # None, "": the server's own (issue 56)


@pytest.mark.parametrize("model", LEAVING_MODELS)
def test_a_client_may_pick_no_model_but_the_servers_own(monkeypatch, model):
    from claimhop.program.client_policy import client_settings_problem

    monkeypatch.delenv("CLAIMHOP_MODELS", raising=False)
    monkeypatch.delenv("CLAIMHOP_MODEL", raising=False)
    problem = client_settings_problem({"model": model})
    assert problem and "CLAIMHOP_MODELS" in problem and "\n" not in problem
    assert problem_with({"input": {"claim": CLAIM}, "config": {"configurable": {"model": model}}}) == problem
    assert client_settings_problem({"model": "local"}) is None


def test_the_operator_lists_the_models_a_client_may_pick(monkeypatch):
    from claimhop.program.client_policy import allowed_models, client_settings_problem

    monkeypatch.setenv("CLAIMHOP_MODEL", "openai/claimhop-local")
    monkeypatch.setenv("CLAIMHOP_MODELS", " openai/a ,, openai/b")
    assert allowed_models() == ["openai/claimhop-local", "openai/a", "openai/b"]
    assert client_settings_problem({"model": "openai/b"}) is None
    assert client_settings_problem({"model": "openai/claimhop-local"}) is None  # the server's own
    assert "openai/claimhop-local, openai/a, openai/b" in client_settings_problem({"model": "local"})


@pytest.mark.parametrize(("settings", "says"), [
    ({"program_path": "/etc/claimhop/evil.json"}, "program_path"),
    ({"program_path": str(ROOT / "claimhop" / "data" / "x.json")}, "program_path"),
    ({"retriever": "postgresql"}, "retriever"),
    ({"reranker": "os:getcwd"}, "re-ranker"),
    ({"api_base": "http://203.0.113.9"}, "server's environment"),
    ({"HUGGINGFACE_API_KEY": "x"}, "server's environment"),
    ({"proxy_password": "x"}, "secrets"),
    ({"thread_id": "t"}, "unknown setting"),
    ({"callbacks": "x"}, "unknown setting"),
    ("model=local", "mapping"),
])
def test_a_setting_naming_a_file_code_an_address_or_a_key_is_refused_by_name(settings, says):
    from claimhop.program.client_policy import client_settings_problem

    assert says in client_settings_problem(settings)


def test_an_empty_operator_setting_chooses_nothing():
    from claimhop.program.client_policy import client_settings_problem

    assert client_settings_problem({"program_path": "", "retriever": None, "max_iterations": 1}) is None


def test_settings_already_made_into_a_context_are_judged_against_the_servers_own(monkeypatch):
    """LangGraph builds the run's Context from a client's dict before any node sees it: the nodes' check must
    see what the client chose in it, while the operator's own CLAIMHOP_* values pass."""
    from claimhop.program.client_policy import client_settings_problem

    monkeypatch.delenv("CLAIMHOP_MODELS", raising=False)
    monkeypatch.delenv("CLAIMHOP_MODEL", raising=False)
    assert "CLAIMHOP_MODELS" in client_settings_problem(Context(model="anthropic/claude"))
    assert "program_path" in client_settings_problem(Context(program_path="/x.json"))
    assert client_settings_problem(Context(max_iterations=1)) is None
    monkeypatch.setenv("CLAIMHOP_PROGRAM_PATH", "/srv/operator.json")
    monkeypatch.setenv("CLAIMHOP_MODEL", "openai/claimhop-local")
    assert client_settings_problem(Context()) is None  # the operator's choices
    assert "program_path" in client_settings_problem(Context(program_path="/x.json"))


def test_the_graph_refuses_a_clients_model_before_any_step_searches_or_calls_a_model(monkeypatch):
    """Through LangGraph itself (which turns the dict into a Context), as a server's worker runs it."""
    from graph.builder import graph

    monkeypatch.setenv("CLAIMHOP_CLIENT_POLICY", "1")
    monkeypatch.delenv("CLAIMHOP_MODELS", raising=False)
    monkeypatch.delenv("CLAIMHOP_MODEL", raising=False)
    monkeypatch.setattr(claimhop.program.runtime, "get_lm", lambda model: pytest.fail(f"a model was loaded: {model}"))
    monkeypatch.setattr(claimhop.program.built, "search_engine", lambda *a, **k: pytest.fail("the corpus was searched"))
    for context in ({"model": "huggingface/https://evil.example/v1"}, {"program_path": "/etc/x.json"}):
        with pytest.raises(ValueError, match="CLAIMHOP_MODELS|program_path"):
            graph.invoke({"claim": CLAIM}, context=context)


@pytest.mark.parametrize(("body", "says"), [
    ({"input": {"claim": CLAIM}, "webhook": "http://10.0.0.5/hook"}, "webhook"),
    ({"input": {"claim": CLAIM}, "langsmith_tracer": {"project_name": "theirs"}}, "traces"),
    ({"input": {"claim": CLAIM}, "callbacks": ["x"]}, "callbacks: not a field"),
    ({"input": {"claim": CLAIM}, "config": {"configurable": {}, "callbacks": 1}}, "callbacks: not a field"),
    ({"command": {"goto": "mitigate"}}, "command.goto"),
    ({"command": {"resume": "yes"}}, "command.resume"),
    ({"command": {"update": {"verdict": "SUPPORTED", "selected": []}}}, "selected, verdict"),
    ({"command": {"update": {"claim": "   "}}}, "claim is empty"),
    ({"command": {"update": {"claim": CLAIM}}, "context": {"model": "anthropic/claude"}}, "CLAIMHOP_MODELS"),
])
def test_a_run_body_may_carry_no_address_no_jump_and_no_state_a_node_writes(body, says):
    assert says in problem_with(body)


def test_a_command_with_a_clients_own_input_and_ordinary_run_fields_pass():
    assert problem_with({"command": {"update": {"claim": CLAIM}}, "stream_mode": ["values"], "webhook": None,
                         "config": {"tags": ["t"], "recursion_limit": 50}}) is None


@pytest.mark.parametrize(("method", "path", "body", "says"), [
    ("POST", "/threads/t1/state", {"values": {"verdict": "SUPPORTED"}, "as_node": "verify"}, "as_node"),
    ("POST", "/threads/t1/state", {"values": {"answer": "forged"}}, "answer"),
    ("POST", "/threads/t1/state", {"values": [{"claim": CLAIM}, {"selected": []}]}, "selected"),
    ("POST", "/threads", {"supersteps": [{"updates": [{"values": {"claim": CLAIM}, "as_node": "intake"}]}]},
     "supersteps"),
    ("PUT", "/store/items", {"namespace": ["a"], "key": "k", "value": {}, "webhook": "http://x"}, "webhook"),
    ("POST", "/assistants", {"graph_id": "claimhop", "context": {"program_path": "/x.json"}}, "program_path"),
    ("PATCH", "/assistants/a1", {"config": {"configurable": {"model": "anthropic/claude"}}}, "CLAIMHOP_MODELS"),
    ("POST", "/runs/batch", [{"input": {"claim": CLAIM}}, {"input": {"claim": CLAIM}, "webhook": "x"}], "webhook"),
    ("POST", "/threads/t1/runs/crons", {"schedule": "* * * * *", "input": {"claim": CLAIM},
                                        "context": {"model": "oobabooga/http://10.0.0.5/x"}}, "CLAIMHOP_MODELS"),
])
def test_every_write_route_is_checked(method, path, body, says):
    from claimhop.server.bodies import write_check

    assert says in write_check(method, path)(body)


def test_a_clients_own_state_input_passes_and_unserved_writes_have_no_route():
    from claimhop.server.bodies import write_check

    assert write_check("POST", "/threads/t1/state")({"values": {"claim": CLAIM}}) is None
    assert write_check("PUT", "/store/items")({"namespace": ["a"], "key": "k", "value": {"x": 1}}) is None
    for method, path in [("POST", "/internal/truncate"), ("POST", "/deploy"), ("POST", "/a2a/claimhop"),
                         ("POST", "/threads/t1/commands"), ("PUT", "/threads/t1/state"), ("POST", "/ok")]:
        assert write_check(method, path) is None, path


# --- the key ------------------------------------------------------------------------------------------------------

def test_keys_are_compared_as_bytes_after_the_same_normalisation():
    from claimhop.server.keys import key_matches, sent_key

    assert key_matches(b"s3cret", " s3cret\n")  # stripped on the expected side ...
    assert key_matches(b" s3cret\t", "s3cret")  # ... and on the sent side alike
    assert key_matches("tëst-кey".encode(), "tëst-кey")  # non-ASCII: UTF-8 on the wire
    assert key_matches(sent_key([(b"x-api-key", "tëst-кey".encode().decode("latin-1"))]), "tëst-кey")  # as Starlette decodes
    assert not key_matches(b"s3cre", "s3cret") and not key_matches(b"S3CRET", "s3cret")
    assert not key_matches(b"", "") and not key_matches(b"   ", "  ")  # no key is never a match
    assert sent_key([(b"Authorization", b"Bearer  k1 ")]) == b"k1"
    assert sent_key([(b"authorization", b"Basic k1")]) == b""
    assert sent_key([(b"X-API-KEY", b"k2"), (b"authorization", b"Bearer k1")]) == b"k2"


def guarded(monkeypatch, key: str | None = "k3y"):
    """claimhop's middleware in front of an app that answers every request with the size of the body it got."""
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route
    from starlette.testclient import TestClient

    from claimhop.server.guard import Guard

    async def echo(request):
        return JSONResponse({"got": len(await request.body())})

    if key is None:
        monkeypatch.delenv("CLAIMHOP_SERVER_KEY", raising=False)
    else:
        monkeypatch.setenv("CLAIMHOP_SERVER_KEY", key)
    inner = Starlette(routes=[Route("/{path:path}", echo, methods=["GET", "POST", "PUT", "PATCH", "DELETE"])])
    return TestClient(Guard(inner), base_url="http://127.0.0.1:2024")  # the server's own name (Host header)


BAD_RUN = {"input": {"claim": CLAIM}, "context": {"corpus_path": "/etc/passwd"}}


def test_the_key_is_checked_before_anything_about_the_request_is_said(monkeypatch):
    client = guarded(monkeypatch)
    refused = client.post("/runs/wait", json=BAD_RUN)
    assert refused.status_code == 401 and "passwd" not in refused.text  # no detailed 422 before the key
    assert client.post("/runs/wait", json=BAD_RUN, headers={"X-Api-Key": "nope"}).status_code == 401
    assert client.post("/runs/wait", content=b"x" * 2_000_000).status_code == 401  # nor a 413
    assert client.post("/internal/truncate").status_code == 401
    shown = client.post("/runs/wait", json=BAD_RUN, headers={"X-Api-Key": "k3y"})
    assert shown.status_code == 422 and "outside the folders" in shown.json()["detail"]
    assert client.post("/internal/truncate", headers={"X-Api-Key": "k3y"}).status_code == 403


@pytest.mark.parametrize("path", ["/", "/info", "/metrics", "/docs", "/openapi.json", "/claimhop/health",
                                  "/threads/t1/state", "/uix", "/okay", "/internal/debug/thread/t1"])
def test_every_route_but_liveness_and_the_page_needs_the_key(monkeypatch, path):
    client = guarded(monkeypatch)
    assert client.get(path).status_code == 401
    assert client.get(path, headers={"Authorization": "Bearer k3y"}).status_code == 200


def test_liveness_the_page_and_cors_preflights_need_no_key(monkeypatch):
    client = guarded(monkeypatch)
    for path in ("/ok", "/ui", "/ui/", "/ui/app.js"):
        assert client.get(path).status_code == 200, path
    assert client.post("/ok").status_code == 401  # only reads of them
    preflight = {"Origin": "http://127.0.0.1:3000", "Access-Control-Request-Method": "POST"}
    assert client.options("/runs/stream", headers=preflight).status_code != 401
    assert client.options("/runs/stream").status_code == 401


def test_langgraphs_own_in_process_requests_need_no_key_but_are_checked(monkeypatch):
    from starlette.testclient import TestClient

    inside = TestClient(guarded(monkeypatch).app, root_path="/noauth")
    assert inside.post("/noauth/runs/wait", json={"input": {"claim": CLAIM}}).status_code == 200
    assert inside.post("/noauth/runs/wait", json=BAD_RUN).status_code == 422


def test_bodies_over_the_limit_are_refused_unread(monkeypatch):
    from claimhop.server.guard import MAX_BODY_BYTES

    client = guarded(monkeypatch, key=None)
    big = b'{"input": {"claim": "' + b"a" * MAX_BODY_BYTES + b'"}}'
    assert client.post("/runs/wait", content=big).status_code == 413
    assert client.post("/mcp", content=big).status_code == 413  # every write route, not only runs

    def chunks():  # no Content-Length: counted while read, and refused once past the limit
        for _ in range(20):
            yield b"a" * 100_000

    assert client.post("/runs/wait", content=chunks()).status_code == 413
    assert client.post("/runs/wait", json={"input": {"claim": CLAIM}}).json()["got"] > 0  # replayed whole


def test_a_deeply_nested_body_is_refused_in_one_line(monkeypatch):
    client = guarded(monkeypatch, key=None)
    refused = client.post("/runs/wait", content=b"[" * 200_000)
    assert refused.status_code == 422 and refused.json()["detail"].startswith("the request body is nested too deeply")


# --- an exposed server is never open by accident -------------------------------------------------------------

@pytest.mark.parametrize(("env", "argv", "exposed"), [
    ({}, ["langgraph", "dev", "--host", "0.0.0.0"], "0.0.0.0"),
    ({}, ["langgraph", "dev", "--host=::"], "::"),
    ({}, ["uvicorn", "app", "--host", "192.168.1.20"], "192.168.1.20"),
    ({"LANGGRAPH_API_URL": "http://0.0.0.0:2024"}, ["python", "-c", "spawned reload worker"], "0.0.0.0"),
    ({"LANGGRAPH_API_URL": "https://abc.trycloudflare.com"}, ["langgraph", "dev", "--tunnel"], "abc.trycloudflare.com"),
    ({"LANGGRAPH_API_URL": "http://127.0.0.1:2024"}, ["langgraph", "dev", "--host", "0.0.0.0"], "0.0.0.0"),
    ({}, ["entrypoint"], "an address this process does not show"),
])
def test_a_server_beyond_loopback_without_a_key_refuses_to_start(env, argv, exposed):
    from claimhop.server.exposure import exposure_problem

    problem = exposure_problem(env, argv, b"")
    assert problem and f"on {exposed} " in problem and "CLAIMHOP_SERVER_KEY" in problem and "\n" not in problem
    assert exposure_problem(env, argv, b"k") is None  # a key: it may
    assert exposure_problem({**env, "CLAIMHOP_ALLOW_OPEN": "1"}, argv, b"") is None  # the operator's own proxy


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "localhost", "::1", "[::1]", "LOCALHOST."])
def test_loopback_needs_no_key(host):
    from claimhop.server.exposure import exposure_problem

    assert exposure_problem({"LANGGRAPH_API_URL": "http://127.0.0.1:2024"}, ["langgraph", "dev", "--host", host],
                            b"") is None


# --- no secret printed ---------------------------------------------------------------------------------------

def test_serve_model_never_prints_its_key(monkeypatch, capsys):
    import sys
    from types import SimpleNamespace

    import claimhop.lm.model_server as model_server

    class Stop:
        def wait(self):
            raise KeyboardInterrupt

    def leave(code):
        raise SystemExit(code)

    monkeypatch.setitem(sys.modules, "xllamacpp", SimpleNamespace(Server=lambda params: object()))
    monkeypatch.setattr(model_server, "gguf_path", lambda spec: "model.gguf")
    monkeypatch.setattr(model_server, "server_params", lambda path, options: SimpleNamespace())
    monkeypatch.setattr(model_server.threading, "Event", Stop)
    monkeypatch.setattr(model_server.signal, "signal", lambda *a: None)
    monkeypatch.setattr(model_server.os, "_exit", leave)
    with pytest.raises(SystemExit):
        model_server.serve_model(8099, api_key=SECRET)
    out = capsys.readouterr()
    assert "OPENAI_API_KEY=<your key>" in out.out and SECRET not in out.out + out.err


@pytest.mark.parametrize("url", [
    f"postgresql://claimhop:{SECRET}@db.example:5432/claimhop",
    f"postgresql://db.example/claimhop?user=claimhop&password={SECRET}&sslmode=require",
    f"postgres://u:{SECRET}@db.example/claimhop?sslpassword={SECRET}",
])
def test_a_database_url_is_shown_without_any_password(url):
    from claimhop.redact import shown_url
    from graph.durable import shown

    for shown_text in (shown_url(url), shown(url)):  # the checkpoint messages print it through graph.durable.shown
        assert SECRET not in shown_text and "db.example" in shown_text
    assert shown_url("/home/me/checkpoints.sqlite") == "/home/me/checkpoints.sqlite"
    assert shown("/home/me/checkpoints.sqlite") == "/home/me/checkpoints.sqlite"


def test_mcp_checks_host_headers_only_on_a_server_without_a_key(monkeypatch):
    """Without a key the server is on loopback and the Host check keeps rebinding web pages out; with one, the
    key does, and the tool must answer whatever name the server is reached by."""
    pytest.importorskip("mcp")
    from claimhop.server.mcp_tool import transport_security

    monkeypatch.delenv("CLAIMHOP_SERVER_KEY", raising=False)
    assert transport_security() is None  # the mcp package's loopback default
    monkeypatch.setenv("CLAIMHOP_SERVER_KEY", "k3y")
    assert transport_security().enable_dns_rebinding_protection is False


# --- errors a server's client sees (issue 56) ---------------------------------------------------------------------

LEAKY_ERROR = ("cannot search postgresql://claimhop:s3cret@db.internal.example:5432/claims: connection to server at "
               "\"db.internal.example\" (10.0.0.5), port 5432 failed: FATAL:  password authentication failed for user "
               "\"ann\" (File \"/home/ann/claimhop/.venv/lib/python3.11/site-packages/psycopg/connection.py\", line "
               "120; index /work/main/indexes/claims)")


def test_a_run_error_reaches_a_server_client_without_paths_hosts_or_user_names(monkeypatch, caplog):
    """What a LangGraph server shows a client of a failed run is the error's type name and its text (its
    serialiser's `{"error": type(exc).__name__, "message": str(exc)}`); the server's log keeps the whole error.
    The step's fault is injected where the first search happens (no model is loaded)."""
    import logging

    import claimhop.program.built
    from graph.builder import graph

    def broken(*args, **kwargs):
        raise ValueError(LEAKY_ERROR)

    monkeypatch.setattr(claimhop.program.built, "search_engine", broken)
    monkeypatch.setattr(claimhop.program.runtime, "get_lm", lambda model: pytest.fail(f"a model was loaded: {model}"))
    monkeypatch.setenv("CLAIMHOP_CLIENT_POLICY", "1")  # as in a LangGraph server process
    with caplog.at_level(logging.ERROR, logger="claimhop"), pytest.raises(ValueError) as raised:
        graph.invoke({"claim": CLAIM})
    shown = {"error": type(raised.value).__name__, "message": str(raised.value)}
    assert shown["error"] == "ValueError"
    for hidden in ("s3cret", "db.internal.example", "10.0.0.5", '"ann"', "/home/", "ann/", "site-packages", ".venv",
                   "/work/", "claimhop:"):
        assert hidden not in shown["message"], f"{hidden!r} reached the client: {shown['message']}"
    assert shown["message"].startswith("cannot search postgresql://***: connection to server at *** (***), port 5432")
    assert ".../connection.py" in shown["message"] and "the server's log has the details" in shown["message"]
    assert LEAKY_ERROR in caplog.text  # the operator reads it whole
    monkeypatch.delenv("CLAIMHOP_CLIENT_POLICY")  # the command line and Python: their user's own machine
    with pytest.raises(ValueError) as raised:
        graph.invoke({"claim": CLAIM})
    assert str(raised.value) == LEAKY_ERROR


def test_a_model_fault_a_server_run_reports_names_no_host_or_path(monkeypatch, small_corpus, caplog):
    """A model step that fails is retried, then falls back, and the run's events, `degraded` and answer say why:
    in a server, without the model server's address or the operator's files (the log has them)."""
    import json
    import logging

    from graph.builder import graph

    fault = "cannot reach http://10.0.0.5:8000/v1 for /home/ann/models/qwen.gguf"
    reply = answers()
    reply["sub_questions"] = ConnectionError(fault)  # every try of the plan step
    lm, _ = fake_lm(reply)
    monkeypatch.setattr(claimhop.program.runtime, "get_lm", lambda model: lm)
    monkeypatch.setenv("CLAIMHOP_CLIENT_POLICY", "1")
    monkeypatch.setenv("CLAIMHOP_CORPUS_DIRS", str(small_corpus.parent))
    context = {"corpus_path": str(small_corpus), "use_optimized_program": False, "verifier": "single",
               "max_iterations": 0, "planner": "two_calls", "model_attempts": 1}
    with caplog.at_level(logging.WARNING, logger="claimhop"):
        chunks = list(graph.stream({"claim": CLAIM}, context=context, stream_mode=["custom", "values"]))
    final = [chunk for mode, chunk in chunks if mode == "values"][-1]
    shown = json.dumps([final["degraded"], final["answer"], [c for mode, c in chunks if mode == "custom"]])
    assert final["degraded"][0].startswith("decompose: ")
    assert "cannot reach http://***:8000/v1 for .../qwen.gguf" in shown
    assert "10.0.0.5" not in shown and "/home/" not in shown and "ann/" not in shown
    assert fault in caplog.text


@pytest.mark.parametrize(("message", "shown"), [
    ("model 'huggingface/https://evil.example/v1' is not offered by this server", None),  # nothing to hide
    ("claim is 2500 characters long; the limit is 2000", None),
    ("no index in ~/.cache/claimhop/indexes/abc", "no index in .../abc"),
    ("host=db.lan user=ann dbname=claims", "host=*** user=*** dbname=***"),
    ('connection to server on socket "/run/postgresql/.s.PGSQL.5432" failed', 'connection to server on socket '
                                                                             '".../.s.PGSQL.5432" failed'),
    ("C:\\Users\\ann\\claimhop\\x.py failed", "...\\x.py failed"),
])
def test_client_messages_keep_what_went_wrong_and_drop_where(message, shown):
    from claimhop.redact import client_message

    assert client_message(message) == (message if shown is None else shown)
