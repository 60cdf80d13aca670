"""The speed work's levers, each checked as a user would see it: what a model step costs is recorded per step, a
step can be turned off (its fallback, no model call), the gap loop's coverage check, the compact JSON grammar,
the first documents before any model call, and the benchmarks' own arithmetic."""

from __future__ import annotations

import json

import pytest
from fakes import fake_lm
from test_graph_routing import answers

import claimhop.program.runtime
from graph import graph

CLAIM = "Cherie Currie and Steve Augeri were both American."


def stream(monkeypatch, corpus, reply: dict, claim: str = CLAIM, **settings):
    lm, engine = fake_lm(reply)
    monkeypatch.setattr(claimhop.program.runtime, "get_lm", lambda model: lm)
    ctx = {"corpus_path": str(corpus), "use_optimized_program": False, "verifier": "single", **settings}
    events, final = [], None
    for mode, chunk in graph.stream({"claim": claim}, context=ctx, stream_mode=["custom", "values"]):
        if mode == "custom":
            events.append(chunk)
        else:
            final = chunk
    return final, events, engine


def test_the_claims_own_documents_are_shown_before_any_model_step(monkeypatch, small_corpus):
    final, events, _ = stream(monkeypatch, small_corpus, answers())
    kinds = [(e["node"], e["event"]) for e in events]
    first_model_event = kinds.index(("decompose", "sub_questions"))
    documents = kinds.index(("search_claim", "documents"))
    assert documents < first_model_event
    shown = events[documents]["documents"]
    assert shown and {"rank", "title", "snippet"} <= set(shown[0])
    assert any("First documents" in m.content for m in final["messages"] if getattr(m, "name", "") == "search_claim")


@pytest.mark.parametrize("step, field", [("plan", "facts"), ("bridge", "entities"), ("verify", "evidence_ids")])
def test_a_step_turned_off_uses_its_fallback_without_asking_the_model(monkeypatch, small_corpus, step, field):
    settings = {"bridge_pick": "lm"} if step == "bridge" else {}
    final, _, engine = stream(monkeypatch, small_corpus, answers(), model_steps_off=step, **settings)
    assert field not in engine.calls
    assert not final["degraded"]  # a deliberate choice, not a failure
    assert final["answer"].startswith("Verdict: ")
    if step == "plan":
        assert final["sub_questions"] == [CLAIM]


def test_an_unknown_step_to_turn_off_is_a_clear_error():
    from state.context import Context

    with pytest.raises(ValueError, match="model_steps_off names no model step: decompse"):
        Context(model_steps_off="decompse")


def test_each_steps_model_use_is_recorded_apart_and_survives_the_worker_thread():
    from claimhop.lm.call_watch import with_timeout
    from claimhop.lm.usage import LEDGER, model_step, usage_between

    before = LEDGER.snapshot()
    with model_step("plan"):
        with_timeout(lambda: LEDGER.record(prompt=300, output=40, cached=200, seconds=2.5, asked=True), 5)
    with model_step("claim_split"):
        LEDGER.asked()  # answered from DSPy's cache: asked, never served by the model
    used = usage_between(before, LEDGER.snapshot())
    assert used["plan"] == {"asked": 1, "calls": 1, "prompt_tokens": 300, "output_tokens": 40, "cached_tokens": 200,
                            "seconds": 2.5}
    assert used["claim_split"]["asked"] == 1 and used["claim_split"]["calls"] == 0


def test_only_names_without_any_document_count_as_uncovered():
    from claimhop.entities.coverage import uncovered_entities

    docs = [{"title": "Cherie Currie", "text": "Cherie Currie is an American singer."},
            {"title": "Foxes (soundtrack)", "text": "The soundtrack of the film Foxes, with The Runaways."}]
    assert uncovered_entities(["Cherie Currie", "The Runaways", "Steve Augeri"], docs) == ["Steve Augeri"]
    assert uncovered_entities([], docs) == []


def test_compact_json_leaves_no_room_for_line_breaks_between_json_tokens():
    from claimhop.lm.local_engine import compact_gbnf, compact_schema

    # llama.cpp's GBNF for {"facts": [str]} as its converter writes it (a build without llguidance)
    gbnf = "\n".join([
        'facts ::= "[" space (string ("," space string)*)? space "]"',
        'facts-kv ::= "\\"facts\\"" space ":" space facts',
        'root ::= "{" space facts-kv space "}"',
        'space ::= | " " | "\\n"{1,2} [ \\t]{0,20}',
    ])
    compact = compact_gbnf(gbnf)
    assert [line for line in compact.splitlines() if line.startswith("space ::=")] == ['space ::= " "?']
    assert compact.splitlines()[:3] == gbnf.splitlines()[:3]
    schema = {"type": "object", "properties": {"facts": {"type": "array"}}, "required": ["facts"]}
    assert compact_schema(schema) == {  # llguidance builds: no whitespace, not even after "," and ":"
        **schema, "x-guidance": {"whitespace_flexible": False, "item_separator": ",", "key_separator": ":"}}
    assert list(compact_schema(schema)["properties"]) == ["facts"]  # fields keep their order


