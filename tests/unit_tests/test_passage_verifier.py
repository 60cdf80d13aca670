"""The passage verifier (verifier=passages): which passages are read, the head's decision and its file's checks,
the quotes for each fact, and the verify node's answer, with a fake engine standing in for the model's pass."""

from __future__ import annotations

import importlib
import json
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from claimhop.program.explain import fact_lines
from claimhop.program.verify import head as head_module
from claimhop.program.verify.head import (
    HeadError,
    Logistic,
    VerdictHead,
    decide,
    load_head,
    save_head,
)
from claimhop.program.verify.quotes import quotes_for
from claimhop.program.verify.reading import (
    MODEL_BLOCKS,
    NEW_HEAD_BLOCKS,
    NEW_HEAD_BUDGET,
    NEW_HEAD_READING,
    PASSAGE_CAP,
    READINGS,
    RULE_BUDGET,
    passage_messages,
    passages_read,
    reading_rule,
)

CURRIE = ("Cherie Ann Currie (born November 30, 1959) is an American musician (instrumentalist, singer, songwriter), "
          "actress and artist. Currie was the lead vocalist of the Runaways, a rock band from Los Angeles, in the "
          "mid-to-late 1970s. After the Runaways, she became a solo artist. She is also well known for her role in "
          "the movie \"Foxes\".")
FILM = ("The Runaways is a 2010 American drama film about the 1970s rock band of the same name written and directed "
        "by Floria Sigismondi. It is based on the book \"Neon Angel: A Memoir of a Runaway\" by the band's original "
        "lead vocalist Cherie Currie.")
AUGERI = ("Steve Augeri (born January 30, 1959) is an American rock singer best known for his work with Tall Stories, "
          "Tyketto, and Journey.")
DOCS = [{"title": "The Runaways (film)", "text": FILM}, {"title": "Steve Augeri", "text": AUGERI},
        {"title": "Cherie Currie", "text": CURRIE}]


def within(budget: int, name: str = "chain-order-1"):
    return replace(READINGS[name], budget=budget)


def test_passages_are_read_whole_in_selection_order_within_the_budget():
    docs = [{"title": f"D{i}", "text": "x" * 500} for i in range(10)]
    read = passages_read(docs, None, within(1600))
    assert [p["title"] for p in read] == ["D0", "D1", "D2"]  # 3 x ~506 characters fit in 1,600
    assert all(p["text"] == "x" * 500 for p in read)
    # one too long for what is left is skipped, a shorter one after it still fits
    mixed = [{"title": "A", "text": "a" * 900}, {"title": "B", "text": "b" * 900}, {"title": "C", "text": "c" * 200}]
    assert [p["title"] for p in passages_read(mixed, None, within(1200))] == ["A", "C"]
    # a passage longer than the cap is cut at a sentence end; the first is always read
    long = [{"title": "L", "text": " ".join(f"Sentence number {i} is here." for i in range(200))}]
    read = passages_read(long, None, within(10))
    assert len(read) == 1 and len(read[0]["text"]) <= PASSAGE_CAP and read[0]["text"].endswith(".")


def test_passages_are_read_in_the_order_of_the_claims_chain():
    from claimhop.program.verify.reading import chain_order

    selected = [{"title": "Casablanca (film)", "text": "A 1942 film."}, *DOCS,
                {"title": "Foxes (soundtrack)", "text": "Foxes is the soundtrack ... as well as Cherie Currie."}]
    claim = "The Runaways' lead singer, who starred in Foxes (soundtrack), and Steve Augeri were both American."
    order = [d["title"] for d in chain_order(claim, selected, READINGS["chain-order-1"])]
    # named by the claim first, then what they name (the next hop), then the rest, each in selection order
    assert order == ["The Runaways (film)", "Steve Augeri", "Foxes (soundtrack)", "Cherie Currie", "Casablanca (film)"]
    budgeted = passages_read(selected, claim, within(700))
    assert [p["title"] for p in budgeted][:2] == ["The Runaways (film)", "Steve Augeri"]


def test_the_prompt_holds_the_claim_and_every_passage_read():
    messages = passage_messages("Steve Augeri is American.", DOCS[:2])
    user = messages[1]["content"]
    assert messages[0]["role"] == "system" and "supported" in messages[0]["content"]
    assert "[The Runaways (film)] The Runaways is a 2010" in user and "[Steve Augeri]" in user
    assert "Claim: Steve Augeri is American." in user


