"""Claims outside Wikipedia (issue 55): a sentence that says the opposite is never quoted as support and makes the
claim CONTRADICTED; the plan's facts are parts of the claim; passages are read by the claim's words when it names
no document; a collection's own labelled claims. A fake engine stands in for the model's pass."""

from __future__ import annotations

import importlib
from dataclasses import replace

import numpy as np

from claimhop.evaluation.collection_claims import (
    collection_claims,
    contradicting,
    finding,
)
from claimhop.program.explain import fact_lines
from claimhop.program.verify.direction import directions, opposite, turned
from claimhop.program.verify.facts import facts_from_split, part_of
from claimhop.program.verify.reading import passages_read, reading_rule
from tests.unit_tests.test_passage_verifier import FakeEngine, no_dspy_model, tiny_head

CLAIM = "Quorvalide intake is associated with better sleep in night-shift workers."
# A small invented collection written for this test, in the shape of research abstracts (the claim names no paper):
# quorvalide is a made-up supplement and every finding below is made up.
STUDY = ("Quorvalide is an extract of a mountain herb sold as an evening supplement. Volunteers who took it "
         "reported falling asleep sooner during the first week. Among 640 night-shift workers followed for a year, "
         "quorvalide intake recorded in sleep diaries correlated with poor sleep quality. These findings question "
         "the use of the supplement in shift work.")
COFFEE = ("A cohort of 900 nurses was followed for two years to study caffeine. Evening coffee was not associated "
          "with sleep duration after adjustment for age.")
LIGHT = ("Bright light therapy for shift workers reduced daytime fatigue by 20 percent in a randomised trial of "
         "3,000 workers.")
ABSTRACTS = [{"title": "A year-long diary study of an evening supplement among hospital staff", "text": STUDY},
             {"title": "Caffeine and sleep in nurses", "text": COFFEE},
             {"title": "Light therapy trial", "text": LIGHT}]


def test_a_sentence_pointing_the_other_way_is_seen_as_the_opposite():
    assert directions(CLAIM) == {2: 1}
    assert opposite(CLAIM, "Quorvalide intake correlated with poor sleep quality.")
    assert not opposite(CLAIM, "Quorvalide intake correlated with better sleep quality.")
    assert opposite("X improves survival.", "X did not improve survival.")  # a negation reverses its verb
    assert turned("Vitamin D supplementation increased bone density.") == "Vitamin D supplementation decreased bone density."
    assert turned("Smoking does not increase risk.") is None  # a negated claim is not turned


def test_the_refuting_sentence_is_shown_as_the_opposite_and_the_claim_is_contradicted(monkeypatch):
    """The head, trained on Wikipedia names, says SUPPORTED; the refuting sentence must not be quoted as "stated
    in": the verdict is CONTRADICTED and the quote is shown as what it is."""
    from claimhop.program.verify.stage import ToVerify, Verify
    from state.context import Context

    verify = importlib.import_module("claimhop.program.verify.stage")
    no_dspy_model(monkeypatch)
    engine = FakeEngine(np.array([3.0, 1.0, 0.0, 0.0]))  # tiny_head reads this state as supported
    monkeypatch.setattr(verify, "local_engine", lambda: engine)
    monkeypatch.setattr(verify, "load_head", lambda *path: tiny_head())
    ctx = Context.from_any({"verifier": "passages"})
    out = Verify(ctx)(ToVerify(claim=CLAIM, selected=ABSTRACTS, claim_entities=["Quorvalide"],
                               planned_facts=[CLAIM, "Quorvalide is a plant extract sold in pharmacies."]))
    assert out.verdict == "CONTRADICTED" and out.probabilities["opposite_quote"] == 1.0
    assert "says the opposite" in out.reason
    lines = fact_lines(out.facts, out.evidence)
    assert len(lines) == 1  # the plan's added fact is not part of the claim, so it is not quoted as if it were
    assert "stated in" not in lines[0]
    assert "the collection says the opposite:" in lines[0] and "correlated with poor sleep quality" in lines[0]


def test_a_supported_claim_quotes_only_sentences_that_state_its_fact(monkeypatch):
    from claimhop.program.verify.stage import ToVerify, Verify
    from state.context import Context

    verify = importlib.import_module("claimhop.program.verify.stage")
    no_dspy_model(monkeypatch)
    monkeypatch.setattr(verify, "local_engine", lambda: FakeEngine(np.array([3.0, 1.0, 0.0, 0.0])))
    monkeypatch.setattr(verify, "load_head", lambda *path: tiny_head())
    claim = "Bright light therapy reduced daytime fatigue by 20 percent."
    out = Verify(Context.from_any({"verifier": "passages"}))(ToVerify(
        claim=claim, selected=ABSTRACTS, claim_entities=[], planned_facts=[claim, "Sunshine is common in southern Europe."]))
    assert out.verdict == "SUPPORTED"
    lines = fact_lines(out.facts, out.evidence)
    assert len(lines) == 1 and lines[0].startswith(f'1. "{claim}": stated in Light therapy trial:')


