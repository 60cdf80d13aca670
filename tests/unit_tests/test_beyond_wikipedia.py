"""Claims outside Wikipedia (issue 55): a sentence that says the opposite is never quoted as support and makes the
claim CONTRADICTED; the plan's facts are parts of the claim; passages are read by the claim's words when it names
no document; a collection's own labelled claims. A fake engine stands in for the model's pass."""

from __future__ import annotations

import importlib

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

CLAIM = "ALDH1 expression is associated with better breast cancer outcomes."
# A small collection written for this test, in the shape of research abstracts (the claim names no paper).
MARKER = ("Stem cells of the normal and malignant breast were identified by an assay of aldehyde dehydrogenase "
          "activity. Cells with high activity formed mammospheres and reconstituted the mammary tree in mice. "
          "In a series of 577 breast carcinomas, expression of ALDH1 detected by immunostaining correlated with "
          "poor prognosis. These findings offer a tool to study normal and malignant breast stem cells.")
DIET = ("A cohort of 1,200 women was followed for ten years to study dietary fat. Intake of saturated fat was not "
        "associated with breast cancer incidence after adjustment for body mass index.")
SCREEN = ("Mammography screening of women aged 50 to 69 reduced breast cancer mortality by 20 percent in a "
          "randomised trial of 40,000 women.")
ABSTRACTS = [{"title": "ALDH1 is a marker of normal and malignant human mammary stem cells", "text": MARKER},
             {"title": "Dietary fat and breast cancer incidence", "text": DIET},
             {"title": "Screening mammography trial", "text": SCREEN}]


def test_a_sentence_pointing_the_other_way_is_seen_as_the_opposite():
    assert directions(CLAIM) == {2: 1}
    assert opposite(CLAIM, "Expression of ALDH1 correlated with poor prognosis.")
    assert not opposite(CLAIM, "Expression of ALDH1 correlated with better survival.")
    assert opposite("X improves survival.", "X did not improve survival.")  # a negation reverses its verb
    assert turned("Vitamin D supplementation increased bone density.") == "Vitamin D supplementation decreased bone density."
    assert turned("Smoking does not increase risk.") is None  # a negated claim is not turned


def test_the_refuting_sentence_is_shown_as_the_opposite_and_the_claim_is_contradicted(monkeypatch):
    """The issue's example: the head, trained on Wikipedia names, says SUPPORTED; the answer quoted the refuting
    sentence as "stated in". Now the verdict is CONTRADICTED and the quote is shown as what it is."""
    from claimhop.program.verify.stage import ToVerify, Verify
    from state.context import Context

    verify = importlib.import_module("claimhop.program.verify.stage")
    no_dspy_model(monkeypatch)
    engine = FakeEngine(np.array([3.0, 1.0, 0.0, 0.0]))  # tiny_head reads this state as supported
    monkeypatch.setattr(verify, "local_engine", lambda: engine)
    monkeypatch.setattr(verify, "load_head", lambda *path: tiny_head())
    ctx = Context.from_any({"verifier": "passages"})
    out = Verify(ctx)(ToVerify(claim=CLAIM, selected=ABSTRACTS, claim_entities=["ALDH1"],
                               planned_facts=[CLAIM, "ALDH1 is an enzyme involved in metabolism."]))
    assert out.verdict == "CONTRADICTED" and out.probabilities["opposite_quote"] == 1.0
    assert "says the opposite" in out.reason
    lines = fact_lines(out.facts, out.evidence)
    assert len(lines) == 1  # the plan's added fact is not part of the claim, so it is not quoted as if it were
    assert "stated in" not in lines[0]
    assert "the collection says the opposite:" in lines[0] and "correlated with poor prognosis" in lines[0]


def test_a_supported_claim_quotes_only_sentences_that_state_its_fact(monkeypatch):
    from claimhop.program.verify.stage import ToVerify, Verify
    from state.context import Context

    verify = importlib.import_module("claimhop.program.verify.stage")
    no_dspy_model(monkeypatch)
    monkeypatch.setattr(verify, "local_engine", lambda: FakeEngine(np.array([3.0, 1.0, 0.0, 0.0])))
    monkeypatch.setattr(verify, "load_head", lambda *path: tiny_head())
    claim = "Mammography screening reduced breast cancer mortality by 20 percent."
    out = Verify(Context.from_any({"verifier": "passages"}))(ToVerify(
        claim=claim, selected=ABSTRACTS, claim_entities=[], planned_facts=[claim, "Screening is common in Europe."]))
    assert out.verdict == "SUPPORTED"
    lines = fact_lines(out.facts, out.evidence)
    assert len(lines) == 1 and lines[0].startswith(f'1. "{claim}": stated in Screening mammography trial:')


