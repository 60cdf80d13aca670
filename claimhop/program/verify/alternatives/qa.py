"""The QA verifier (`verifier=qa`): each fact is checked by a question whose answer decides it, answered from
the evidence sentences of the selected documents by the model picking one lettered option, with each option's
probability read from the model (claimhop.lm.label_probs). One call a fact, one more when its subject is a
description that must first be resolved to a name.

A fact's record has the facts verifier's shape, so the claim's verdict, its confidence and `claimhop calibrate`
use the same rule (claimhop.program.verify.alternatives.ensemble): P(the fact's own answer) plays entailment, P(another
answer) contradiction and P(not stated) neutral; the question pins the value, so alignment is 1. The record
adds `questions`: each question, its options, the answer, its probability and the sentence that states it."""

from __future__ import annotations

from collections.abc import Callable

import dspy

from claimhop.entities.values import parse_fact, values_in
from claimhop.lm.classify import classify
from claimhop.lm.provider import get_lm
from claimhop.program.verify.alternatives.ensemble import EnsembleRule
from claimhop.program.verify.alternatives.evidence import rank_evidence
from claimhop.program.verify.alternatives.pipeline import checked_claim
from claimhop.program.verify.alternatives.questions import (
    LETTERS,
    NOT_STATED,
    Question,
    lettered,
    options_for,
    question_for,
    same_value,
    who_question,
)
from claimhop.program.verify.coverage import folded, mentioned
from claimhop.retrieval.titles import base_title, normalize_title
from claimhop.signatures import AnswerFromEvidence

Ask = Callable[[list[str], str, list[str]], dict[str, float]]  # (numbered evidence, question, options) -> P(option)
RESOLVED = 0.5  # a description takes the chosen name only when the model gives it at least even odds (qa_resolve)
PER_DOCUMENT = 2  # a subject's article often states the value in its second sentence
# A title of two to four capitalised words reads as a person's name ("Cherie Currie"), whose surname an article
# uses alone (full_name); set by hand (655ce85), not tuned.
PERSON_MIN_WORDS = 2  # capitalised words of a person-like title, at least
PERSON_MAX_WORDS = 4  # ... and at most


def ask_model(model: str, evidence: list[str], question: str, options: list[str],
              predictor: dspy.Predict | None = None) -> dict[str, float]:
    """P(each option) for one question over the evidence, the model choosing an option's letter
    (claimhop.lm.classify: constrained and read from the local model's tokens)."""
    letters = tuple(LETTERS[: len(options)])
    user = "Evidence:\n" + "\n".join(evidence) + f"\nQuestion: {question}\nOptions:\n" + "\n".join(lettered(options))

    def ask_dspy() -> str:
        with dspy.context(lm=get_lm(model), adapter=dspy.JSONAdapter()):
            out = (predictor or dspy.Predict(AnswerFromEvidence))(
                evidence=evidence, question=question, options=lettered(options))
        return str(out.letter).strip()[:1].upper()

    probs = classify(model, AnswerFromEvidence, user, letters, ask_dspy)
    return {option: probs[letter] for option, letter in zip(options, letters)}


def quoted(answer: str, spans: list[dict], kind: str = "value") -> dict | None:
    """The evidence sentence that states `answer` (the best-ranked one), else the best-ranked sentence. A yes/no
    answer is no span, so it is the best-ranked sentence."""
    if not spans:
        return None
    if kind != "yes_no":
        for span in spans:
            if answer and (mentioned(answer, folded(span["sentence"])) or same_value(answer, span["sentence"])):
                return span
    return spans[0]


class ModelFault(RuntimeError):
    """The model could not answer a question (a failed or malformed call), as opposed to a fault in this code."""


def answered(question: Question, spans: list[dict], ask: Ask, asked_text: str, limit: int) -> dict:
    """One question asked over `spans`: its options, each option's probability, the answer and its sentence.
    With no sentence to answer from, or nothing to choose but "not stated", the model is not asked."""
    options = options_for(question, values_in([s["sentence"] for s in spans]), asked_text, limit)
    if spans and len(options) > 1:
        evidence = [f"[{i}] {s['title']}: {s['sentence']}" for i, s in enumerate(spans, start=1)]
        probs = ask(evidence, question.text, options)
    else:
        probs = {o: float(o == NOT_STATED) for o in options}
    answer = max(probs, key=probs.get)
    source = quoted(answer, spans, question.kind) if answer != NOT_STATED else None
    return {"question": question.text, "kind": question.kind, "claimed": question.claimed, "options": options,
            "probs": {o: round(p, 4) for o, p in probs.items()}, "answer": answer,
            "probability": round(probs[answer], 4), "title": source["title"] if source else "",
            "sentence": source["sentence"] if source else ""}


def full_name(answer: str, title: str) -> str:
    """The name a "who" answer stands for. An article calls its subject by a surname ("Currie was the lead
    vocalist of the Runaways"), so an answer that is the last words of its article's title, a person-like name
    of two to four capitalised words, is that title ("Cherie Currie"): the facts then ask about the person, not
    about every Currie. Only a trailing match counts: "Los Angeles" is not "Los Angeles Rams", nor "Jett" "Joan
    Jett and the Blackhearts", nor "Kristen Stewart" "Kristen Stewart filmography"."""
    named = base_title(title)
    words, title_words = normalize_title(answer).split(), normalize_title(named).split()
    person_like = (PERSON_MIN_WORDS <= len(named.split()) <= PERSON_MAX_WORDS
                   and all(word[:1].isupper() for word in named.split()))
    if person_like and 0 < len(words) < len(title_words) and title_words[-len(words):] == words:
        return named
    return answer