def test_engine_options_come_from_the_environment_and_bad_values_are_named(monkeypatch):
    from claimhop.lm.local_engine import EngineOptions

    monkeypatch.setenv("CLAIMHOP_LLM_THREADS", "3")
    assert EngineOptions.from_env().thread_count() == 3
    monkeypatch.setenv("CLAIMHOP_LLM_THREADS", "many")
    with pytest.raises(ValueError, match="CLAIMHOP_LLM_THREADS='many' is not an integer"):
        EngineOptions.from_env()
    monkeypatch.delenv("CLAIMHOP_LLM_THREADS")
    assert EngineOptions.from_env().thread_count() >= 1  # 0 means every core this process may use


def test_recall_only_eval_stops_after_selection_and_keys_its_rows_apart(monkeypatch, small_corpus, tmp_path):
    from claimhop.evaluation.systems import make_systems
    from graph.runs import claimhop_system

    lm, engine = fake_lm(answers())
    monkeypatch.setattr(claimhop.program.runtime, "get_lm", lambda model: lm)
    settings = {"corpus_path": str(small_corpus), "use_optimized_program": False, "verifier": "single"}
    row = make_systems(["claimhop"], settings, recall_only=True, claimhop=claimhop_system)["claimhop"](CLAIM)
    assert row["titles"] and row["verdict"] is None
    assert "evidence_ids" not in engine.calls  # no verdict was paid for
    assert row["steps"]["plan"]["asked"] == 1  # the fake is no local engine: it serves nothing the ledger sees


def test_the_evaluation_runs_claimhop_only_as_its_caller_hands_it_in():
    """The graph sits above the evaluation: "claimhop" is made by the system the console commands pass
    (graph.runs.claimhop_system), with the run's settings and recall_only; without one it is refused by name."""
    from claimhop.evaluation.systems import make_systems

    with pytest.raises(ValueError, match="claimhop=graph.runs.claimhop_system"):
        make_systems(["claimhop"], {})
    made = []
    systems = make_systems(["claimhop"], {"top_k": 5}, recall_only=True,
                           claimhop=lambda settings, recall_only: made.append((settings, recall_only)) or len)
    assert made == [({"top_k": 5}, True)] and systems == {"claimhop": len}


def test_the_benchmark_sample_is_stratified_by_hops_and_seeded():
    from benchmarks.speed import SAMPLE, stratified_sample

    sample = stratified_sample(40, 0)
    assert len(sample) == 40
    assert {c["num_hops"] for c in sample} == {2, 3, 4}
    committed = [json.loads(line)["uid"] for line in SAMPLE.read_text().splitlines()]
    assert [c["uid"] for c in sample] == committed  # the committed file is what the code draws


def test_benchmark_figures_and_paired_counts():
    from claimhop.evaluation.report import all_gold, paired
    from claimhop.evaluation.run_summary import figures

    def row(uid, seconds, recall, verdict, label, hops=3):
        return {"uid": uid, "seconds": seconds, "recall@21": recall, "verdict": verdict, "label": label,
                "num_hops": hops, "cache_hits": 0,
                "steps": {"plan": {"calls": 1, "prompt_tokens": 100, "output_tokens": 20, "cached_tokens": 0}}}

    old = {u: row(u, s, r, "SUPPORTED", "SUPPORTED") for u, s, r in [("a", 60, 0), ("b", 70, 0), ("c", 80, 1)]}
    new = {u: row(u, s, r, v, "SUPPORTED") for u, s, r, v in
           [("a", 20, 1, "SUPPORTED"), ("b", 25, 1, "SUPPORTED"), ("c", 30, 1, "INSUFFICIENT_INFO")]}
    fig = figures(list(new.values()))
    assert fig["median_s"] == 25 and fig["p90_s"] == 30 and fig["calls"] == 1 and fig["output_tokens"] == 20
    assert fig["found_all"] == 3 and fig["recall_3hop"] == 1.0
    assert fig["macro_f1"] == (0.8 + 0.0) / 2  # SUPPORTED: 2 right, 1 missed (F1 0.8); NOT_SUPPORTED: none
    assert paired(new, old, all_gold)[:2] == (2, 0)  # new finds a and b that old misses; old finds none new misses


def test_a_retry_samples_a_new_reply_instead_of_replaying_the_failed_one(monkeypatch):
    import dspy

    from claimhop.program.runtime import RETRY_TEMPERATURE, call_lm
    from state.context import Context

    lm, _ = fake_lm(answers())
    monkeypatch.setattr(claimhop.program.runtime, "get_lm", lambda model: lm)
    seen = []
    for attempt in (1, 2):
        monkeypatch.setattr(claimhop.program.runtime, "node_attempt", lambda attempt=attempt: attempt)
        call_lm(Context(), "decompose", lambda: seen.append(dict(dspy.settings.lm.kwargs)), list)
    assert seen[0].get("rollout_id") is None and seen[0]["temperature"] != RETRY_TEMPERATURE  # first try: as set
    assert seen[1]["rollout_id"] == 2 and seen[1]["temperature"] == RETRY_TEMPERATURE  # a retry: another sample


