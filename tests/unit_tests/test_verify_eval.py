"""`claimhop eval-verify`: the calibration error and intervals on hand-made rows, and a resumable run of the
majority verifier (no model needed) on gold and retrieved documents."""

from __future__ import annotations

import json

import pytest

import claimhop.cli.main
from claimhop.evaluation.report import macro_f1
from claimhop.evaluation.verify_eval import (
    bootstrap_ci,
    expected_calibration_error,
    summarize_verify,
    verdict_comparison,
)


def row(label: str, verdict: str, confidence: float, hops: int = 2) -> dict:
    predicted = "SUPPORTED" if verdict == "SUPPORTED" else "NOT_SUPPORTED"
    return {"system": "x@gold", "uid": f"{label}{verdict}{confidence}", "num_hops": hops, "label": label,
            "verdict": verdict, "predicted": predicted, "confidence": confidence, "seconds": 1.0,
            "lm_calls": 4 if hops == 3 else 2, "tokens": 1000}


def test_calibration_error_is_the_weighted_gap_between_confidence_and_accuracy():
    calibrated = [row("SUPPORTED", "SUPPORTED", 0.75)] * 3 + [row("NOT_SUPPORTED", "SUPPORTED", 0.75)]
    assert expected_calibration_error(calibrated)[0] == 0.0  # 75% sure, right 3 times in 4
    overconfident = [row("NOT_SUPPORTED", "SUPPORTED", 0.95)] * 2
    ece, bins = expected_calibration_error(overconfident)
    assert ece == pytest.approx(0.95) and bins == [(0.95, 0.0, 2)]


def test_intervals_contain_the_figure_and_the_summary_splits_by_hops():
    rows = ([row("SUPPORTED", "SUPPORTED", 0.8)] * 6 + [row("NOT_SUPPORTED", "CONTRADICTED", 0.7, 3)] * 3
            + [row("NOT_SUPPORTED", "SUPPORTED", 0.6, 3)])
    pairs = [(r["label"], r["predicted"]) for r in rows]
    low, high = bootstrap_ci(pairs)
    assert bootstrap_ci(list(reversed(pairs))) == (low, high)  # the same verdicts in another order
    assert low <= macro_f1(pairs) <= high
    summary = summarize_verify(rows)["x@gold"]
    assert summary["groups"]["all"]["n"] == 10 and summary["groups"]["all"]["accuracy"] == 0.9
    assert summary["groups"]["2-hop"]["macro_f1"] == pytest.approx(0.5)  # one class only in the 2-hop claims
    assert summary["confusion"]["NOT_SUPPORTED -> CONTRADICTED"] == 3
    assert summary["lm_calls"] == pytest.approx(2.8) and summary["tokens"] == 1000  # per claim: 6x2 + 4x4 over 10


def test_each_verifier_is_compared_with_the_graphs_node_on_the_same_documents_only():
    rows = [{**row("SUPPORTED", verdict, 1.0), "system": system, "uid": str(i)}
            for i in range(4) for system, verdict in (("claimhop@gold", "SUPPORTED"), ("single@gold", "CONTRADICTED"),
                                                      ("single@retrieved", "SUPPORTED"))]
    assert verdict_comparison(rows) == [
        "claimhop@gold vs single@gold on the same 4 claims: verdict right only for claimhop@gold 4, "
        "only for single@gold 0 (exact McNemar p = 0.125)"]  # single@retrieved has no node on its documents


