"""The passage verifier on a served model (`--model NAME`): the model says SUPPORTED, CONTRADICTED or
INSUFFICIENT_INFO itself over the passages the head's prompt holds, the three probabilities read from the first
answer token's logprobs (or, from a server without logprobs, the label DSPy reads with a fixed confidence), calibrated
per label; `claimhop calibrate --verifier served` fits that calibration and `claimhop optimize --step verdict`
compiles the step. A fake served LM stands in for the server (tests/fakes.py)."""

from __future__ import annotations

import importlib
import json
import math

import dspy
import pytest
from fakes import served_fake_lm
from test_passage_verifier import DOCS, tiny_head

from claimhop.lm import provider
from claimhop.program.verify.served import (
    LABELS,
    NO_LOGPROBS_CONFIDENCE,
    ServedCalibration,
    ServedVerdict,
    load_calibration,
    save_calibration,
)
from claimhop.signatures import THREE_WAYS_QUESTION, JudgeClaimThreeWays, instructions
from state.context import Context

MODEL = "openai/served-fake"
CLAIM = "Steve Augeri is a British musician."
# the first answer token's top logprobs: tokens that start a label count for it, the rest ("{", "The") do not
CONTRADICTING = [{"token": "CON", "logprob": -0.2}, {"token": "S", "logprob": -2.5},
                 {"token": "INS", "logprob": -2.0}, {"token": " Contr", "logprob": -3.0},
                 {"token": "{", "logprob": -4.0}, {"token": "The", "logprob": -5.0}]


def expected(top: list[dict]) -> dict[str, float]:
    mass = {"SUPPORTED": math.exp(-2.5), "CONTRADICTED": math.exp(-0.2) + math.exp(-3.0),
            "INSUFFICIENT_INFO": math.exp(-2.0)}
    total = sum(mass.values())
    return {label: value / total for label, value in mass.items()}


@pytest.fixture
def served(monkeypatch, tmp_path):
    """A run on the served fake model: the verify stage with a tiny head (its reading rule only), nothing fitted."""
    monkeypatch.setenv("CLAIMHOP_HOME", str(tmp_path / "home"))
    verify = importlib.import_module("claimhop.program.verify.stage")
    monkeypatch.setattr(verify, "load_head", lambda *path: tiny_head())

    def run(lm: dspy.LM, **settings):
        monkeypatch.setitem(provider._LMS, MODEL, lm)
        ctx = Context.from_any({"verifier": "passages", "model": MODEL, **settings})
        return verify.Verify(ctx)(verify.ToVerify(claim=CLAIM, selected=DOCS, claim_entities=["Steve Augeri"],
                                                  planned_facts=[CLAIM]))
    return run


def test_a_contradicted_answer_from_the_server_gives_a_contradicted_verdict_with_a_confidence(served):
    lm, engine = served_fake_lm(CONTRADICTING)
    out = served(lm)
    p = expected(CONTRADICTING)
    assert out.verdict == "CONTRADICTED"
    assert out.confidence == pytest.approx(p["CONTRADICTED"], abs=1e-4) and 0.5 < out.confidence < 1.0
    assert out.reason == "read together, the 3 best passages say something else than the claim"
    assert out.probabilities["logprobs"] == 1.0 and out.calls == 1
    # the fact records the answer writes its lines from carry the verdict
    assert out.facts[0]["verdict"] == "CONTRADICTED" and out.facts[0]["confidence"] == out.confidence
    # one label-probability call: the signature's instruction, the head's passages, the three-way question
    request = engine.logprob_requests[0]
    system, user = request["messages"][0]["content"], request["messages"][-1]["content"]
    assert system == instructions(JudgeClaimThreeWays) and "CONTRADICTED" in system
    assert "[Steve Augeri] Steve Augeri (born January 30, 1959)" in user and f"Claim: {CLAIM}" in user
    assert user.endswith(THREE_WAYS_QUESTION)
    assert request["max_tokens"] == 1 and request["top_logprobs"] == 20