def test_the_gap_loop_stops_when_its_next_prompt_would_show_the_same_documents():
    """A round that found documents ranked below the ones shown would ask the same prompt again (the same greedy
    answer, its queries already asked): no second round then, but one when the shown documents change."""
    from types import SimpleNamespace

    from claimhop.program.gap import found_so_far
    from graph.routers import route_after_gap_loop

    def doc(title: str, score: float) -> dict:
        return {"title": title, "text": f"{title} is a document.", "retrieval_score": score}

    candidates = {f"D{i}": doc(f"D{i}", 10 - i) for i in range(8)}
    runtime = SimpleNamespace(context={"max_iterations": 3})
    shown = found_so_far(candidates)
    low = {**candidates, "Low": doc("Low", 0.1)}  # new, but below the eight shown
    state = {"iteration": 1, "gap_complete": False, "new_last_round": 1, "gap_shown": shown}
    assert route_after_gap_loop({**state, "candidates": low}, runtime) == "later_links"
    high = {**candidates, "High": doc("High", 99.0)}
    assert route_after_gap_loop({**state, "candidates": high}, runtime) == "gap_loop"


def test_the_local_models_prompt_leaves_out_the_structure_its_grammar_enforces():
    """The local engine turns the reply's JSON schema into a grammar, so its prompt carries the fields and the
    task but not DSPy's JSON template, schema notes and reminder; another model gets DSPy's JSONAdapter."""
    import dspy

    from claimhop.lm.adapter import SchemaBoundJSONAdapter, adapter_for
    from claimhop.signatures import PlanClaimAsFacts

    assert isinstance(adapter_for("local"), SchemaBoundJSONAdapter)
    assert type(adapter_for("openai/gpt-4o-mini")) is dspy.JSONAdapter
    inputs = {"claim": CLAIM}
    lean = adapter_for("local").format(PlanClaimAsFacts, demos=[], inputs=inputs)
    full = dspy.JSONAdapter().format(PlanClaimAsFacts, demos=[], inputs=inputs)
    system, user = lean[0]["content"], lean[1]["content"]
    assert "`facts` (list[str]): 1-4 atomic facts" in system and "Chandgi Ram" in system
    assert '"facts", "entities"' in system and CLAIM in user
    assert "JSON schema" not in system and "Respond with" not in user
    assert len(system) + len(user) < 0.7 * sum(len(m["content"]) for m in full)


def test_the_terse_plans_made_up_examples_are_one_fixed_prefix_before_every_claim():
    """plan_examples=terse shows two worked examples of short facts before the claim: the same messages for every
    claim (so llama.cpp's prompt cache keeps them), none of them a claim of the dev set or the HotpotQA sample."""
    from benchmarks.lab.hotpotqa import SAMPLE
    from claimhop.evaluation.data import DEV_CLAIMS, load_claims
    from claimhop.lm.adapter import adapter_for
    from claimhop.program.plan.stage import TERSE_EXAMPLES, Plan
    from claimhop.signatures import PlanClaimAsFacts
    from state.context import Context

    demos = Plan(Context(plan_examples="terse")).facts.demos
    first = adapter_for("local").format(PlanClaimAsFacts, demos=demos, inputs={"claim": CLAIM})
    other = adapter_for("local").format(PlanClaimAsFacts, demos=demos, inputs={"claim": "Paris is in France."})
    assert first[:-1] == other[:-1] and CLAIM in first[-1]["content"]
    assert any("Chandgi Ram won gold in 1970." in m["content"] for m in first[:-1])
    assert not Plan(Context(plan_examples="none")).facts.demos
    evaluated = {c["claim"] for c in load_claims(DEV_CLAIMS) + load_claims(SAMPLE)}
    assert not evaluated & {example.claim for example in TERSE_EXAMPLES}


def test_compact_replies_are_shown_compact_in_the_worked_examples(monkeypatch):
    # the plan's worked examples are the model's model of a reply: shown pretty-printed, they invite the line breaks
    # the compact grammar forbids
    import dspy

    from claimhop.lm.adapter import adapter_for
    from claimhop.lm.provider import LOCAL
    from claimhop.program.plan.stage import TERSE_EXAMPLES
    from claimhop.signatures import PlanClaimAsFacts

    example = TERSE_EXAMPLES[1]
    for flag, expected in (("1", '{"facts":["Chandgi Ram won gold in 1970.",'), ("0", '{\n  "facts": [\n')):
        monkeypatch.setenv("CLAIMHOP_LLM_COMPACT_JSON", flag)
        messages = adapter_for(LOCAL).format(PlanClaimAsFacts, [example], {"claim": "A claim."})
        replies = [m["content"] for m in messages if m["role"] == "assistant"]
        assert replies and replies[0].startswith(expected)
    assert isinstance(adapter_for("openai/gpt-4o-mini"), dspy.JSONAdapter)