def test_the_plans_facts_are_parts_of_the_claim():
    assert not part_of("Quorvalide is a plant extract sold in pharmacies.", CLAIM)
    assert part_of("Quorvalide intake is associated with better sleep among night-shift workers.", CLAIM)
    facts = facts_from_split(["Quorvalide is a plant extract sold in pharmacies."], CLAIM, ["Quorvalide"])
    assert [f["text"] for f in facts] == [CLAIM]  # nothing left: the claim itself is the fact


def test_a_claim_naming_no_document_reads_more_documents_by_its_words():
    rule = reading_rule("chain-order-1-relevant", 21, 3000)
    long = {"title": "Long abstract", "text": " ".join(f"Background sentence {i} about methods and cohorts." for i in
                                                        range(30)) + " Quorvalide intake correlated with poor sleep quality."}
    read = passages_read([long, *ABSTRACTS], CLAIM, rule)
    assert "correlated with poor sleep quality" in read[0]["text"]  # the claim's words, not the lead alone
    assert len(read[0]["text"]) <= rule.unnamed_cap
    old = passages_read([long, *ABSTRACTS], CLAIM, reading_rule("chain-order-1", 21, 3000))
    assert "correlated with poor sleep quality" not in old[0]["text"]
    assert rule.version() != reading_rule("chain-order-1", 21, 3000).version()  # a head knows which it read


def test_a_collection_gives_supported_contradicted_and_unsettled_claims_from_its_own_sentences():
    assert finding("In conclusion, we found that evening light therapy reduced daytime fatigue by 20 percent "
                   "in older workers.") == "Evening light therapy reduced daytime fatigue by 20 percent in older workers."
    assert finding("Light works.") is None  # too short to be a finding
    assert finding("What is the role of quorvalide in shift work?") is None
    assert contradicting("Light therapy reduced fatigue by 20 percent in workers.")[1] == "turned"
    assert contradicting("Intake of caffeine is associated with sleep loss in hospital nurses.") == (
        "Intake of caffeine is not associated with sleep loss in hospital nurses.", "negated")
    titles = [d["title"] for d in ABSTRACTS] + [f"Other {i}" for i in range(4)]
    texts = [d["text"] for d in ABSTRACTS] + [f"Unrelated note number {i} on hospital staffing." for i in range(4)]

    def neighbours(claim: str, source: str) -> list[str]:
        return [t for t in titles if t != source]

    items = collection_claims(titles, texts, neighbours, count=3, seed=0)
    assert {i["kind"] for i in items} == {"SUPPORTED", "CONTRADICTED", "INSUFFICIENT_INFO"}
    for item in items:
        assert (item["source_title"] in item["titles"]) == (item["variant"] != "removed")
        assert item["label"] == ("SUPPORTED" if item["kind"] == "SUPPORTED" else "NOT_SUPPORTED")
    assert items == collection_claims(titles, texts, neighbours, count=3, seed=0)  # seeded


class ClaimReadingEngine(FakeEngine):
    """The model's state for each claim read: `states` maps a claim to the state its prompt gives."""

    def __init__(self, states: dict[str, np.ndarray]):
        super().__init__(None)
        self.states = states

    def last_hidden_state(self, messages, blocks=None):
        self.messages.append(messages)
        claim = messages[-1]["content"].split("\nClaim: ")[1].split("\n")[0]
        return self.states[claim]


