"""The graph's wiring with a fake LM on a real small corpus: every node runs, the loop stops by its rules,
and model faults degrade a step instead of ending the run."""

from __future__ import annotations

import importlib

import pytest
from fakes import fake_lm

import claimhop.program.runtime
from graph import NODE_ORDER, graph

# The design's every model step: two planning calls, the model's bridge pick, the gap loop entered every time.
FULL_DESIGN = {"planner": "two_calls", "bridge_pick": "lm", "gap_loop_when": "always"}


def answers(complete: bool = False, gap_queries=("Cherie Currie singer",)) -> dict:
    """Replies keyed by an output field that identifies each signature ("entities" last: EarlyGapAnalysis
    and GapAnalysis also have it, and are matched first by their own fields). The "sub_questions" reply serves
    DecomposeClaim and PlanClaim (which also writes entities and queries) alike; the "facts" reply serves the
    default PlanClaimAsFacts and SplitClaim."""
    return {
        "sub_questions": {"sub_questions": ["Who was the lead singer of The Runaways?", "Who is Steve Augeri?"],
                          "entities": ["Steve Augeri"], "queries": ["Foxes soundtrack film"]},
        "facts_needed": {"facts_needed": ["nationality of Steve Augeri"], "entities": ["Steve Augeri"],
                         "queries": ["Foxes soundtrack film"]},
        "missing": {"missing": [] if complete else ["who sang"], "entities": ["Cherie Currie"],
                    "queries": list(gap_queries), "complete": complete},
        "evidence_ids": {"reasoning": "Both are American.", "verdict": "SUPPORTED", "evidence_ids": [1, 2]},
        "statements": {"statements": [{"text": "Both are American singers", "evidence_id": 1},
                                      {"text": "An invented source", "evidence_id": 99}]},
        "facts": {"facts": ["Cherie Currie is American.", "Steve Augeri is American."], "entities": ["Steve Augeri"]},
        "entities": {"entities": ["Cherie Currie", "Not A Candidate"]},
    }


def run(monkeypatch, corpus, reply: dict, **settings):
    lm, engine = fake_lm(reply)
    monkeypatch.setattr(claimhop.program.runtime, "get_lm", lambda model: lm)
    ctx = {"corpus_path": str(corpus), "use_optimized_program": False, "verifier": "single", **settings}
    updates = []
    final = None
    for mode, chunk in graph.stream({"claim": "Cherie Currie and Steve Augeri were both American."},
                                    context=ctx, stream_mode=["updates", "values"]):
        if mode == "updates":
            updates.extend(chunk)
        else:
            final = chunk
    return updates, final, engine


def test_every_node_runs_in_order_and_loop_stops_after_max_iterations(monkeypatch, small_corpus):
    updates, final, _ = run(monkeypatch, small_corpus, answers(), max_iterations=2, top_k=5, loop_k=2, **FULL_DESIGN)
    first_seen = list(dict.fromkeys(updates))
    assert first_seen == NODE_ORDER
    assert final["iteration"] <= 2
    assert len(final["selected"]) == 5
    assert len({d["title"] for d in final["selected"]}) == 5
    assert final["verdict"] == "SUPPORTED"
    assert "References:" in final["answer"]
    assert "Both are American singers [1]." in final["answer"]
    assert "invented" not in final["answer"]  # a statement citing no real evidence is dropped


def test_loop_stops_when_analysis_says_complete(monkeypatch, small_corpus):
    updates, final, _ = run(monkeypatch, small_corpus, answers(complete=True), max_iterations=3, **FULL_DESIGN)
    assert updates.count("gap_loop") == 1
    assert final["iteration"] == 1


def test_by_default_one_call_plans_and_no_model_call_picks_bridges_or_finds_nothing_missing(monkeypatch, small_corpus):
    neutral = {"entailment": 0.1, "contradiction": 0.1, "neutral": 0.8}
    monkeypatch.setattr(importlib.import_module("claimhop.program.verify.alternatives.verify_facts"), "judge_pair", lambda *args: neutral)
    updates, final, engine = run(monkeypatch, small_corpus, answers(), verifier="facts")
    assert engine.calls.count("facts") == 1  # one PlanClaimAsFacts call for decompose, early gap and the split
    assert "sub_questions" not in engine.calls and "facts_needed" not in engine.calls and "missing" not in engine.calls
    assert "entities" not in engine.calls  # the bridge takes the entity ranking's best
    assert final["gap_queries"] == ["Steve Augeri"] and final["sub_questions"][1] == "Steve Augeri is American."
    assert [f["fact"] for f in final["facts"]] == final["sub_questions"]  # verify judges the planned facts
    assert "gap_loop" not in updates  # both names of the claim already have documents
    assert final["bridge_entities"]
    assert [u for u in dict.fromkeys(updates)] == [n for n in NODE_ORDER if n != "gap_loop"]


def test_the_one_call_planner_writes_sub_questions_and_verify_splits_the_claim_itself(monkeypatch, small_corpus):
    neutral = {"entailment": 0.1, "contradiction": 0.1, "neutral": 0.8}
    monkeypatch.setattr(importlib.import_module("claimhop.program.verify.alternatives.verify_facts"), "judge_pair", lambda *args: neutral)
    _, final, engine = run(monkeypatch, small_corpus, answers(), verifier="facts", planner="one_call")
    assert engine.calls.count("sub_questions") == 1 and engine.calls.count("facts") == 1  # plan, then the split
    assert final["sub_questions"][1] == "Who is Steve Augeri?" and final["gap_queries"] == ["Steve Augeri"]
    assert [f["fact"] for f in final["facts"]] == ["Cherie Currie is American.", "Steve Augeri is American."]


