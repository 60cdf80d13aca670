"""Model faults injected into one step at a time: the node is retried by its RetryPolicy, then falls back, and the
run always ends with an answer that names the degraded step and why."""

from __future__ import annotations

import time

import pytest
from fakes import fake_lm
from test_graph_routing import FULL_DESIGN, answers

import claimhop.program.runtime
from claimhop.lm.local_engine import LocalModelError
from graph import graph

CLAIM = "Cherie Currie and Steve Augeri were both American."


def run(monkeypatch, corpus, reply: dict, **settings) -> tuple[dict, list[str], list[dict]]:
    lm, engine = fake_lm(reply)
    monkeypatch.setattr(claimhop.program.runtime, "get_lm", lambda model: lm)
    ctx = {"corpus_path": str(corpus), "use_optimized_program": False, "max_iterations": 0, "verifier": "single",
           **FULL_DESIGN, **settings}
    final, events = None, []
    for mode, chunk in graph.stream({"claim": CLAIM}, context=ctx, stream_mode=["values", "custom"]):
        if mode == "values":
            final = chunk
        else:
            events.append(chunk)
    return final, engine.calls, events


def flaky(fault: Exception, then: dict):
    """Fails on the first call, answers on the next ones."""
    calls = {"n": 0}

    def reply():
        calls["n"] += 1
        return fault if calls["n"] == 1 else then
    return reply


def test_a_transient_fault_is_retried_and_the_step_is_not_degraded(monkeypatch, small_corpus):
    reply = answers()
    reply["sub_questions"] = flaky(RuntimeError("connection reset"), reply["sub_questions"])
    final, calls, events = run(monkeypatch, small_corpus, reply)
    assert calls.count("sub_questions") == 2
    assert final["sub_questions"] == answers()["sub_questions"]["sub_questions"]
    assert not final["degraded"]
    assert any(e["node"] == "decompose" and e["event"] == "retry" for e in events)


FAULTS = {
    "raises": RuntimeError("model crashed"),
    "context window": LocalModelError("the request exceeds the available context size, try increasing it"),
    "malformed output": "Sorry, I cannot help with that.",
    "empty output": {"sub_questions": []},
    "wrong shape": {"sub_questions": "not a list", "extra": 1},
}


@pytest.mark.parametrize("fault", FAULTS.values(), ids=FAULTS.keys())
def test_a_persistent_fault_falls_back_after_the_attempts_and_the_run_answers(monkeypatch, small_corpus, fault):
    reply = answers()
    reply["sub_questions"] = fault
    final, calls, _ = run(monkeypatch, small_corpus, reply, model_attempts=3)
    assert calls.count("sub_questions") == 3  # tried model_attempts times
    assert final["sub_questions"] == [CLAIM]  # the fallback: the claim itself is the query
    assert len(final["degraded"]) == 1 and final["degraded"][0].startswith("decompose: ")
    assert "after 3 attempts" in final["degraded"][0]
    assert final["verdict"] == "SUPPORTED" and "fell back to a simpler method: decompose" in final["answer"]


def test_a_model_call_that_hangs_times_out_and_the_run_still_ends(monkeypatch, small_corpus):
    reply = answers()

    def hang():
        time.sleep(3)
        return reply["evidence_ids"]
    reply["evidence_ids"] = hang
    started = time.perf_counter()
    final, _, _ = run(monkeypatch, small_corpus, reply, model_timeout_s=1, model_attempts=1)
    assert time.perf_counter() - started < 30
    assert final["verdict"] == "INSUFFICIENT_INFO"  # verify's fallback never claims support
    assert any(d.startswith("verify: ModelTimeout: no answer within 1 s") for d in final["degraded"])
    assert final["answer"].startswith("Verdict: INSUFFICIENT_INFO")


@pytest.mark.parametrize("step, key", [("early_gap", "facts_needed"), ("bridge", "entities"), ("verify", "evidence_ids"),
                                       ("mitigate", "statements")])
def test_every_model_step_degrades_instead_of_failing(monkeypatch, small_corpus, step, key):
    reply = answers()
    reply[key] = RuntimeError(f"{step} broke")
    final, _, _ = run(monkeypatch, small_corpus, reply, model_attempts=1)
    assert any(d.startswith(f"{step}: ") and f"{step} broke" in d for d in final["degraded"])
    assert final["answer"].startswith("Verdict: ")