def test_a_claim_whose_opposite_reads_better_is_contradicted_and_one_whose_opposite_does_not_is_unsettled(monkeypatch):
    """The head's kind, learned from Wikipedia claims with a name swapped, calls both claims CONTRADICTED (its bias
    says so here); reading the model's opposite of each on the same passages tells them apart."""
    from fakes import fake_lm

    import claimhop.lm.provider as provider
    from claimhop.program.verify.stage import ToVerify, Verify
    from state.context import Context

    verify = importlib.import_module("claimhop.program.verify.stage")
    refuted = "Quorvalide is sold in no pharmacy."
    unsettled = "Quorvalide intake is associated with taller workers."
    opposites = {refuted: "Quorvalide is sold in pharmacies.",
                 unsettled: "Quorvalide intake is associated with shorter workers."}
    low, lower, high = np.array([-2.0, 1.0, 0, 0]), np.array([-3.0, 1.0, 0, 0]), np.array([3.0, 1.0, 0, 0])
    named = "The Light therapy trial gave quorvalide to no worker."  # names its document
    engine = ClaimReadingEngine({refuted: low, opposites[refuted]: high, unsettled: low, opposites[unsettled]: lower,
                                 named: low})
    asked: list[str] = []

    def opposite_of():
        return {"opposite": opposites[asked[-1]]}

    lm, _ = fake_lm({"opposite": opposite_of})
    monkeypatch.setitem(provider._LMS, "local", lm)
    monkeypatch.setattr(verify, "local_engine", lambda: engine)
    monkeypatch.setattr(verify, "load_head", lambda *path: tiny_head())
    results = {}
    for claim in (refuted, unsettled):
        asked.append(claim)
        results[claim] = Verify(Context.from_any({"verifier": "passages"}))(ToVerify(  # the default: unnamed
            claim=claim, selected=ABSTRACTS, claim_entities=["Quorvalide"], planned_facts=[claim]))
    assert results[refuted].verdict == "CONTRADICTED" and "opposite better than the claim" in results[refuted].reason
    assert results[unsettled].verdict == "INSUFFICIENT_INFO" and "neither the claim nor its opposite" in results[
        unsettled].reason
    assert results[refuted].calls == 3 and len(engine.messages) == 4  # the pass, the opposite written and read
    never = Verify(Context.from_any({"verifier": "passages", "opposite_check": "never"}))(ToVerify(
        claim=unsettled, selected=ABSTRACTS, claim_entities=["Quorvalide"], planned_facts=[unsettled]))
    assert never.verdict == "CONTRADICTED" and never.calls == 1  # the head's kind alone, as before
    by_name = Verify(Context.from_any({"verifier": "passages"}))(ToVerify(  # a Wikipedia-like claim: not read again
        claim=named, selected=ABSTRACTS, claim_entities=["Light therapy trial", "Quorvalide"], planned_facts=[named]))
    assert by_name.verdict == "CONTRADICTED" and by_name.calls == 1


class QuestionReadingEngine(FakeEngine):
    """The model's state for each (claim, question) read: the support question gives `support`, the three-way
    question the claim's entry of `three_ways`."""

    def __init__(self, support: np.ndarray, three_ways: dict[str, np.ndarray]):
        super().__init__(None)
        self.support, self.three_ways = support, three_ways

    def last_hidden_state(self, messages, blocks=None):
        self.messages.append(messages)
        claim = messages[-1]["content"].split("\nClaim: ")[1].split("\n")[0]
        return self.three_ways[claim] if "CONTRADICTED" in messages[0]["content"] else self.support


def test_the_three_way_question_tells_a_contradicted_claim_from_an_unsettled_one_in_one_more_pass(monkeypatch):
    """contradiction_check=three-ways: a claim the passages do not support is read once more with the three-way
    question, and the head's contradiction part decides on that state; no opposite is written (no DSPy call). A
    head without that part is refused by name."""
    import pytest

    from claimhop.program.verify.head import ContradictionHead, Logistic
    from claimhop.program.verify.stage import ToVerify, Verify
    from state.context import Context

    verify = importlib.import_module("claimhop.program.verify.stage")
    no_dspy_model(monkeypatch)
    refuted, unsettled = "Quorvalide is sold in no pharmacy.", "Quorvalide intake is associated with taller workers."
    engine = QuestionReadingEngine(np.array([-2.0, 1.0, 0, 0]),  # tiny_head: not supported
                                   {refuted: np.array([0.0, 0.0, 4.0, 0.0]), unsettled: np.array([0.0, 0.0, -4.0, 0.0])})
    part = ContradictionHead(np.zeros(4), np.ones(4), Logistic(np.array([0.0, 0.0, 1.0, 0.0]), 0.0))
    monkeypatch.setattr(verify, "local_engine", lambda: engine)
    monkeypatch.setattr(verify, "load_head", lambda *path: replace(tiny_head(), contradiction=part))
    ctx = Context.from_any({"verifier": "passages", "contradiction_check": "three-ways"})
    results = {claim: Verify(ctx)(ToVerify(claim=claim, selected=ABSTRACTS, claim_entities=["Quorvalide"],
                                           planned_facts=[claim])) for claim in (refuted, unsettled)}
    assert results[refuted].verdict == "CONTRADICTED" and "makes the claim false" in results[refuted].reason
    assert results[unsettled].verdict == "INSUFFICIENT_INFO" and "neither support" in results[unsettled].reason
    assert results[refuted].probabilities["three_ways"] > 0.9 > 0.1 > results[unsettled].probabilities["three_ways"]
    assert results[refuted].calls == 2 and len(engine.messages) == 4  # two passes a claim, nothing written
    monkeypatch.setattr(verify, "load_head", lambda *path: tiny_head())
    with pytest.raises(ValueError, match="no contradiction part"):
        Verify(ctx)