def resolved_fact(fact: str, selected: list[dict], entities: list[str], ask: Ask, k: int,
                  known: dict[str, dict] | None = None, resolve: float = RESOLVED) -> tuple[str, dict | None]:
    """The fact with a descriptive subject replaced by the name the evidence gives it (the chain's first hop),
    and that question's record (`resolved`: whether the answer took the description's place, with odds of at
    least `resolve`; `name`: then the answer as its article titles it, see full_name); the fact unchanged and
    None when its subject is a name. `known` holds the claim's descriptions already resolved, so
    two facts about "the band's singer" ask once."""
    parse = parse_fact(fact)
    if not parse.description:
        return fact, None
    known = {} if known is None else known
    key = folded(parse.subject)
    if key not in known:
        named = [e for e in entities if mentioned(e, key)]
        spans = rank_evidence(parse.subject, selected, named, k, per_document=PER_DOCUMENT)
        record = answered(who_question(parse.subject), spans, ask, parse.subject, k)
        taken = record["answer"] != NOT_STATED and record["probability"] >= resolve
        known[key] = {**record, "name": full_name(record["answer"], record["title"]) if taken else "",
                      "resolved": taken}
    record = known[key]
    if not record["resolved"]:
        return fact, record
    start = parse.subject_start
    return f"{fact[:start]}{record['name']}{fact[start + len(parse.subject):]}", record


def evidence_for_question(question: Question, fact: str, selected: list[dict], entities: list[str], k: int
                          ) -> list[dict]:
    """The sentences a question is answered from, taken in turn for the fact with its value blanked out and for
    the fact as claimed. The blanked search finds what the evidence says in the value's place, right or wrong.
    The claimed one finds the sentence that states the claimed value ("She is also well known for her role in
    the movie "Foxes""), which the blanked search ranks below sentences about the subject's other films, so a
    true fact is not judged only on its neighbours; it may add only sentences that name the fact's subject (in
    the sentence or its article's title), so a false value stated about something else ("A Tribute to Richard
    Rodgers is a studio album") is not offered as the answer. A subject still a description names nothing, and
    the blanked search alone answers."""
    if question.kind != "value":
        return rank_evidence(fact, selected, entities, k, per_document=PER_DOCUMENT)
    asked = question.text.split("? ", 1)[1].replace("___", " ")
    entities = [e for e in entities if not same_value(e, question.claimed)]
    parse = parse_fact(fact)
    subject = "" if parse.description else parse.subject

    def names_subject(title: str, sentence: str) -> bool:
        return bool(subject) and mentioned(subject, folded(f"{base_title(title)} {sentence}"))

    return rank_evidence(asked, selected, entities, k, questions=[fact], per_document=PER_DOCUMENT,
                         admit=names_subject)


def check_fact_qa(fact: dict, selected: list[dict], ask: Ask, k: int, known: dict[str, dict] | None = None,
                  resolve: float = RESOLVED) -> dict:
    """A fact's record: its questions and answers, and one judged item for the ensemble rule (the answer's
    sentence with P(own answer), P(the likeliest other answer), P(not stated) as entailment, contradiction and
    neutral; none when there was no sentence to answer from). A description the model could not resolve leaves
    the fact as it is; a question it could not answer is an error on the fact."""
    questions: list[dict] = []
    text, who = fact["text"], None
    try:
        text, who = resolved_fact(fact["text"], selected, fact.get("entities", []), ask, k, known, resolve)
    except ModelFault:
        pass
    questions += [who] if who else []
    question = question_for(text, parse_fact(text))
    entities = [*fact.get("entities", []), *([who["name"]] if who and text != fact["text"] else [])]
    spans = evidence_for_question(question, text, selected, entities, k)
    judged, error = [], None
    try:
        last = answered(question, spans, ask, question.text, k)
    except ModelFault as err:
        error = str(err)
    else:
        questions.append(last)
        if spans:
            own = last["probs"].get(last["claimed"], 0.0)
            other = max((p for o, p in last["probs"].items() if o not in (last["claimed"], NOT_STATED)), default=0.0)
            source = quoted(last["answer"] if last["answer"] != NOT_STATED else last["claimed"], spans, question.kind)
            judged.append({"title": source["title"], "sentence": source["sentence"],
                           "probs": {"entailment": own, "contradiction": other,
                                     "neutral": last["probs"].get(NOT_STATED, 0.0)}})
    return {"fact": fact["text"], "entities": fact.get("entities", []), "evidence": judged, "alignment": 1.0,
            "error": error, "questions": questions}


def check_claim_qa(facts: list[dict], selected: list[dict], ask: Ask, rule: EnsembleRule, k: int,
                   resolve: float = RESOLVED) -> dict:
    """Every fact asked; the claim's verdict, confidence and reason (claimhop.program.verify.alternatives.pipeline), and the
    model calls it took (a description two facts share is asked once). A model fault becomes a ModelFault, so
    only those end as an error on a fact; a fault in this code is raised."""
    known: dict[str, dict] = {}
    calls = 0

    def counted(evidence: list[str], question: str, options: list[str]) -> dict[str, float]:
        nonlocal calls
        calls += 1
        try:
            return ask(evidence, question, options)
        except Exception as err:  # whatever the model or its server raised
            raise ModelFault(f"{type(err).__name__}: {str(err)[:160]}") from err

    result = checked_claim(facts, selected, lambda fact: check_fact_qa(fact, selected, counted, k, known, resolve), rule)
    return {**result, "calls": calls}