def test_a_majority_run_resumes_and_reports(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(claimhop.cli.main, "stop_at_once_on_ctrl_c", lambda: None)
    out = tmp_path / "verify.jsonl"
    args = ["eval-verify", "--systems", "majority", "--limit", "6", "--out", str(out)]
    assert claimhop.cli.main.main(args) == 0
    printed = capsys.readouterr().out
    assert "majority@gold" in printed and "| 6 |" in printed
    assert len(out.read_text().splitlines()) == 6 and out.with_suffix(".png").is_file()
    assert claimhop.cli.main.main(args) == 0 and len(out.read_text().splitlines()) == 6  # resumed: nothing recomputed
    capsys.readouterr()
    assert claimhop.cli.main.main([*args, "--report-only"]) == 0  # no run: the report from the recorded rows
    assert "| majority@gold | 6 |" in capsys.readouterr().out and len(out.read_text().splitlines()) == 6
    assert claimhop.cli.main.main([*args[:-1], str(tmp_path / "none.jsonl"), "--report-only"]) == 2
    assert "run `claimhop eval-verify --out" in capsys.readouterr().err


def test_a_report_names_any_verifier_its_rows_record(tmp_path, capsys, monkeypatch):
    """An earlier default kept under another name (passages_block28 in docs/results/verifier/dev-169.jsonl) is
    reported like the others; a verifier the rows lack is a clear error, not a traceback."""
    monkeypatch.setattr(claimhop.cli.main, "stop_at_once_on_ctrl_c", lambda: None)
    out = tmp_path / "verify.jsonl"
    assert claimhop.cli.main.main(["eval-verify", "--systems", "majority", "--limit", "4", "--out", str(out)]) == 0
    recorded = [json.loads(line) for line in out.read_text().splitlines()]
    renamed = [{**row, "system": row["system"].replace("majority", "majority_before")} for row in recorded]
    out.write_text(out.read_text() + "".join(json.dumps(row) + "\n" for row in renamed))
    capsys.readouterr()
    report = ["eval-verify", "--limit", "4", "--out", str(out), "--report-only"]
    assert claimhop.cli.main.main([*report, "--systems", "majority,majority_before"]) == 0
    assert "| majority_before@gold | 4 |" in capsys.readouterr().out
    assert claimhop.cli.main.main([*report, "--systems", "oracle"]) == 2
    assert "no rows of system(s) oracle@gold" in capsys.readouterr().err


def test_retrieved_documents_must_come_from_an_eval_file(tmp_path, capsys):
    assert claimhop.cli.main.main(["eval-verify", "--systems", "majority", "--evidence", "retrieved", "--limit", "2",
                          "--out", str(tmp_path / "v.jsonl")]) == 2
    assert "needs --retrieved-from" in capsys.readouterr().err
    assert claimhop.cli.main.main(["eval-verify", "--systems", "oracle"]) == 2
    assert "unknown verifier" in capsys.readouterr().err
    rows = tmp_path / "eval.jsonl"
    rows.write_text(json.dumps({"system": "claimhop", "uid": "u1", "titles": ["Steve Augeri"]}) + "\n")
    from claimhop.evaluation.verify_eval import retrieved_titles
    assert retrieved_titles(rows) == {"u1": ["Steve Augeri"]}
    assert claimhop.cli.main.main(["eval-verify", "--systems", "majority", "--evidence", "retrieved", "--retrieved-from",
                          str(rows), "--out", str(tmp_path / "v.jsonl")]) == 2
    assert "none of the 169 claims has retrieved documents" in capsys.readouterr().err


def test_a_recall_run_still_going_gives_retrieved_evidence_for_the_claims_it_finished(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(claimhop.cli.main, "stop_at_once_on_ctrl_c", lambda: None)
    from claimhop.evaluation.data import DEV_CLAIMS, load_claims
    first, second = load_claims(DEV_CLAIMS)[:2]
    rows = tmp_path / "eval.jsonl"
    rows.write_text("".join(json.dumps({"system": system, "uid": c["uid"], "titles": c["supporting_titles"]}) + "\n"
                            for c, system in ((first, "claimhop"), (second, "bm25"))))
    out = tmp_path / "v.jsonl"
    assert claimhop.cli.main.main(["eval-verify", "--systems", "majority", "--evidence", "gold,retrieved", "--retrieved-from",
                          str(rows), "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "1 of 169 claims have claimhop's retrieved documents" in captured.err
    assert {json.loads(line)["uid"] for line in out.read_text().splitlines()} == {first["uid"]}


def test_the_graphs_own_verify_node_is_a_verifier_too(tmp_path, capsys, monkeypatch):
    """`claimhop` runs the graph's verify node on the gold documents (a fake LM here: this is about the wiring)."""
    from fakes import fake_lm
    from test_graph_routing import answers

    import claimhop.program.runtime

    lm, engine = fake_lm(answers())
    monkeypatch.setattr(claimhop.program.runtime, "get_lm", lambda model: lm)
    monkeypatch.setattr(claimhop.cli.main, "stop_at_once_on_ctrl_c", lambda: None)
    out = tmp_path / "verify.jsonl"
    assert claimhop.cli.main.main(["eval-verify", "--systems", "claimhop", "--limit", "2", "--out", str(out),
                          "--set", "verifier=single"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["system"] for r in rows] == ["claimhop@gold"] * 2
    assert all(r["verdict"] == "SUPPORTED" and r["confidence"] == 1.0 and r["degraded"] == [] for r in rows)
    assert engine.calls.count("evidence_ids") == 2  # one VerifyClaim call per claim
    assert "claimhop@gold" in capsys.readouterr().out


def test_the_facts_verifier_is_measured_on_the_facts_the_graph_would_check(monkeypatch):
    """eval-verify's facts verifier is the stage the node runs: it joins the split's fragments as the node does (it
    once judged raw fragments such as "in 1992" that the node never sees) and judges them with the run's settings."""
    import importlib
    from types import SimpleNamespace

    import claimhop.program.runtime
    from claimhop.evaluation.verify_eval import (
        measured_case,
        measured_verdict,
        measured_verifier,
    )
    from state.context import Context

    split = [SimpleNamespace(text="Chandgi Ram won a gold medal", entities=["Chandgi Ram"]),
             SimpleNamespace(text="in 1970", entities=[]),
             SimpleNamespace(text="The  event was held in Argentina.", entities=["Argentina"])]
    # the default planner's facts are what the graph judges; SplitClaim's only with another planner
    monkeypatch.setattr(importlib.import_module("claimhop.program.verify.facts").PlanSplit, "__call__",
                        lambda self, claim: split)
    monkeypatch.setattr(claimhop.program.runtime, "get_lm", lambda model: None)
    seen = {}

    def check_facts(facts, documents, judge, rule, per_fact, context):
        seen["facts"], seen["context"] = [f["text"] for f in facts], context
        return {"verdict": "SUPPORTED", "confidence": 0.9, "reason": "", "facts": []}

    monkeypatch.setattr(importlib.import_module("claimhop.program.verify.alternatives.verify_facts"), "check_facts",
                        check_facts)
    claim = {"uid": "u1", "claim": "Chandgi Ram won a gold medal in 1970 at an event held in Argentina."}
    documents = [{"title": "Chandgi Ram", "text": "Chandgi Ram won gold at the 1970 Asian Games, not in Argentina."}]
    for settings, context in (({}, "sentence"), ({"fact_context": "passage"}, "passage")):
        stage = measured_verifier(Context.from_any(settings), "facts")
        verdict, confidence, _ = measured_verdict(stage, measured_case(claim, documents, "facts"))
        assert (verdict, confidence) == ("SUPPORTED", 0.9)
        assert seen["facts"] == ["Chandgi Ram won a gold medal in 1970", "The event was held in Argentina."]
        assert seen["context"] == context  # as the graph judges with these settings


def test_the_measured_passage_verifier_and_the_node_give_one_verdict_on_one_state(tmp_path, monkeypatch):
    """What eval-verify reports for the passage verifier is what the graph's verify node says on the same state:
    the same module, its nothing-to-go-on rule and quotes included (it once measured a copy without them)."""
    import importlib
    from collections import OrderedDict
    from types import SimpleNamespace

    import numpy as np
    from test_passage_verifier import DOCS, FakeEngine, no_dspy_model, tiny_head

    import claimhop.lm.provider
    import claimhop.program
    from claimhop.evaluation.verifier_features import features_dir, messages_key
    from claimhop.evaluation.verify_eval import (
        measured_case,
        measured_verdict,
        measured_verifier,
    )
    from claimhop.program.verify.reading import passage_messages, passages_read
    from nodes.verify import verify as verify_node
    from state.context import Context

    stage_module = importlib.import_module("claimhop.program.verify.stage")
    monkeypatch.setenv("CLAIMHOP_HOME", str(tmp_path))
    monkeypatch.setattr(stage_module, "load_head", lambda *path: tiny_head())
    monkeypatch.setattr(claimhop.program, "_BUILT", OrderedDict())  # stages built with this head
    monkeypatch.setattr(claimhop.lm.provider, "local_engine", lambda: pytest.fail("a measurement read a saved state"))
    no_dspy_model(monkeypatch)
    ctx = Context.from_any({"verifier": "passages"})
    facts = ["Steve Augeri is an American rock singer.", "Cherie Currie is an American musician."]
    cases = [("Steve Augeri and Cherie Currie are American singers.", np.array([3.0, 1.0, 0.0, 0.0])),  # supported
             ("Steve Augeri and Cherie Currie are British singers.", np.array([-3.0, 1.0, 0.0, 0.0])),  # not
             ("Steve Augeri was born in 1959 and is not an American rock singer.", np.array([3.0, 1.0, 0.0, 0.0])),
             ("Zbigniew Kowalski sang in Warsaw.", np.array([3.0, 1.0, 0.0, 0.0]))]  # no document names him
    said = []
    for number, (claim, state) in enumerate(cases):
        node_engine = FakeEngine(state)
        monkeypatch.setattr(stage_module, "local_engine", lambda engine=node_engine: engine)
        names = [n for n in ("Steve Augeri", "Cherie Currie", "Zbigniew Kowalski", "Tyketto") if n in claim]
        node = verify_node({"claim": claim, "selected": DOCS, "claim_entities": names, "planned_facts": facts},
                           SimpleNamespace(context=ctx))
        rule = tiny_head().reading
        saved = features_dir(rule) / f"{messages_key(passage_messages(claim, passages_read(DOCS, claim, rule)))}.npy"
        saved.parent.mkdir(parents=True, exist_ok=True)
        np.save(saved, state.astype(np.float32))
        case = measured_case({"uid": f"dev{number}", "claim": claim}, DOCS, "passages")
        case.claim_entities, case.planned_facts = names, facts
        verdict, confidence, _ = measured_verdict(measured_verifier(ctx, "passages"), case)
        assert (verdict, confidence) == (node["verdict"], node.get("confidence", 1.0)), claim
        said.append(verdict)
    assert said[0] == "SUPPORTED" and said[1] != "SUPPORTED" and said[3] == "INSUFFICIENT_INFO"
