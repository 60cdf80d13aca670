"""Secrets stay in the environment, files are never unpickled or evaluated, and corpus and index paths are checked
before anything is read from or written to them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from fakes import fake_lm
from test_graph_routing import answers

import claimhop.cli.main
import claimhop.steps.common
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
    monkeypatch.setattr(claimhop.steps.common, "get_lm", lambda model: lm)
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

    from claimhop.steps.common import settings_of

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