def test_the_gap_loop_runs_when_a_name_of_the_claim_has_no_document(monkeypatch, small_corpus):
    lm, engine = fake_lm(answers(complete=True))
    monkeypatch.setattr(claimhop.program.runtime, "get_lm", lambda model: lm)
    ctx = {"corpus_path": str(small_corpus), "use_optimized_program": False, "verifier": "single"}
    final = graph.invoke({"claim": "Cherie Currie and Quentin Zyxwvutsky were both American."}, context=ctx)
    assert engine.calls.count("missing") == 1 and final["verdict"]


def test_loop_is_skipped_when_turned_off(monkeypatch, small_corpus):
    updates, _, engine = run(monkeypatch, small_corpus, answers(), max_iterations=0, gap_loop_when="always")
    assert "gap_loop" not in updates
    assert "missing" not in engine.calls


def test_bridge_keeps_only_real_candidates(monkeypatch, small_corpus):
    _, final, engine = run(monkeypatch, small_corpus, answers(), max_iterations=0, phase1_k=2, phase2_k=2,
                           bridge_pick="lm")
    assert "entities" in engine.calls
    assert "Not A Candidate" not in final.get("bridge_entities", [])


def test_hops_record_queries_and_titles(monkeypatch, small_corpus):
    _, final, _ = run(monkeypatch, small_corpus, answers(), max_iterations=1, **FULL_DESIGN)
    steps = {h["step"] for h in final["hops"]}
    assert {"phase1", "phase2", "gap_loop_1"} <= steps
    assert all(isinstance(h["titles"], list) and h["query"] for h in final["hops"])


def test_model_fault_degrades_the_step_and_the_run_still_answers(monkeypatch, small_corpus):
    reply = answers()
    reply["facts"] = RuntimeError("model crashed")  # the default planner's one call
    reply["evidence_ids"] = TimeoutError("model timed out")
    _, final, _ = run(monkeypatch, small_corpus, reply, max_iterations=1)
    assert final["verdict"] == "INSUFFICIENT_INFO"
    assert any(d.startswith("decompose") for d in final["degraded"])
    assert any(d.startswith("verify") for d in final["degraded"])
    assert "fell back" in final["answer"]


@pytest.mark.parametrize("bad", ["", "   \n\t ", 42, "x" * 5000])
def test_bad_claims_are_rejected_with_a_clear_error(bad):
    with pytest.raises(ValueError, match="claim"):
        graph.invoke({"claim": bad})


def test_a_second_claim_on_the_same_thread_starts_afresh(monkeypatch, small_corpus):
    from langchain_core.messages import HumanMessage
    from langgraph.checkpoint.memory import InMemorySaver

    from graph import build_graph

    reply = answers()  # the fake's facts are the same for both claims: none of them is the first claim's text
    reply["facts"] = {"facts": ["Cherie Currie sang.", "Steve Augeri sang."], "entities": ["Steve Augeri"]}
    lm, _ = fake_lm(reply)
    monkeypatch.setattr(claimhop.program.runtime, "get_lm", lambda model: lm)
    chat = build_graph().compile(checkpointer=InMemorySaver())
    thread = {"configurable": {"thread_id": "t1"}}
    ctx = {"corpus_path": str(small_corpus), "use_optimized_program": False, "max_iterations": 1, "verifier": "single"}
    first = chat.invoke({"messages": [HumanMessage("Steve Augeri is American.")]}, thread, context=ctx)
    second = chat.invoke({"messages": [HumanMessage("Cherie Currie sang for The Runaways.")]}, thread, context=ctx)
    assert first["claim"] == "Steve Augeri is American."
    assert second["claim"] == "Cherie Currie sang for The Runaways."
    assert second["hops"][0]["query"] == "Cherie Currie sang for The Runaways."
    assert all(hop["query"] != "Steve Augeri is American." for hop in second["hops"])
    assert second["lm_calls"] == first["lm_calls"]  # counted per run, not summed over the thread
    assert len(second["messages"]) > len(first["messages"])  # the conversation itself is kept


def test_a_one_megabyte_claim_or_bytes_are_refused_before_any_work():
    from graph import check_claim

    with pytest.raises(ValueError, match="1000000 characters long; the limit is 2000"):
        check_claim("x" * 1_000_000)
    with pytest.raises(ValueError, match="claim must be a string, got bytes"):
        check_claim(b"Steve Augeri is American.")


def test_control_characters_are_removed_and_other_scripts_kept():
    from state.validation import validate_claim

    assert validate_claim("Steve\x00Augeri\x1b[0m is\tAmerican.\u200b") == "Steve Augeri [0m is American."
    assert validate_claim("  Angela Merkel war Bundeskanzlerin.  ") == "Angela Merkel war Bundeskanzlerin."
    assert validate_claim("東京は日本の首都である。") == "東京は日本の首都である。"


@pytest.mark.parametrize("steps_off", ["", "gap_loop,mitigate", "verify", "decompose,early_gap,bridge"])
def test_the_model_calls_a_check_reports_are_the_calls_the_model_received(monkeypatch, small_corpus, steps_off):
    """`lm_calls` counts calls made: a step the run switched off (its fallback answers) is not counted."""
    _, final, engine = run(monkeypatch, small_corpus, answers(), max_iterations=1, top_k=5, loop_k=2,
                           model_steps_off=steps_off, **FULL_DESIGN)
    assert final["lm_calls"] == len(engine.calls), (final["lm_calls"], len(engine.calls))
