"""What a server's client may set (issue 56): an empty value (null, or "" for a text setting, what a form's empty
field sends) means the operator's value, never the built-in default the operator replaced; and the settings that
multiply a check's model calls are capped for clients by the operator's limits (CLAIMHOP_CLIENT_LIMITS), refused
by name with the limit, by the middleware (422) and again by the nodes (ValueError)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import claimhop.program.built
import claimhop.program.runtime
from claimhop.program.client_policy import client_settings_problem
from claimhop.program.runtime import settings_of
from claimhop.server.webapp import problem_with
from state.context import Context

CLAIM = "Cherie Currie and Steve Augeri were both American."
OPERATOR = {"CLAIMHOP_RETRIEVER": "postgresql", "CLAIMHOP_PROGRAM_PATH": "/srv/claimhop/program.json",
            "CLAIMHOP_MODEL": "openai/claimhop-local"}


@pytest.fixture
def operator(monkeypatch):
    """A server whose operator chose the engine, the program file and the model; the client policy enforced, as
    in a LangGraph server process."""
    for name, value in OPERATOR.items():
        monkeypatch.setenv(name, value)
    for name in ("CLAIMHOP_MODELS", "CLAIMHOP_CLIENT_LIMITS", "CLAIMHOP_RERANKER", "CLAIMHOP_MAX_ITERATIONS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CLAIMHOP_CLIENT_POLICY", "1")


def run_settings(context):
    """The settings a node runs with, as LangGraph hands them over (a Context it built from the client's mapping)."""
    return settings_of(SimpleNamespace(context=context))


@pytest.mark.parametrize("sent", [{"retriever": ""}, {"program_path": ""}, {"retriever": None, "program_path": None},
                                  {"model": ""}, {"model": None, "retriever": "", "program_path": ""}])
def test_an_empty_value_from_a_client_means_the_operators_value(operator, sent):
    assert problem_with({"assistant_id": "claimhop", "input": {"claim": CLAIM}, "context": sent}) is None
    for given in (sent, Context(**sent)):  # the mapping, and the Context LangGraph builds from it
        ctx = run_settings(given)
        assert ctx.retriever == "postgresql"
        assert ctx.program_path == "/srv/claimhop/program.json"
        assert ctx.model == "openai/claimhop-local"


def test_a_clients_own_choice_is_still_judged(operator):
    assert "retriever" in client_settings_problem({"retriever": "os:getcwd"})
    with pytest.raises(ValueError, match="program_path"):
        run_settings(Context(program_path="/etc/x.json"))
    assert run_settings(Context(max_iterations=1)).max_iterations == 1


@pytest.mark.parametrize(("sent", "setting", "limit"), [
    ({"max_iterations": 5}, "max_iterations", "3"),
    ({"rerank_depth": 100}, "rerank_depth", "20"),
    ({"phase1_k": 200}, "phase1_k", "50"),
    ({"loop_k": 50}, "loop_k", "10"),
    ({"top_k": 100}, "top_k", "50"),
    ({"model_attempts": 5}, "model_attempts", "2"),
    ({"model_timeout_s": 3600}, "model_timeout_s", "300"),
    ({"loop_queries": 5}, "loop_queries", "3"),
    ({"tuning": {"loop_queries": 5}}, "loop_queries", "3"),
])
def test_settings_that_multiply_model_calls_are_capped_for_clients(operator, sent, setting, limit):
    problem = client_settings_problem(sent)
    assert problem.startswith(f"{setting}=") and f"{setting} <= {limit}" in problem
    assert "CLAIMHOP_CLIENT_LIMITS" in problem
    for body in ({"input": {"claim": CLAIM}, "context": sent}, {"input": {"claim": CLAIM},
                                                                 "config": {"configurable": sent}}):
        assert problem_with(body) == problem
    with pytest.raises(ValueError, match=f"{setting} <= {limit}"):
        run_settings(Context(**sent))


def test_the_model_reranker_is_the_operators_to_allow(operator, monkeypatch):
    problem = client_settings_problem({"reranker": "lm"})
    assert "reranker 'lm'" in problem and "CLAIMHOP_CLIENT_LIMITS=reranker=lm" in problem
    with pytest.raises(ValueError, match="reranker 'lm'"):
        run_settings(Context(reranker="lm"))
    monkeypatch.setenv("CLAIMHOP_CLIENT_LIMITS", "reranker=lm, rerank_depth=40, max_iterations=5")
    assert client_settings_problem({"reranker": "lm", "rerank_depth": 40, "max_iterations": 5}) is None
    assert "rerank_depth <= 40" in client_settings_problem({"reranker": "lm", "rerank_depth": 41})


def test_values_within_the_limits_and_the_operators_own_values_pass(operator, monkeypatch):
    assert client_settings_problem({"max_iterations": 3, "rerank_depth": 20, "top_k": 21, "model_attempts": 1}) is None
    assert client_settings_problem({"max_iterations": 0, "phase1_k": 1}) is None
    monkeypatch.setenv("CLAIMHOP_MAX_ITERATIONS", "5")  # the operator's own runs do 5 rounds: a client may ask for 5
    monkeypatch.setenv("CLAIMHOP_RERANKER", "lm")
    assert client_settings_problem({"max_iterations": 5, "reranker": "lm"}) is None
    assert run_settings(Context()).max_iterations == 5


def test_a_misconfigured_limit_is_named(operator, monkeypatch):
    monkeypatch.setenv("CLAIMHOP_CLIENT_LIMITS", "max_iteration=5")
    assert "CLAIMHOP_CLIENT_LIMITS: 'max_iteration' is not a setting it limits" in client_settings_problem(
        {"max_iterations": 1})
    monkeypatch.setenv("CLAIMHOP_CLIENT_LIMITS", "top_k=many")
    assert "top_k='many' is not a number" in client_settings_problem({"top_k": 1})


def test_the_graph_refuses_a_capped_setting_before_any_step_searches_or_calls_a_model(operator, monkeypatch):
    """Through LangGraph itself (which turns the dict into a Context), as a server's worker runs it."""
    from graph.builder import graph

    monkeypatch.delenv("CLAIMHOP_RETRIEVER")  # the run must get as far as its first settings read
    monkeypatch.setattr(claimhop.program.runtime, "get_lm", lambda model: pytest.fail(f"a model was loaded: {model}"))
    monkeypatch.setattr(claimhop.program.built, "search_engine", lambda *a, **k: pytest.fail("the corpus was searched"))
    for context in ({"max_iterations": 5}, {"reranker": "lm"}, {"rerank_depth": 100}):
        with pytest.raises(ValueError, match="limit for clients"):
            graph.invoke({"claim": CLAIM}, context=context)
