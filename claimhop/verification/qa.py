"""The QA verifier (`verifier=qa`): each fact is checked by a question whose answer decides it, answered from
the evidence sentences of the selected documents by the model picking one lettered option, with each option's
probability read from the model (claimhop.lm.label_probs). One call a fact, one more when its subject is a
description that must first be resolved to a name.

A fact's record has the facts verifier's shape, so the claim's verdict, its confidence and `claimhop calibrate`
use the same rule (claimhop.verification.ensemble): P(the fact's own answer) plays entailment, P(another
answer) contradiction and P(not stated) neutral; the question pins the value, so alignment is 1. The record
adds `questions`: each question, its options, the answer, its probability and the sentence that states it."""

from __future__ import annotations

from collections.abc import Callable

import dspy

from claimhop.entities.values import parse_fact, values_in
from claimhop.lm.label_probs import NoLogprobs, classify_local, classify_served
from claimhop.lm.provider import LOCAL, get_lm, local_engine
from claimhop.program import ANSWER_FROM_EVIDENCE_SYSTEM, AnswerFromEvidence
from claimhop.verification.coverage import folded, mentioned
from claimhop.verification.ensemble import EnsembleRule
from claimhop.verification.evidence import rank_evidence
from claimhop.verification.pipeline import checked_claim
from claimhop.verification.questions import (
    LETTERS,
    NOT_STATED,
    Question,
    lettered,
    options_for,
    question_for,
    same_value,
    who_question,
)

Ask = Callable[[list[str], str, list[str]], dict[str, float]]  # (numbered evidence, question, options) -> P(option)
RESOLVED = 0.5  # a description takes the chosen name only when the model gives it at least even odds
PER_DOCUMENT = 2  # a subject's article often states the value in its second sentence


def ask_model(model: str, evidence: list[str], question: str, options: list[str],
              predictor: dspy.Predict | None = None) -> dict[str, float]:
    """P(each option) for one question over the evidence. The local model's reply is constrained to the
    options' letters; a served model is read through its logprobs, else asked through DSPy (counted certain)."""
    letters = tuple(LETTERS[: len(options)])
    user = "Evidence:\n" + "\n".join(evidence) + f"\nQuestion: {question}\nOptions:\n" + "\n".join(lettered(options))
    if (model or LOCAL) == LOCAL:
        _, probs = classify_local(local_engine(), ANSWER_FROM_EVIDENCE_SYSTEM, user, letters)
    else:
        try:
            _, probs = classify_served(get_lm(model), ANSWER_FROM_EVIDENCE_SYSTEM, user, letters)
        except NoLogprobs:
            with dspy.context(lm=get_lm(model), adapter=dspy.JSONAdapter()):
                out = (predictor or dspy.Predict(AnswerFromEvidence))(
                    evidence=evidence, question=question, options=lettered(options))
            letter = str(out.letter).strip()[:1].upper()
            probs = {x: float(x == letter) for x in letters}
    return {option: probs[letter] for option, letter in zip(options, letters)}


def quoted(answer: str, spans: list[dict]) -> dict | None:
    """The evidence sentence that states `answer` (the best-ranked one), else the best-ranked sentence."""
    if not spans:
        return None
    for span in spans:
        text = folded(span["sentence"])
        if answer and (mentioned(answer, text) or same_value(answer, span["sentence"])):
            return span
    return spans[0]


def answered(question: Question, spans: list[dict], ask: Ask, asked_text: str, limit: int) -> dict:
    """One question asked over `spans`: its options, each option's probability, the answer and its sentence."""
    options = options_for(question, values_in([s["sentence"] for s in spans]), asked_text, limit)
    evidence = [f"[{i}] {s['title']}: {s['sentence']}" for i, s in enumerate(spans, start=1)]
    probs = ask(evidence, question.text, options)
    answer = max(probs, key=probs.get)
    source = quoted(answer, spans) if answer != NOT_STATED else None
    return {"question": question.text, "kind": question.kind, "claimed": question.claimed, "options": options,
            "probs": {o: round(p, 4) for o, p in probs.items()}, "answer": answer,
            "probability": round(probs[answer], 4), "title": source["title"] if source else "",
            "sentence": source["sentence"] if source else ""}


