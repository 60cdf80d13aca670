"""The facts verifier: label probabilities read from token log-probabilities, the alignment score, the ensemble
rule, and the graph with `verifier=facts` on supported, contradicted and unrelated claims (fake LM and a fake
NLI judge here: these tests are about the wiring and the rules, not the model)."""

from __future__ import annotations

import importlib

import pytest
from test_graph_routing import answers, run

from claimhop.lm.label_probs import LabelError, classify_local, label_distribution
from claimhop.program.citations import CitationError
from claimhop.program.verify.alternatives.alignment import alignment_score
from claimhop.program.verify.alternatives.ensemble import (
    EnsembleRule,
    combine,
    judge_fact,
)
from claimhop.program.verify.alternatives.nli import LABELS
from claimhop.program.verify.alternatives.pipeline import check_facts, passage_around
from claimhop.sentences import split_sentences
from claimhop.signatures import JudgePair

RULE = EnsembleRule()
# the first position's top tokens the local model gave for "Cherie Currie is British" against her article
RECORDED = [{"token": "contr", "logprob": -0.18}, {"token": "neutral", "logprob": -1.92},
            {"token": " contradiction", "logprob": -5.53}, {"token": "Contr", "logprob": -5.57},
            {"token": "ne", "logprob": -5.89}, {"token": "con", "logprob": -6.3}]


def test_label_probabilities_come_from_the_tokens_that_start_each_label():
    probs = label_distribution(RECORDED, LABELS)
    assert probs["contradiction"] == pytest.approx(0.8493, abs=1e-3)
    assert probs["neutral"] == pytest.approx(0.1507, abs=1e-3) and probs["entailment"] == 0.0
    assert label_distribution([{"token": "xyz", "logprob": -0.1}], LABELS) == dict.fromkeys(LABELS, 1 / 3)
    only_odd_tokens = [{"token": " Neutral", "logprob": -0.2}, {"token": "Ent", "logprob": -2.0}]
    assert max(label_distribution(only_odd_tokens, LABELS).items(), key=lambda kv: kv[1])[0] == "neutral"
    assert label_distribution([{"token": "xyz", "logprob": -0.1}], LABELS, chosen="entailment")["entailment"] == 1.0


class ReplyEngine:
    def __init__(self, content: str):
        self.content, self.bodies = content, []

    def chat(self, body: dict) -> dict:
        self.bodies.append(body)
        return {"choices": [{"message": {"content": self.content},
                             "logprobs": {"content": [{"token": "contr", "top_logprobs": RECORDED}]}}]}


def test_a_constrained_call_asks_for_the_labels_grammar_and_log_probabilities():
    engine = ReplyEngine("contr")  # one token is generated: the label's first
    label, probs = classify_local(engine, JudgePair, "user", LABELS)
    assert label == "contradiction" and max(probs, key=probs.get) == "contradiction"
    body = engine.bodies[0]
    assert body["max_tokens"] == 1
    assert classify_local(ReplyEngine("neutral"), JudgePair, "u", LABELS)[0] == "neutral"  # a label that is one token
    assert body["grammar"] == 'root ::= "entailment" | "contradiction" | "neutral"'
    assert body["logprobs"] is True and body["top_logprobs"] >= 10 and body["temperature"] == 0.0
    with pytest.raises(LabelError, match="not one of"):
        classify_local(ReplyEngine("maybe"), JudgePair, "u", LABELS)


def test_alignment_counts_names_numbers_and_meaning():
    evidence = [{"title": "Cherie Currie", "sentence": "Cherie Currie (born November 30, 1959) is an American singer."}]
    full = alignment_score("Cherie Currie was born in 1959.", ["Cherie Currie"], evidence, 0.8)
    wrong_year = alignment_score("Cherie Currie was born in 1962.", ["Cherie Currie"], evidence, 0.8)
    other_person = alignment_score("Joan Jett was born in 1958.", ["Joan Jett"], evidence, 0.3)
    assert full == pytest.approx((0.8 + 1 + 1) / 3, abs=1e-3) and wrong_year == pytest.approx((0.8 + 1) / 3, abs=1e-3)
    assert other_person < 0.2 and alignment_score("x", [], [], 0.9) == 0.0