def test_three_verdicts_from_the_two_heads():
    assert decide(0.8, 0.9, 0.5) == ("SUPPORTED", 0.8)
    assert decide(0.3, 0.7, 0.5) == ("CONTRADICTED", 0.7)
    assert decide(0.3, 0.2, 0.5) == ("INSUFFICIENT_INFO", 0.7)


def tiny_head(dim: int = 4, support_bias: float = 0.0) -> VerdictHead:
    rows = np.zeros((4, dim))
    rows[0, 0] = rows[1, 0] = 1.0  # "Yes"/"yes" read the first coordinate, "No"/"no" the second
    rows[2, 1] = rows[3, 1] = 1.0
    weights = np.zeros(dim + 1)
    weights[0] = 2.0
    return VerdictHead(mean=np.zeros(dim + 1), scale=np.ones(dim + 1), answer_rows=rows,
                       support=Logistic(weights, support_bias), kind=Logistic(np.zeros(dim + 1), 1.0),
                       threshold=0.5, yes_calibration=(1.0, 0.0), folds={"seen": 0},
                       fold_support=[Logistic(-weights, 0.0)])


def test_the_yes_logit_is_read_from_the_state_and_a_seen_claim_gets_its_fold_head():
    head = tiny_head()
    state = np.array([3.0, 1.0, 0.0, 0.0])
    assert head.yes_logit(state) == pytest.approx(2.0)  # log(2e^3) - log(2e^1)
    assert head.probabilities(state)["supported"] > 0.99
    assert head.probabilities(state, "seen")["supported"] < 0.01  # the fold head, trained without that claim
    assert head.probabilities(state)["yes"] == pytest.approx(1 / (1 + np.exp(-2.0)))


def head_arrays(dim: int = 4) -> dict:
    return {"mean": np.zeros(dim + 1), "scale": np.ones(dim + 1), "answer_rows": np.zeros((4, dim)),
            "support_weights": np.zeros(dim + 1), "support_bias": np.array(0.0), "kind_weights": np.zeros(dim + 1),
            "kind_bias": np.array(0.0), "threshold": np.array(0.5), "yes_calibration": np.array([1.0, 0.0]),
            "fold_weights": np.zeros((0, dim + 1)), "fold_biases": np.zeros(0)}


def test_a_missing_or_mismatched_head_file_names_the_command_that_makes_it(tmp_path, monkeypatch):
    from claimhop.lm.weights import QWEN_CODER_1_5B

    monkeypatch.setattr(head_module, "_LOADED", {})
    with pytest.raises(HeadError, match="claimhop train-verifier"):
        load_head(tmp_path / "none.npz", tmp_path / "none.json")
    npz, meta = tmp_path / "head.npz", tmp_path / "head.json"
    save_head(head_arrays(), {"model_sha256": QWEN_CODER_1_5B.sha256, "prompt": "another"}, npz, meta)
    with pytest.raises(HeadError, match="another model or prompt.*claimhop train-verifier"):
        load_head(npz, meta)
    # the default reading and layer as a provenance without a budget names them (a head from before budgets)
    rule = reading_rule(budget=RULE_BUDGET)
    save_head(head_arrays(), {"model_sha256": QWEN_CODER_1_5B.sha256, "prompt": rule.version(), "reading": rule.name,
                              "read_blocks": rule.blocks}, npz, meta)
    assert load_head(npz, meta).threshold == 0.5 and load_head(npz, meta).contradiction is None
    # a head file with a contradiction part (benchmarks.pair_heads --three-ways) loads it
    with_part = {**head_arrays(), "contradiction_mean": np.zeros(4), "contradiction_scale": np.ones(4),
                 "contradiction_weights": np.array([0.0, 0.0, 1.0, 0.0]), "contradiction_bias": np.array(0.0)}
    save_head(with_part, {"model_sha256": QWEN_CODER_1_5B.sha256, "prompt": rule.version(), "reading": rule.name,
                          "read_blocks": rule.blocks}, tmp_path / "part.npz", tmp_path / "part.json")
    part = load_head(tmp_path / "part.npz", tmp_path / "part.json").contradiction
    assert part.probability(np.array([0.0, 0.0, 5.0, 0.0])) > 0.99
    # a head whose provenance names no layer predates layers: it was read after all of them, so a middle layer's
    # prompt version does not match it
    monkeypatch.setattr(head_module, "_LOADED", {})
    save_head(head_arrays(), {"model_sha256": QWEN_CODER_1_5B.sha256, "prompt": reading_rule(blocks=21, budget=RULE_BUDGET).version()},
              npz, meta)
    with pytest.raises(HeadError, match="another model or prompt"):
        load_head(npz, meta)


