"""`claimhop optimize` end to end with a fake LM on the small corpus: it compiles, saves a program the graph
can load, and records how it was made."""

import json

import dspy
import pytest
from fakes import fake_lm

from claimhop.evaluation.optimize import optimize, pool_recall
from claimhop.program import ClaimHopProgram, get_program, program_file
from state.context import Context


@pytest.mark.parametrize("planner, predictor, reply", [
    (None, "plan.facts", {"facts": {"facts": ["Steve Augeri sang for Journey."], "entities": ["Steve Augeri"]}}),
    ("one_call", "plan.one_call", {"sub_questions": {"sub_questions": ["Who sang for Journey?"], "entities": ["Steve Augeri"]}}),
])
def test_the_planning_call_the_planner_makes_is_what_gets_optimised(small_corpus, tmp_path, planner, predictor, reply):
    where = {"corpus_path": str(small_corpus), "index_dir": str(tmp_path / "idx")}  # the nodes search this corpus
    lm, _ = fake_lm(reply)
    train = [dspy.Example(claim="Who sang for Journey?", supporting_titles=["Steve Augeri"], uid="a").with_inputs("claim")]
    out = tmp_path / "program.json"
    ctx = Context(phase1_k=3, phase2_k=3, **where, **({"planner": planner} if planner else {}))  # None: the default
    manifest = optimize(lm, ctx, train, out, max_demos=2)
    assert manifest["optimized_steps"] == [predictor] and manifest["demos"][predictor] == 1
    assert len(dict(get_program(program_file(True, str(out))).named_predictors())[predictor].demos) == 1


def test_compiles_saves_and_loads(small_corpus, tmp_path):
    where = {"corpus_path": str(small_corpus), "index_dir": str(tmp_path / "idx")}  # the nodes search this corpus
    lm, _ = fake_lm({
        "sub_questions": {"sub_questions": ["Who sang for Journey?"]},
        "facts_needed": {"facts_needed": ["x"], "entities": ["Steve Augeri"], "queries": ["Steve Augeri"]},
    })
    train = [dspy.Example(claim="Who sang for Journey?", supporting_titles=["Steve Augeri"], uid="a").with_inputs("claim"),
             dspy.Example(claim="Which band?", supporting_titles=["Nowhere Title"], uid="b").with_inputs("claim")]
    out = tmp_path / "program.json"
    manifest = optimize(lm, Context(phase1_k=3, phase2_k=3, planner="two_calls", **where), train, out, max_demos=2)
    assert manifest["train_pool_recall_before"] == 0.5  # "Nowhere Title" is not in the corpus
    assert sum(manifest["demos"].values()) >= 2  # the passing example became a demo of both steps
    loaded = get_program(program_file(True, str(out)))
    assert isinstance(loaded, ClaimHopProgram)
    assert len(loaded.plan.decompose.demos) == 1 and loaded.plan.decompose.demos[0]["claim"] == "Who sang for Journey?"
    assert json.loads(out.with_suffix(".manifest.json").read_text())["train"]["uids"] == ["a", "b"]


def test_pool_recall_counts_every_gold_title():
    ex = dspy.Example(claim="c", supporting_titles=["A", "B"]).with_inputs("claim")
    assert pool_recall(ex, dspy.Prediction(titles=["a", "b", "c"]))
    assert not pool_recall(ex, dspy.Prediction(titles=["a"]))