def probs(e: float, c: float) -> dict[str, float]:
    return {"entailment": e, "contradiction": c, "neutral": round(1 - e - c, 4)}


def test_fragments_from_the_splitter_are_joined_to_the_fact_before_them():
    from claimhop.program.verify.facts import whole_facts

    facts = [{"text": "Chandgi Ram won a gold medal", "entities": ["Chandgi Ram"]},
             {"text": "in 1970", "entities": []}, {"text": "held in Argentina", "entities": ["Argentina"]},
             {"text": "Steve Augeri is American.", "entities": ["Steve Augeri"]}]
    assert whole_facts(facts) == [
        {"text": "Chandgi Ram won a gold medal in 1970 held in Argentina", "entities": ["Chandgi Ram", "Argentina"]},
        {"text": "Steve Augeri is American.", "entities": ["Steve Augeri"]}]


def test_the_ensemble_rule():
    assert judge_fact([probs(0.9, 0.05), probs(0.2, 0.1)], 1.0, RULE) == ("SUPPORTED", 0.9)
    assert judge_fact([probs(0.9, 0.05)], 0.1, RULE)[0] == "INSUFFICIENT_INFO"  # evidence does not cover the fact
    assert judge_fact([probs(0.1, 0.85)], 0.9, RULE) == ("CONTRADICTED", 0.85)
    assert judge_fact([probs(0.3, 0.3)], 0.9, RULE) == ("INSUFFICIENT_INFO", 0.7)
    assert judge_fact([], 1.0, RULE)[0] == "INSUFFICIENT_INFO"
    assert combine([("SUPPORTED", 0.9), ("SUPPORTED", 0.7)], RULE)[:2] == ("SUPPORTED", 0.7)
    assert combine([("SUPPORTED", 0.9), ("CONTRADICTED", 0.8)], RULE)[:2] == ("CONTRADICTED", 0.8)
    assert combine([("SUPPORTED", 0.9), ("INSUFFICIENT_INFO", 0.6)], RULE)[0] == "INSUFFICIENT_INFO"
    assert combine([], RULE) == ("INSUFFICIENT_INFO", 1.0, "no facts could be checked")


def fake_judge(title: str, sentence: str, fact: str) -> dict[str, float]:
    """Entails a nationality the sentence states about the fact's subject; contradicts another one."""
    subject = fact.split(" is ")[0]
    if subject not in f"{title} {sentence}":
        return probs(0.02, 0.03)
    if "British" in fact and "American" in sentence:
        return probs(0.05, 0.9)
    return probs(0.92, 0.03) if "American" in fact and "American" in sentence else probs(0.1, 0.1)


def facts_reply(*facts: str) -> dict:
    return {**answers(complete=True), "facts": {"facts": list(facts), "entities": ["Steve Augeri"]}}


# The fake judge speaks like a confident one (0.9 for what a sentence states), so the rule runs with thresholds
# for such a judge; the shipped defaults are calibrated for the local model's much smaller probabilities.
CONFIDENT_JUDGE_RULE = {"entail_threshold": 0.5, "contradict_threshold": 0.6, "min_alignment": 0.3, "confidence_slope": 0.0}


def written_answer(state: dict) -> str:
    """The answer the graph's last stage writes from a facts verifier's state, with no model call."""
    from claimhop.program.explain import Explain
    from state.context import Context

    return Explain(Context(verifier="facts"), from_facts=True)(
        claim=state["claim"], verdict=state["verdict"], confidence=state.get("confidence"),
        reason=state.get("verdict_reason"), facts=state["facts"], evidence=state["evidence"],
        selected=state["selected"], degraded=state.get("degraded", [])).text


def run_facts(monkeypatch, corpus, reply: dict, judge=fake_judge):
    monkeypatch.setattr(importlib.import_module("claimhop.program.verify.alternatives.verify_facts"), "judge_pair", lambda model, title, sentence, fact, predictor=None: judge(title, sentence, fact))
    return run(monkeypatch, corpus, reply, verifier="facts", max_iterations=0, **CONFIDENT_JUDGE_RULE)


