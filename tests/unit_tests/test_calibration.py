"""Calibrating the facts verifier's thresholds from recorded eval-verify rows: a replay decides exactly as a run
did, the fit finds the threshold that separates the labels, the cross-fitted verdicts come from thresholds fitted
on the other fold, and the command reports and refuses what it should."""

from __future__ import annotations

import json

import pytest

from claimhop.cli.main import main
from claimhop.evaluation.calibration import (
    cross_fit,
    decide_by_fold,
    fit,
    fold_of,
    replay,
)
from claimhop.program.verify.alternatives.ensemble import EnsembleRule
from claimhop.program.verify.alternatives.pipeline import check_facts


def judged(entail: float, contra: float = 0.1, alignment: float = 0.8) -> dict:
    """A recorded fact: one evidence sentence with its label probabilities."""
    probs = {"entailment": entail, "contradiction": contra, "neutral": round(1 - entail - contra, 4)}
    return {"fact": "f", "entities": [], "alignment": alignment, "error": None, "verdict": "?", "confidence": 0.0,
            "evidence": [{"title": "T", "sentence": "s.", "sentence_index": 0, "probs": probs}]}


def row(uid: str, label: str, *facts: dict) -> dict:
    return {"fingerprint": "f1", "system": "facts@gold", "uid": uid, "num_hops": 2, "label": label,
            "verdict": "?", "predicted": "?", "confidence": 0.0, "seconds": 1.0, "lm_calls": 2, "tokens": 10,
            "facts": list(facts)}


def test_a_replay_decides_exactly_as_the_run_did():
    documents = [{"title": "Steve Augeri", "text": "Steve Augeri is an American rock singer. He sang in Journey."}]
    for rule in (EnsembleRule(), EnsembleRule(0.05, 0.9, 0.0)):
        for entail, contra in ((0.03, 0.02), (0.7, 0.1), (0.1, 0.8)):
            run = check_facts([{"text": "Steve Augeri is American.", "entities": ["Steve Augeri"]}], documents,
                              lambda t, s, f, e=entail, c=contra: {"entailment": e, "contradiction": c,
                                                                   "neutral": 1 - e - c}, rule, 2)
            again = replay(run["facts"], rule)
            assert (again["verdict"], again["confidence"]) == (run["verdict"], run["confidence"])
    assert replay([], EnsembleRule())["verdict"] == "INSUFFICIENT_INFO"


def test_the_fit_finds_the_threshold_that_separates_small_entailment_probabilities():
    # a judge whose entailment probabilities are small but ordered: supported claims ~0.04, others ~0.005
    rows = [row(f"s{i}", "SUPPORTED", judged(0.04 + i / 1000)) for i in range(6)]
    rows += [row(f"n{i}", "NOT_SUPPORTED", judged(0.005 + i / 10000)) for i in range(6)]
    default = [replay(r["facts"], EnsembleRule())["verdict"] for r in rows]
    assert "SUPPORTED" not in default  # at 0.5 the default calls nothing supported
    rule, f1, accuracy = fit(rows)
    assert 0.005 < rule.entail_threshold <= 0.04 and f1 == 1.0 and accuracy == 1.0


def test_cross_fitted_verdicts_use_thresholds_fitted_on_the_other_fold():
    rows = [row(f"s{i}", "SUPPORTED", judged(0.3)) for i in range(8)]
    rows += [row(f"n{i}", "NOT_SUPPORTED", judged(0.01)) for i in range(8)]
    fold_rules = cross_fit(rows, folds=2)
    for fold, rule in enumerate(fold_rules):
        assert rule == fit([r for r in rows if fold_of(r["uid"], 2) != fold])[0]
    decided = decide_by_fold(rows, fold_rules, "calibrated")
    assert [r["uid"] for r in decided] == [r["uid"] for r in rows]
    assert all(r["predicted"] == r["label"] and r["system"] == "facts@gold calibrated" for r in decided)
    assert all("facts" not in r for r in decided)
    with pytest.raises(ValueError, match="too few claims"):
        cross_fit(rows[:1], folds=2)