def test_a_head_reads_the_passages_the_way_it_was_trained(tmp_path, monkeypatch):
    """The head's provenance names its reading and layer; the run reads that way, and a head naming a reading this
    version does not know is refused with the command that retrains it."""
    from claimhop.lm.weights import QWEN_CODER_1_5B

    monkeypatch.setattr(head_module, "_LOADED", {})
    npz, meta = tmp_path / "head.npz", tmp_path / "head.json"
    rule = reading_rule("chain-order-2", 21, RULE_BUDGET)
    save_head(head_arrays(), {"model_sha256": QWEN_CODER_1_5B.sha256, "prompt": rule.version(),
                              "reading": "chain-order-2", "read_blocks": 21}, npz, meta)
    assert load_head(npz, meta).reading == rule
    assert rule.version() not in (reading_rule("chain-order-2", MODEL_BLOCKS, RULE_BUDGET).version(),
                                  reading_rule(blocks=MODEL_BLOCKS, budget=RULE_BUDGET).version())  # the layer is part of the prompt
    monkeypatch.setattr(head_module, "_LOADED", {})
    save_head(head_arrays(), {"model_sha256": QWEN_CODER_1_5B.sha256, "prompt": rule.version(),
                              "reading": "chain-order-9"}, npz, meta)
    with pytest.raises(HeadError, match="unknown reading 'chain-order-9'.*claimhop train-verifier"):
        load_head(npz, meta)


def test_a_head_trained_on_another_budget_reads_that_many_characters(tmp_path, monkeypatch):
    """`claimhop train-verifier --budget 3000` names the budget in the provenance; the run reads as many characters
    (more passages than the default), the budget is part of the prompt version, and a budget no context holds is
    a clear error."""
    from claimhop.lm.weights import QWEN_CODER_1_5B

    monkeypatch.setattr(head_module, "_LOADED", {})
    npz, meta = tmp_path / "head.npz", tmp_path / "head.json"
    rule = reading_rule("chain-order-1", 21, 3000)
    save_head(head_arrays(), {"model_sha256": QWEN_CODER_1_5B.sha256, "prompt": rule.version(), "reading": rule.name,
                              "read_blocks": 21, "passage_budget_chars": 3000}, npz, meta)
    assert load_head(npz, meta).reading == rule and rule.budget == 3000
    assert rule.version() != reading_rule("chain-order-1", 21, RULE_BUDGET).version()
    selected = [{"title": f"Article {i}", "text": f"Article {i} is about a thing. " * 25} for i in range(8)]
    default = passages_read(selected, "Article 1 is a thing.", reading_rule("chain-order-1", 21, RULE_BUDGET))
    more = passages_read(selected, "Article 1 is a thing.", rule)
    assert len(more) > len(default) and sum(len(p["text"]) for p in more) <= 3000
    with pytest.raises(ValueError, match="passage budget must be 500-12000 characters, not 50"):
        reading_rule(budget=50)


def test_a_head_of_ones_own_is_used_when_claimhop_verifier_head_names_it(tmp_path, monkeypatch):
    """`claimhop train-verifier --out FILE` writes FILE and FILE's .json; CLAIMHOP_VERIFIER_HEAD=FILE makes runs read
    that head instead of the bundled one, and a name with no head behind it is a clear error."""
    from claimhop.lm.weights import QWEN_CODER_1_5B

    monkeypatch.setattr(head_module, "_LOADED", {})
    npz = tmp_path / "mine.npz"
    rule = reading_rule("chain-order-1", 21)
    save_head(head_arrays(), {"model_sha256": QWEN_CODER_1_5B.sha256, "prompt": rule.version(),
                              "reading": "chain-order-1", "read_blocks": 21, "passage_budget_chars": rule.budget},
              npz, npz.with_suffix(".json"))
    monkeypatch.setenv("CLAIMHOP_VERIFIER_HEAD", str(npz))
    assert head_module.head_file() == npz and load_head().reading == rule
    monkeypatch.setenv("CLAIMHOP_VERIFIER_HEAD", str(tmp_path / "none.npz"))
    with pytest.raises(HeadError, match="none.npz .CLAIMHOP_VERIFIER_HEAD names it. is missing.*train-verifier"):
        load_head()
    monkeypatch.delenv("CLAIMHOP_VERIFIER_HEAD")
    assert head_module.head_file() == head_module.HEAD_FILE


