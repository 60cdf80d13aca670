"""`claimhop optimize` end to end with a fake LM on the small corpus: it compiles the program a user runs (the
whole graph), saves one the graph can load, and records how it was made."""

import json

import dspy
import pytest
from fakes import fake_lm
from test_graph_routing import answers

import claimhop.program.runtime
from claimhop.evaluation.optimize import optimize, pool_recall
from claimhop.program import Stages, stages_for
from graph.program import ClaimHopProgram
from state.context import Context

# the graph's other model steps answered, and no real model: the verdict in one call, no gap loop
QUIET = {"verifier": "single", "max_iterations": 0}


def replies(**planning) -> dict:
    return {**planning, **{k: v for k, v in answers().items() if k not in planning}}


@pytest.mark.parametrize("planner, predictor, reply", [
    (None, "plan.facts", {"facts": {"facts": ["Steve Augeri sang for Journey."], "entities": ["Steve Augeri"]}}),
    ("one_call", "plan.one_call", {"sub_questions": {"sub_questions": ["Who sang for Journey?"], "entities": ["Steve Augeri"]}}),
])
def test_the_planning_call_the_planner_makes_is_what_gets_optimised(monkeypatch, small_corpus, tmp_path, planner,
                                                                    predictor, reply):
    where = {"corpus_path": str(small_corpus), "index_dir": str(tmp_path / "idx")}  # the nodes search this corpus
    lm, _ = fake_lm(replies(**reply))
    monkeypatch.setattr(claimhop.program.runtime, "get_lm", lambda model: lm)
    train = [dspy.Example(claim="Who sang for Journey?", supporting_titles=["Steve Augeri"], uid="a").with_inputs("claim")]
    out = tmp_path / "program.json"
    settings = {"phase1_k": 3, "phase2_k": 3, **QUIET, **where, **({"planner": planner} if planner else {})}
    manifest = optimize(lm, Context(**settings), train, out, max_demos=2, program=ClaimHopProgram)
    assert manifest["optimized_steps"] == [predictor] and manifest["demos"][predictor] == 1
    assert sum(manifest["demos"].values()) == 1  # no demo on a step the metric does not judge
    loaded = stages_for(Context(**settings, program_path=str(out)))
    assert len(dict(loaded.named_predictors())[predictor].demos) == 1


def test_compiles_saves_and_loads(monkeypatch, small_corpus, tmp_path):
    where = {"corpus_path": str(small_corpus), "index_dir": str(tmp_path / "idx")}  # the nodes search this corpus
    lm, _ = fake_lm(replies(
        sub_questions={"sub_questions": ["Who sang for Journey?"]},
        facts_needed={"facts_needed": ["x"], "entities": ["Steve Augeri"], "queries": ["Steve Augeri"]},
    ))
    monkeypatch.setattr(claimhop.program.runtime, "get_lm", lambda model: lm)
    train = [dspy.Example(claim="Who sang for Journey?", supporting_titles=["Steve Augeri"], uid="a").with_inputs("claim"),
             dspy.Example(claim="Which band?", supporting_titles=["Nowhere Title"], uid="b").with_inputs("claim")]
    out = tmp_path / "program.json"
    settings = {"phase1_k": 3, "phase2_k": 3, "planner": "two_calls", **QUIET, **where}
    manifest = optimize(lm, Context(**settings), train, out, max_demos=2, program=ClaimHopProgram)
    assert manifest["train_pool_recall_before"] == 0.5  # "Nowhere Title" is not in the corpus
    assert sum(manifest["demos"].values()) >= 2  # the passing example became a demo of both steps
    loaded = stages_for(Context(**settings, program_path=str(out)))
    assert isinstance(loaded, Stages) and not isinstance(loaded, ClaimHopProgram)
    assert len(loaded.plan.decompose.demos) == 1 and loaded.plan.decompose.demos[0]["claim"] == "Who sang for Journey?"
    assert json.loads(out.with_suffix(".manifest.json").read_text())["train"]["uids"] == ["a", "b"]


def test_pool_recall_counts_every_gold_title():
    ex = dspy.Example(claim="c", supporting_titles=["A", "B"]).with_inputs("claim")
    found = [{"step": "phase1", "query": "c", "titles": ["a", "c"]}, {"step": "phase2", "query": "d", "titles": ["b"]}]
    assert pool_recall(ex, dspy.Prediction(hops=found))
    assert not pool_recall(ex, dspy.Prediction(hops=found[:1]))
    later = [*found[:1], {"step": "bridge", "query": "B", "titles": ["b"]}]
    assert not pool_recall(ex, dspy.Prediction(hops=later))  # the first two hops' documents only