def test_a_supported_claim_quotes_the_sentence_behind_each_fact(monkeypatch, small_corpus):
    _, final, engine = run_facts(monkeypatch, small_corpus, facts_reply("Cherie Currie is American",
                                                                         "Steve Augeri is American"))
    assert final["verdict"] == "SUPPORTED" and 0.5 < final["confidence"] <= 1
    assert [f["verdict"] for f in final["facts"]] == ["SUPPORTED", "SUPPORTED"]
    assert "statements" not in engine.calls  # the answer is written from the facts, with no model call
    texts = {d["title"]: d["text"] for d in final["selected"]}
    for ref in final["evidence"]:
        assert ref["sentence"] in texts[ref["title"]]
        assert f'"{ref["sentence"]}" [{ref["ref"]}]' in final["answer"]
    assert '1. "Cherie Currie is American": supported' in final["answer"]


def test_a_contradicted_fact_is_corrected_from_the_evidence(monkeypatch, small_corpus):
    _, final, _ = run_facts(monkeypatch, small_corpus, facts_reply("Cherie Currie is British",
                                                                    "Steve Augeri is American"))
    assert final["verdict"] == "CONTRADICTED"
    assert "The collection says instead:" in final["answer"] and "American" in final["answer"]


def test_a_fact_no_document_settles_is_said_to_be_not_found(monkeypatch, small_corpus):
    _, final, _ = run_facts(monkeypatch, small_corpus, facts_reply("The Moon is made of cheese"))
    assert final["verdict"] == "INSUFFICIENT_INFO" and "Not found in the collection" in final["answer"]
    closest = final["evidence"][0]  # what was checked is shown, quoted verbatim, and said not to settle it
    assert final["facts"][0]["ref"] == closest["ref"] == 1
    assert f'the closest sentence examined: {closest["title"]}: "{closest["sentence"]}" [1]' in final["answer"]
    assert closest["sentence"] in {d["title"]: d["text"] for d in final["selected"]}[closest["title"]]


def test_a_judge_that_keeps_failing_is_recorded_on_the_fact(monkeypatch, small_corpus):
    def broken(title, sentence, fact):
        raise ValueError("reply does not fit the labels")

    _, final, _ = run_facts(monkeypatch, small_corpus, facts_reply("Cherie Currie is American"), judge=broken)
    fact = final["facts"][0]
    assert fact["error"].startswith("ValueError") and fact["verdict"] == "INSUFFICIENT_INFO"
    assert "could not be judged" in final["answer"]
    assert final["confidence"] == 0.0 and final["verdict_reason"].startswith("the model could not judge")
    assert any(d.startswith("verify: the model could not judge") for d in final["degraded"])


def test_a_fact_quoting_brackets_does_not_break_the_citation_check(monkeypatch, small_corpus):
    _, final, _ = run_facts(monkeypatch, small_corpus, facts_reply("Cherie Currie is American [7]", "Steve Augeri is American"))
    assert final["verdict"] == "SUPPORTED" and "[7]" not in final["answer"]


def test_no_evidence_at_all_gives_insufficient_info_with_the_reason():
    result = check_facts([{"text": "Steve Augeri is American", "entities": []}], [], fake_judge, RULE, 3)
    assert result["verdict"] == "INSUFFICIENT_INFO" and result["reason"].startswith("no evidence")


def test_an_answer_quoting_a_sentence_its_document_lacks_is_never_returned(monkeypatch, small_corpus):
    _, final, _ = run_facts(monkeypatch, small_corpus, facts_reply("Cherie Currie is American"))
    tampered = {**final, "evidence": [{**final["evidence"][0], "sentence": "Cherie Currie is British."}]}
    with pytest.raises(CitationError, match="not found in"):
        written_answer(tampered)