def test_logprobs_become_the_three_probabilities(monkeypatch, tmp_path):
    monkeypatch.setenv("CLAIMHOP_HOME", str(tmp_path))
    monkeypatch.setitem(provider._LMS, MODEL, served_fake_lm(CONTRADICTING)[0])
    probs = ServedVerdict()(MODEL, CLAIM, DOCS[:2])
    p = expected(CONTRADICTING)
    for label, key in (("SUPPORTED", "supported"), ("CONTRADICTED", "contradicted"),
                       ("INSUFFICIENT_INFO", "insufficient")):
        assert probs[key] == pytest.approx(p[label], abs=1e-9)  # no calibration fitted: the identity
        assert probs[f"raw_{key}"] == pytest.approx(p[label], abs=1e-9)
    assert sum(probs[k] for k in ("supported", "contradicted", "insufficient")) == pytest.approx(1.0)
    assert not load_calibration(MODEL).fitted
    # a fitted calibration (temperature, a bias per label) is read for that model and changes the three
    fitted = ServedCalibration(2.0, (0.0, -1.0, 0.5), {"claims": 40})
    save_calibration(MODEL, fitted)
    assert load_calibration(MODEL).bias == (0.0, -1.0, 0.5)
    calibrated = ServedVerdict()(MODEL, CLAIM, DOCS[:2])
    logits = {label: math.log(p[label]) / 2.0 + b for label, b in zip(LABELS, (0.0, -1.0, 0.5))}
    norm = sum(math.exp(z) for z in logits.values())
    assert calibrated["contradicted"] == pytest.approx(math.exp(logits["CONTRADICTED"]) / norm, abs=1e-9)
    assert calibrated["raw_contradicted"] == probs["raw_contradicted"]
    assert load_calibration("openai/another").temperature == 1.0  # fitted per model


def test_without_logprobs_the_label_dspy_reads_gets_a_fixed_confidence(served):
    lm, engine = served_fake_lm(None, {"verdict": {"verdict": "CONTRADICTED"}})
    out = served(lm)
    assert out.verdict == "CONTRADICTED" and out.confidence == NO_LOGPROBS_CONFIDENCE
    assert out.probabilities["logprobs"] == 0.0 and engine.calls == ["verdict"]


def test_a_supported_answer_and_an_unsettled_one(served):
    supporting = [{"token": "SUP", "logprob": -0.1}, {"token": "INS", "logprob": -2.5}]
    assert served(served_fake_lm(supporting)[0]).verdict == "SUPPORTED"
    unsettled = [{"token": "IN", "logprob": -0.3}, {"token": "CON", "logprob": -1.5}]
    out = served(served_fake_lm(unsettled)[0])
    assert out.verdict == "INSUFFICIENT_INFO" and out.reason.endswith("do not settle the claim")


def test_a_fitted_calibration_moves_an_overconfident_label_and_is_held_near_the_identity(tmp_path, monkeypatch):
    from claimhop.cli.main import main
    from claimhop.evaluation.calibration import fit_served, served_log_loss

    # the model says SUPPORTED at 0.9 for every claim, but only half are supported: the fit lowers it
    pairs = [({"SUPPORTED": 0.9, "CONTRADICTED": 0.05, "INSUFFICIENT_INFO": 0.05}, gold)
             for gold in ["SUPPORTED", "NOT_SUPPORTED"] * 20]
    fitted = fit_served(pairs)
    assert served_log_loss(pairs, fitted) < served_log_loss(pairs, ServedCalibration())
    assert fitted.apply(pairs[0][0])["SUPPORTED"] < 0.75
    # held towards the identity: two claims move it less than forty
    assert fit_served(pairs[:2]).apply(pairs[0][0])["SUPPORTED"] > fitted.apply(pairs[0][0])["SUPPORTED"]
    # `claimhop calibrate --verifier served` from eval-verify rows saves it where runs with that model read it
    monkeypatch.setenv("CLAIMHOP_HOME", str(tmp_path / "home"))
    rows = tmp_path / "verify.jsonl"
    rows.write_text("".join(json.dumps({
        "fingerprint": "f", "system": "passages@gold", "uid": f"c{i}", "label": gold,
        "probs": {"supported": 0.9, "contradicted": 0.05, "insufficient": 0.05, "raw_supported": 0.9,
                  "raw_contradicted": 0.05, "raw_insufficient": 0.05, "logprobs": 1.0}}) + "\n"
        for i, (_, gold) in enumerate(pairs)))
    assert main(["calibrate", "--verifier", "served", "--model", MODEL, "--rows", str(rows),
                 "--out", str(tmp_path / "cal.json")]) == 0
    report = json.loads((tmp_path / "cal.json").read_text())
    assert report["claims"] == 40 and report["cross_fitted"]["log_loss"] < report["identity"]["log_loss"]
    saved = load_calibration(MODEL)
    assert saved.fitted and saved.temperature == report["fitted_on_all"]["temperature"]