def test_chain_order_2_follows_names_as_claims_write_them_and_leads_the_rest():
    """chain-order-2: a name matches without its accent or possessive, one season of a named series stays on the
    chain, chain passages are cut at 600 characters and the rest to a 300-character lead."""
    long = " ".join(f"Sentence {i} of the article says a thing." for i in range(40))
    selected = [{"title": "Other", "text": long},
                {"title": "Gisèle Bündchen", "text": "Gisèle Bündchen is a model. " + long},
                {"title": "The Apprentice (season 8)", "text": "Season 8."},
                {"title": "The Apprentice (season 13)", "text": "Season 13."}]
    claim = "Gisele Bundchen's husband was on The Apprentice (season 13)."
    order = [p["title"] for p in passages_read(selected, claim, READINGS["chain-order-2"])]
    assert order == ["Gisèle Bündchen", "The Apprentice (season 13)", "Other", "The Apprentice (season 8)"]
    assert [p["title"] for p in passages_read(selected, claim, READINGS["chain-order-1"])][0] != "Gisèle Bündchen"
    read = {p["title"]: p["text"] for p in passages_read(selected, claim, READINGS["chain-order-2"])}
    assert 300 < len(read["Gisèle Bündchen"]) <= 600 and len(read["Other"]) <= 300
    with pytest.raises(ValueError, match="unknown reading"):
        reading_rule("chain-order-0")


def test_the_shipped_head_loads_and_says_what_it_was_trained_on():
    head = load_head()
    provenance = head.provenance
    assert provenance["command"] == "claimhop train-verifier"
    assert provenance["training_data"]["synthetic"]["items"] > 100
    # the three-document claims and the synthetic claims on retrieved documents, each file named with its sha256
    assert provenance["training_data"]["chains"]["items"] > 100 and len(provenance["training_data"]["chains"]["sha256"]) == 64
    assert provenance["training_data"]["synthetic_retrieved"]["items"] > 200
    assert head.mean.shape == head.support.weights.shape == (1537,)
    assert len(head.fold_support) == provenance["folds"] and len(head.folds) == 169
    # what `claimhop train-verifier` with no option remakes: its default reading, layer and passage budget
    assert head.reading == reading_rule(NEW_HEAD_READING, NEW_HEAD_BLOCKS, NEW_HEAD_BUDGET)


def test_each_fact_is_quoted_from_the_sentence_that_states_it():
    facts = ["The Runaways' lead singer is an American musician.", "Steve Augeri is an American musician."]
    first, second = quotes_for(facts, DOCS)
    # the singer's own article, both who she is and what she is, not the film's "2010 American drama film"
    assert {q["title"] for q in first} == {"Cherie Currie"}
    assert any("is an American musician" in q["sentence"] for q in first)
    assert any("lead vocalist of the Runaways" in q["sentence"] for q in first)
    assert [q["title"] for q in second] == ["Steve Augeri"]  # another article's "musician" is not his
    assert quotes_for(facts, []) == [[], []]


def no_dspy_model(monkeypatch):
    """The node's retries run under the run's DSPy LM, which the passage pass itself never calls."""
    from fakes import fake_lm

    import claimhop.lm.provider as provider

    monkeypatch.setitem(provider._LMS, "local", fake_lm({})[0])


class FakeEngine:
    def __init__(self, state):
        self.state, self.messages = state, []

    def last_hidden_state(self, messages, blocks=None):
        self.messages.append(messages)
        self.blocks = blocks
        return self.state