def resolved_fact(fact: str, selected: list[dict], entities: list[str], ask: Ask, k: int,
                  known: dict[str, dict] | None = None) -> tuple[str, dict | None]:
    """The fact with a descriptive subject replaced by the name the evidence gives it (the chain's first hop),
    and that question's record; the fact unchanged and None when its subject is a name. `known` holds the
    claim's descriptions already resolved, so two facts about "the band's singer" ask once."""
    parse = parse_fact(fact)
    if not parse.description:
        return fact, None
    known = {} if known is None else known
    if parse.subject not in known:
        named = [e for e in entities if mentioned(e, folded(parse.subject))]
        spans = rank_evidence(parse.subject, selected, named, k, per_document=PER_DOCUMENT)
        known[parse.subject] = answered(who_question(parse.subject), spans, ask, parse.subject, k)
    record = known[parse.subject]
    if record["answer"] == NOT_STATED or record["probability"] < RESOLVED or len(record["options"]) < 2:
        return fact, record
    start = parse.subject_start
    return f"{fact[:start]}{record['answer']}{fact[start + len(parse.subject):]}", record


def evidence_for_question(question: Question, fact: str, selected: list[dict], entities: list[str], k: int
                          ) -> list[dict]:
    """The sentences a question is answered from, found for the fact with its value blanked out: searching with
    the fact's own value would favour sentences that repeat it, right or wrong."""
    if question.kind != "value":
        return rank_evidence(fact, selected, entities, k, per_document=PER_DOCUMENT)
    asked = question.text.split("? ", 1)[1].replace("___", " ")
    entities = [e for e in entities if not same_value(e, question.claimed)]
    return rank_evidence(asked, selected, entities, k, per_document=PER_DOCUMENT)


def check_fact_qa(fact: dict, selected: list[dict], ask: Ask, k: int, known: dict[str, dict] | None = None) -> dict:
    """A fact's record: its questions and answers, and one judged item for the ensemble rule (the answer's
    sentence with P(own answer), P(another), P(not stated) as entailment, contradiction and neutral)."""
    questions, error = [], None
    try:
        text, who = resolved_fact(fact["text"], selected, fact.get("entities", []), ask, k, known)
        questions += [who] if who else []
        question = question_for(text, parse_fact(text))
        entities = [*fact.get("entities", []), *([who["answer"]] if who and text != fact["text"] else [])]
        spans = evidence_for_question(question, text, selected, entities, k)
        record = answered(question, spans, ask, question.text, k)
        questions.append(record)
    except Exception as err:  # noqa: BLE001 - any model fault ends as an error on this fact
        error = f"{type(err).__name__}: {str(err)[:160]}"
    judged = []
    if questions and not error:
        last = questions[-1]
        own = last["probs"].get(last["claimed"], 0.0)
        other = max((p for o, p in last["probs"].items() if o not in (last["claimed"], NOT_STATED)), default=0.0)
        source = quoted(last["answer"] if last["answer"] != NOT_STATED else last["claimed"], spans) or {}
        judged.append({"title": source.get("title", ""), "sentence": source.get("sentence", ""),
                       "probs": {"entailment": own, "contradiction": other,  # the likeliest other answer
                                 "neutral": last["probs"].get(NOT_STATED, 0.0)}})
    return {"fact": fact["text"], "entities": fact.get("entities", []), "evidence": judged, "alignment": 1.0,
            "error": error, "questions": questions}


def check_claim_qa(facts: list[dict], selected: list[dict], ask: Ask, rule: EnsembleRule, k: int) -> dict:
    """Every fact asked; the claim's verdict, confidence and reason (claimhop.verification.pipeline), and the
    model calls it took (a description two facts share is asked once)."""
    known: dict[str, dict] = {}
    calls = 0

    def counted(evidence: list[str], question: str, options: list[str]) -> dict[str, float]:
        nonlocal calls
        calls += 1
        return ask(evidence, question, options)

    result = checked_claim(facts, selected, lambda fact: check_fact_qa(fact, selected, counted, k, known), rule)
    return {**result, "calls": calls}