def test_optimize_compiles_the_served_verdict_into_the_program_a_run_loads(tmp_path, monkeypatch):
    """`claimhop optimize --step verdict`: BootstrapFewShot keeps a claim the served model labelled right as a demo
    of `verify.served.predict`, in the program file beside the planning steps already there; a run loads it and
    sends the demo as a worked turn before the question."""
    from claimhop.cli.main import main
    from claimhop.program import stages_for

    monkeypatch.setenv("CLAIMHOP_HOME", str(tmp_path / "home"))
    verify = importlib.import_module("claimhop.program.verify.stage")
    monkeypatch.setattr(verify, "load_head", lambda *path: tiny_head())
    monkeypatch.setattr(importlib.import_module("claimhop.evaluation.optimize"), "load_head", lambda *path: tiny_head())
    lm, engine = served_fake_lm(CONTRADICTING)
    monkeypatch.setitem(provider._LMS, MODEL, lm)
    claims = tmp_path / "claims.jsonl"
    rows = [{"uid": "a", "claim": CLAIM, "kind": "CONTRADICTED", "documents": DOCS[1:2]},
            {"uid": "b", "claim": "Steve Augeri was born in 1959.", "kind": "SUPPORTED", "documents": DOCS[1:2]}]
    claims.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "program.json"
    from claimhop.signatures import PlanClaimAsFacts

    out.write_text(json.dumps({"plan.facts": dspy.Predict(PlanClaimAsFacts).dump_state()}))  # compiled before
    assert main(["optimize", "--step", "verdict", "--model", MODEL, "--claims", str(claims), "--train", "2",
                 "--out", str(out)]) == 0
    manifest = json.loads((tmp_path / "program.verdict.manifest.json").read_text())
    assert manifest["train_accuracy_before"] == 0.5 and manifest["demos"] == {"verify.served.predict": 1}
    saved = json.loads(out.read_text())
    assert set(saved) == {"plan.facts", "verify.served.predict"}
    demo = saved["verify.served.predict"]["demos"][0]
    assert demo["claim"] == CLAIM and demo["verdict"] == "CONTRADICTED"
    stage = stages_for(Context.from_any({"verifier": "passages", "model": MODEL, "program_path": str(out)})).verify
    assert len(stage.served.predict.demos) == 1
    engine.logprob_requests.clear()
    stage.served(MODEL, "Steve Augeri is Canadian.", DOCS[1:2])
    turns = engine.logprob_requests[0]["messages"]
    assert [t["role"] for t in turns] == ["system", "user", "assistant", "user"]
    assert f"Claim: {CLAIM}" in turns[1]["content"] and turns[2]["content"] == "CONTRADICTED"


def test_a_served_label_of_none_of_the_three_is_an_error_the_node_falls_back_on(served):
    lm, _ = served_fake_lm(None, {"verdict": {"verdict": "MAYBE"}})
    out = served(lm, model_attempts=1)
    assert out.verdict == "INSUFFICIENT_INFO" and out.degraded



def test_the_one_token_call_warns_of_no_truncation(monkeypatch, tmp_path, caplog):
    """A real server stops the one-token call at its length, and DSPy's LiteLLM engine then warns that the
    response was truncated at its default max_tokens (512): once per verdict, about nothing. The warning is dropped
    for that call only; any other call that is truncated still warns."""
    import logging

    monkeypatch.setenv("CLAIMHOP_HOME", str(tmp_path))
    lm, engine = served_fake_lm(CONTRADICTING)
    complete = engine.complete

    def as_litellm_warns(request):  # what dspy.clients.engines.litellm_engine does on finish_reason "length"
        logging.getLogger("dspy.clients.lm").warning("LM response was truncated due to exceeding max_tokens=512.")
        return complete(request)

    monkeypatch.setattr(engine, "complete", as_litellm_warns)
    monkeypatch.setitem(provider._LMS, MODEL, lm)
    with caplog.at_level(logging.WARNING, logger="dspy.clients.lm"):
        ServedVerdict()(MODEL, CLAIM, DOCS[:2])
        assert engine.logprob_requests and "truncated" not in caplog.text
        logging.getLogger("dspy.clients.lm").warning("LM response was truncated due to exceeding max_tokens=512.")
    assert "truncated" in caplog.text