def test_the_verify_stage_reads_once_and_quotes_every_fact(monkeypatch):
    from claimhop.program.verify.stage import ToVerify, Verify

    verify = importlib.import_module("claimhop.program.verify.stage")
    no_dspy_model(monkeypatch)
    engine = FakeEngine(np.array([3.0, 1.0, 0.0, 0.0]))
    monkeypatch.setattr(verify, "local_engine", lambda: engine)
    monkeypatch.setattr(verify, "load_head", lambda *path: tiny_head())
    from state.context import Context

    ctx = Context.from_any({"verifier": "passages"})
    out = Verify(ctx)(ToVerify(claim="The Runaways' lead singer and Steve Augeri were both American musicians.",
                               selected=DOCS, claim_entities=["Runaways", "Steve Augeri"],
                               planned_facts=["The Runaways' lead singer is an American musician.",
                                              "Steve Augeri is an American musician."]))
    update = {"lm_calls": out.calls, "verdict": out.verdict, "confidence": out.confidence, "facts": out.facts,
              "evidence": out.evidence}
    assert len(engine.messages) == 1 and update["lm_calls"] == 1
    assert update["verdict"] == "SUPPORTED" and update["confidence"] > 0.99
    lines = fact_lines(update["facts"], update["evidence"])
    assert lines[0].startswith('1. "The Runaways\' lead singer is an American musician.": stated in Cherie Currie:')
    assert "2010 American drama film" not in lines[0]
    assert lines[1].startswith('2. "Steve Augeri is an American musician.": stated in Steve Augeri:')
    cited = {e["ref"] for e in update["evidence"]}
    assert all(ref in cited for fact in update["facts"] for ref in fact["refs"])


def test_the_state_pass_is_one_model_call_and_no_cache_hit(monkeypatch):
    """`benchmarks.speed` reports DSPy cache hits (asked - served), which must be 0 on an empty cache; the state
    pass, which never goes through DSPy, was counted as asked twice and showed one hit a claim."""
    from claimhop.lm import local_engine as engine_module
    from claimhop.lm.call_watch import SerialModel
    from claimhop.lm.usage import LEDGER, usage_between
    from claimhop.program.verify.stage import ToVerify, Verify
    from state.context import Context

    verify = importlib.import_module("claimhop.program.verify.stage")
    no_dspy_model(monkeypatch)
    engine = engine_module.LlamaCppEngine.__new__(engine_module.LlamaCppEngine)  # the real ledger path, no weights
    engine._lock, engine.calls, engine.prompt_tokens = SerialModel(), 0, 0
    engine.reader = lambda blocks=None: SimpleNamespace(server=None)
    state = [3.0, 1.0, 0.0, 0.0]
    monkeypatch.setattr(engine_module, "embedding_pass", lambda server, messages: (
        {"data": [{"embedding": state}]}, 1.5, 700))
    monkeypatch.setattr(verify, "local_engine", lambda: engine)
    monkeypatch.setattr(verify, "load_head", lambda *path: tiny_head())
    before = LEDGER.snapshot()
    out = Verify(Context.from_any({"verifier": "passages"}))(ToVerify(
        claim="Steve Augeri is American.", selected=DOCS, planned_facts=["Steve Augeri is American."]))
    used = usage_between(before, LEDGER.snapshot())["verify"]
    assert out.verdict == "SUPPORTED" and out.calls == 1
    assert used["asked"] == used["calls"] == 1 and used["prompt_tokens"] == 700


def test_a_model_that_cannot_read_gives_insufficient_info_and_says_so(monkeypatch):
    from claimhop.program.verify.stage import ToVerify, Verify

    verify = importlib.import_module("claimhop.program.verify.stage")

    class Broken:
        def last_hidden_state(self, messages, blocks=None):
            raise RuntimeError("llama.cpp said no")

    no_dspy_model(monkeypatch)
    monkeypatch.setattr(verify, "local_engine", lambda: Broken())
    monkeypatch.setattr(verify, "load_head", lambda *path: tiny_head())
    from state.context import Context

    ctx = Context.from_any({"verifier": "passages", "model_attempts": 1})
    out = Verify(ctx)(ToVerify(claim="Steve Augeri is American.", selected=DOCS,
                               planned_facts=["Steve Augeri is American."]))
    assert out.verdict == "INSUFFICIENT_INFO" and out.confidence == 0.0
    assert "llama.cpp said no" in out.degraded and out.calls == 1  # asked, and it failed