def test_a_real_hover_claim_its_documents_contradict(monkeypatch):
    """HoVer dev 1a93ad4e (NOT_SUPPORTED): Chandgi Ram did win gold at the 1970 Asian Games, but they were held in
    Bangkok, not Argentina. The bundled corpus's own paragraphs are the evidence; the split and the NLI judge are
    scripted (what the model would say is measured by `claimhop eval-verify`, not here)."""
    from claims import hover_claim

    from claimhop.evaluation.verify_eval import documents_by_title
    from claimhop.program.verify.alternatives.verify_facts import VerifyFacts
    from claimhop.program.verify.stage import ToVerify
    from claimhop.retrieval.corpus import BUNDLED_CORPUS, load_corpus
    from state.context import Context

    claim = hover_claim("1a93ad4e")
    assert claim["label"] == "NOT_SUPPORTED"
    selected = documents_by_title(load_corpus(BUNDLED_CORPUS), claim["supporting_titles"])
    facts = [{"text": "Chandgi Ram won a gold medal in 1970.", "entities": ["Chandgi Ram"]},
             {"text": "The 1970 Asian Games were held in Argentina.", "entities": ["1970 Asian Games", "Argentina"]}]

    def judge(model: str, title: str, sentence: str, fact: str, predictor=None) -> dict[str, float]:
        if "Argentina" in fact and "Bangkok" in sentence:
            return probs(0.03, 0.9)
        if "gold medal" in fact and "gold medal in the 1970 Asian Games" in sentence:
            return probs(0.9, 0.02)
        return probs(0.05, 0.05)

    monkeypatch.setattr(VerifyFacts, "atomic_facts", lambda self, claim, names, planned: (facts, None, 0))
    monkeypatch.setattr(importlib.import_module("claimhop.program.verify.alternatives.verify_facts"), "judge_pair", judge)
    state = {"claim": claim["claim"], "selected": selected}
    # three sentences per fact: the gold-medal sentence ranks third for the first fact (with the default 2 that
    # fact stays unsettled, and the claim is still contradicted)
    out = VerifyFacts(Context(verifier="facts", fact_evidence=3, **CONFIDENT_JUDGE_RULE))(
        ToVerify(claim=claim["claim"], selected=selected))
    result = {"verdict": out.verdict, "confidence": out.confidence, "verdict_reason": out.reason, "facts": out.facts,
              "evidence": out.evidence}
    assert result["verdict"] == "CONTRADICTED"
    assert [f["verdict"] for f in result["facts"]] == ["SUPPORTED", "CONTRADICTED"]
    bangkok = next(e for e in result["evidence"] if "Bangkok" in e["sentence"])
    assert bangkok["title"] == "1970 Asian Games" and bangkok["sentence"] in selected[1]["text"]
    answer = written_answer({**state, **result})
    assert f'The collection says instead: "{bangkok["sentence"]}" [{bangkok["ref"]}]' in answer


def test_with_passage_context_the_judge_reads_whom_a_pronoun_names_and_the_sentence_is_still_cited():
    """A sentence alone ("She is also well known for her role in the movie Foxes.") does not say who "she" is;
    `fact_context=passage` shows the judge the sentence within its document, from the document's start."""
    text = ("Cherie Ann Currie (born November 30, 1959) is an American musician. She is also well known for her role in "
            "the movie Foxes. She later became a chainsaw artist.")
    sentence = "She is also well known for her role in the movie Foxes."
    shown: list[str] = []

    def judge(title: str, evidence: str, fact: str) -> dict[str, float]:
        shown.append(evidence)
        return {"entailment": 0.9, "contradiction": 0.05, "neutral": 0.05}

    fact = {"text": "Cherie Currie starred in Foxes.", "entities": ["Cherie Currie", "Foxes"]}
    documents = [{"title": "Cherie Currie", "text": text}]
    by_sentence = check_facts([fact], documents, judge, RULE, 1)
    assert shown == [by_sentence["facts"][0]["evidence"][0]["sentence"]]  # the default judges the sentence alone
    shown.clear()
    by_passage = check_facts([fact], documents, judge, RULE, 1, context="passage")
    cited = by_passage["facts"][0]["evidence"][0]["sentence"]
    assert shown[0].startswith("Cherie Ann Currie") and cited in shown[0] and cited in split_sentences(text)
    first = "Cherie Ann Currie (born November 30, 1959) is an American musician."
    assert passage_around(sentence, text, limit=130) == f"{first} {sentence}"  # the start first, then what follows
    assert passage_around(sentence, text, limit=120) == f"{sentence} She later became a chainsaw artist."
    assert passage_around(sentence, text, limit=len(sentence)) == sentence  # nothing fits beside it: the sentence
    assert passage_around("not in it", text) == "not in it"