def test_the_command_reports_and_refuses_rows_without_facts(tmp_path, capsys):
    rows = [row(f"s{i}", "SUPPORTED", judged(0.3)) for i in range(6)]
    rows += [row(f"n{i}", "NOT_SUPPORTED", judged(0.01, contra=0.05)) for i in range(6)]
    for r in rows:  # as the run recorded them, under the default thresholds
        r.update(replay(r["facts"], EnsembleRule()))
        r["predicted"] = "SUPPORTED" if r["verdict"] == "SUPPORTED" else "NOT_SUPPORTED"
    source = tmp_path / "verify.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows) + '{"torn', encoding="utf-8")
    out = tmp_path / "calibration.json"
    recorded_with = ["--set", "entail_threshold=0.5", "--set", "contradict_threshold=0.6",
                     "--set", "min_alignment=0.3", "--set", "confidence_slope=0"]
    assert main(["calibrate", "--rows", str(source), "--out", str(out), *recorded_with]) == 0
    printed = capsys.readouterr().out
    assert "facts@gold calibrated on gold (cross-fitted)" in printed and "reproduces 12 of 12 verdicts" in printed
    report = json.loads(out.read_text())
    assert report["claims"] == 12 and report["fitted_on_all"]["entail_threshold"] <= 0.3
    assert out.with_suffix(".png").read_bytes()[:4] == b"\x89PNG" and out.with_suffix(".md").is_file()

    empty = tmp_path / "single-only.jsonl"
    empty.write_text(json.dumps({**rows[0], "system": "single@gold"}) + "\n", encoding="utf-8")
    assert main(["calibrate", "--rows", str(empty), "--out", str(out)]) == 2
    assert "no facts@gold rows" in capsys.readouterr().err
    assert main(["calibrate", "--rows", str(source), "--folds", "1", "--out", str(out)]) == 2
    assert main(["calibrate", "--rows", str(tmp_path / "missing.jsonl"), "--out", str(out)]) == 2
    assert "not found" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["entail_threshold", "contradict_threshold", "min_alignment", "confidence_slope"])
def test_shipped_thresholds_are_the_ones_the_calibration_fitted(name):
    """The defaults must be what docs/results/verify/calibration.json says was fitted, so README and code agree."""
    from pathlib import Path

    from state.context import Context

    report = json.loads((Path(__file__).resolve().parents[2] / "docs/results/verify/calibration.json").read_text())
    assert Context().value(name) == report["fitted_on_all"][name]


@pytest.mark.parametrize("name", ["qa_threshold", "qa_contradict_threshold", "qa_confidence_slope"])
def test_the_qa_verifiers_defaults_are_the_ones_fitted_on_its_development_sample(name):
    """The QA verifier's numbers were fitted on 40 claims of calibration fold 0 (docs/verification.md), so that
    fold 1 stays out of sample; the defaults must be that fit."""
    from pathlib import Path

    from state.context import Context

    fit = Path(__file__).resolve().parents[2] / "docs/results/verify-qa/development/v2-calibration-qa.json"
    assert Context().value(name) == json.loads(fit.read_text())["fitted_on_all"][name]


def test_with_the_shipped_defaults_a_judge_as_unsure_as_the_local_model_still_decides():
    """The local model gives a sentence that states a fact an entailment probability of a few per cent; the
    calibrated defaults turn that into SUPPORTED with a confidence above one half, and a fact whose best
    sentence scores far below the threshold into INSUFFICIENT_INFO."""
    from state.context import Context

    rule = EnsembleRule.from_settings(Context())
    stated = judged(4 * rule.entail_threshold, contra=0.01, alignment=0.9)
    unrelated = judged(rule.entail_threshold / 8, contra=0.01, alignment=0.9)
    supported = replay([stated], rule)
    assert supported["verdict"] == "SUPPORTED" and 0.5 < supported["confidence"] < 1
    left_open = replay([stated, unrelated], rule)
    assert left_open["verdict"] == "INSUFFICIENT_INFO" and 0.5 < left_open["confidence"] < 1


def test_the_qa_verifiers_thresholds_are_fitted_on_its_own_rows_and_named_as_its_settings(tmp_path, capsys):
    # own-answer probabilities: ~0.35 for supported claims, ~0.1 for the others (a few options share the mass)
    rows = [{**row(f"s{i}", "SUPPORTED", judged(0.35, contra=0.2, alignment=1.0)), "system": "qa@retrieved"}
            for i in range(8)]
    rows += [{**row(f"n{i}", "NOT_SUPPORTED", judged(0.1, contra=0.2, alignment=1.0)), "system": "qa@retrieved"}
             for i in range(8)]
    source = tmp_path / "verify.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "calibration.json"
    assert main(["calibrate", "--verifier", "qa", "--evidence", "retrieved", "--rows", str(source),
                 "--out", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    fitted = report["fitted_on_all"]
    assert set(fitted) == {"qa_threshold", "qa_contradict_threshold", "qa_confidence_slope"}
    assert 0.1 < fitted["qa_threshold"] <= 0.35 and report["in_sample"]["macro_f1"] == 1.0
    assert "--set qa_threshold=" in capsys.readouterr().out
    # facts rows asked for, none recorded: said plainly, with the command that records them
    assert main(["calibrate", "--evidence", "retrieved", "--rows", str(source), "--out", str(out)]) != 0
    assert "no facts@retrieved rows" in capsys.readouterr().err