def test_synthetic_false_claims_swap_a_value_of_the_same_kind_from_the_gold_paragraphs():
    from claimhop.evaluation.synthetic import evidence_titles, swap_value

    paragraphs = ["Maria Golovin is an opera by Gian Carlo Menotti.", "Menotti worked with Samuel Barber in Milan."]
    claim = "The Italian-American composer who wrote Maria Golovin is Gian Carlo Menotti."
    swapped = swap_value(claim, "Gian Carlo Menotti", paragraphs, "q1")
    assert swapped == "The Italian-American composer who wrote Maria Golovin is Samuel Barber."
    assert swap_value(claim, "Gian Carlo Menotti", paragraphs, "q1") == swapped  # deterministic
    texts = {"G1": "g" * 400, "G2": "h" * 400, "D1": "d" * 400, "D2": "e" * 3000}
    chosen = evidence_titles(["G1", "G2"], ["D1", "D2"], texts, "q1", budget=1400)
    assert sorted(chosen) == ["D1", "G1", "G2"]  # gold always, a distractor as the budget allows
    assert chosen == evidence_titles(["G1", "G2"], ["D1", "D2"], texts, "q1", budget=1400)


def test_the_synthetic_set_and_its_provenance_are_committed():
    from pathlib import Path

    rows = [json.loads(line) for line in Path("docs/results/verifier/synthetic-claims.jsonl").read_text().splitlines()]
    kinds = {row["kind"] for row in rows}
    assert kinds == {"SUPPORTED", "CONTRADICTED", "INSUFFICIENT_INFO"}
    assert all(row["label"] == ("SUPPORTED" if row["kind"] == "SUPPORTED" else "NOT_SUPPORTED") for row in rows)
    removed = [row for row in rows if row["variant"] == "removed"]
    assert removed and all(row["removed"] not in row["titles"] for row in removed)
    provenance = load_head().provenance["training_data"]["synthetic"]
    import hashlib

    assert provenance["sha256"] == hashlib.sha256(Path(provenance["file"]).read_bytes()).hexdigest()
    assert SimpleNamespace(**provenance).items == len(rows)


def test_a_head_fitted_with_balanced_classes_calls_the_rarer_label_as_often_as_it_occurs():
    """The training items are mostly not supported, the claims users bring about half: a head fitted with both
    classes weighing the same does not learn to say 'not supported' just because that label was more common."""
    from claimhop.evaluation.train_verifier import fit_logistic

    rng = np.random.default_rng(0)
    y = (rng.random(600) < 0.3).astype(int)  # 30% supported
    x = (y[:, None] * 0.6 + rng.normal(size=(600, 3)))  # a weak signal, as the model's state gives
    groups = [str(i) for i in range(600)]
    plain, _ = fit_logistic(x, y, groups, c=1.0)
    balanced, _ = fit_logistic(x, y, groups, c=1.0, balanced=True)
    said = {name: np.mean([head.probability(row) >= 0.5 for row in x]) for name, head in
            (("plain", plain), ("balanced", balanced))}
    assert said["plain"] < 0.15  # the common label wins almost every time
    assert 0.35 <= said["balanced"] <= 0.65
    assert load_head().provenance["support_head"]["class_weight"] == "balanced"


def test_an_item_weighed_zero_is_as_if_it_were_not_there_and_a_heavier_set_pulls_the_head_its_way():
    """Labelled pairs of other genres are weighed against the Wikipedia items (benchmarks.pair_heads): a weight
    must act as a count, so a set weighed 0 leaves the head as the rest alone would fit it."""
    from claimhop.evaluation.train_verifier import fit_logistic

    rng = np.random.default_rng(1)
    y = (rng.random(400) < 0.5).astype(int)
    x = y[:, None] * 0.8 + rng.normal(size=(400, 3))
    flipped = 1 - y  # a second "set" labelled the other way round
    groups = [str(i) for i in range(800)]
    both_x, both_y = np.vstack([x, x]), np.concatenate([y, flipped])
    alone, _ = fit_logistic(x, y, groups[:400], c=1.0, balanced=True)
    ignored, _ = fit_logistic(both_x, both_y, groups, c=1.0, balanced=True,
                              weights=np.r_[np.ones(400), np.zeros(400)])
    assert np.allclose(alone.weights, ignored.weights, atol=1e-3)
    heavier, _ = fit_logistic(both_x, both_y, groups, c=1.0, balanced=True, weights=np.r_[np.ones(400), 3 * np.ones(400)])
    assert np.all(np.sign(heavier.weights[:1]) == -np.sign(alone.weights[:1]))  # the heavier, flipped set wins