def test_the_plans_facts_are_parts_of_the_claim():
    assert not part_of("ALDH1 is an enzyme involved in metabolism.", CLAIM)
    assert part_of("ALDH1 expression is associated with better outcomes in breast cancer.", CLAIM)
    facts = facts_from_split(["ALDH1 is an enzyme involved in metabolism."], CLAIM, ["ALDH1"])
    assert [f["text"] for f in facts] == [CLAIM]  # nothing left: the claim itself is the fact


def test_a_claim_naming_no_document_reads_more_documents_by_its_words():
    rule = reading_rule("chain-order-1-relevant", 21, 3000)
    long = {"title": "Long abstract", "text": " ".join(f"Background sentence {i} about methods and cohorts." for i in
                                                        range(30)) + " ALDH1 expression correlated with poor prognosis."}
    read = passages_read([long, *ABSTRACTS], CLAIM, rule)
    assert "correlated with poor prognosis" in read[0]["text"]  # the claim's words, not the lead alone
    assert len(read[0]["text"]) <= rule.unnamed_cap
    old = passages_read([long, *ABSTRACTS], CLAIM, reading_rule("chain-order-1", 21, 3000))
    assert "correlated with poor prognosis" not in old[0]["text"]
    assert rule.version() != reading_rule("chain-order-1", 21, 3000).version()  # a head knows which it read


def test_a_collection_gives_supported_contradicted_and_unsettled_claims_from_its_own_sentences():
    assert finding("In conclusion, we found that annual screening reduced breast cancer mortality by 20 percent "
                   "in older women.") == "Annual screening reduced breast cancer mortality by 20 percent in older women."
    assert finding("Screening works.") is None  # too short to be a finding
    assert finding("What is the role of ALDH1 in breast cancer?") is None
    assert contradicting("Screening reduced mortality by 20 percent in women.")[1] == "turned"
    assert contradicting("Intake of fat is associated with breast cancer incidence in women.") == (
        "Intake of fat is not associated with breast cancer incidence in women.", "negated")
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
    refuted = "ALDH1 is found in no mammary stem cell."
    unsettled = "ALDH1 expression is associated with taller patients."
    opposites = {refuted: "ALDH1 is found in mammary stem cells.",
                 unsettled: "ALDH1 expression is associated with shorter patients."}
    low, lower, high = np.array([-2.0, 1.0, 0, 0]), np.array([-3.0, 1.0, 0, 0]), np.array([3.0, 1.0, 0, 0])
    named = "The Screening mammography trial found ALDH1 in no mammary stem cell."  # names its document
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
            claim=claim, selected=ABSTRACTS, claim_entities=["ALDH1"], planned_facts=[claim]))
    assert results[refuted].verdict == "CONTRADICTED" and "opposite better than the claim" in results[refuted].reason
    assert results[unsettled].verdict == "INSUFFICIENT_INFO" and "neither the claim nor its opposite" in results[
        unsettled].reason
    assert results[refuted].calls == 3 and len(engine.messages) == 4  # the pass, the opposite written and read
    never = Verify(Context.from_any({"verifier": "passages", "opposite_check": "never"}))(ToVerify(
        claim=unsettled, selected=ABSTRACTS, claim_entities=["ALDH1"], planned_facts=[unsettled]))
    assert never.verdict == "CONTRADICTED" and never.calls == 1  # the head's kind alone, as before
    by_name = Verify(Context.from_any({"verifier": "passages"}))(ToVerify(  # a Wikipedia-like claim: not read again
        claim=named, selected=ABSTRACTS, claim_entities=["Screening mammography trial", "ALDH1"], planned_facts=[named]))
    assert by_name.verdict == "CONTRADICTED" and by_name.calls == 1
