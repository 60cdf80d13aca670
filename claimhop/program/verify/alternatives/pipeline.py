"""Check a claim fact by fact: for each atomic fact, its best evidence sentences from the selected documents,
an NLI judgement of each (evidence, fact) pair with label probabilities, how much of the fact the evidence
covers, and the ensemble rule's verdict and confidence; then the claim's verdict from its facts."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from claimhop.program.verify.alternatives.alignment import alignment_score
from claimhop.program.verify.alternatives.ensemble import (
    EnsembleRule,
    calibrated_confidence,
    combine,
    judge_fact,
)
from claimhop.program.verify.alternatives.evidence import rank_evidence
from claimhop.retrieval.encoder import encode
from claimhop.sentences import split_sentences

Judge = Callable[[str, str, str], dict[str, float]]  # (evidence title, evidence text, fact) -> label probs
JUDGE_ATTEMPTS = 2  # a reply that does not fit is retried once, then recorded as an error on that fact
JUDGED_PASSAGE_CHARS = 600  # a judged passage's length cap (half the corpus's documents are shorter than 480 characters)


def evidence_for(fact: str, entities: list[str], selected: list[dict], k: int) -> list[dict]:
    """The fact's k best sentences, each with its document, index and exact text, from k different documents
    when there are that many."""
    spans = rank_evidence(fact, selected, entities, k, per_document=1)
    texts = {doc["title"]: doc["text"] for doc in selected}
    out = []
    for span in spans:
        sentences = split_sentences(texts[span["title"]])
        out.append({"title": span["title"], "sentence": span["sentence"],
                    "sentence_index": sentences.index(span["sentence"]) if span["sentence"] in sentences else -1})
    return out


def passage_around(sentence: str, text: str, limit: int = JUDGED_PASSAGE_CHARS) -> str:
    """The sentence with its neighbours, as much of its document as fits in `limit` characters, so the judge reads
    who "he" or "the film" is (a sentence alone loses its subject: "She is also known for her role in Foxes")."""
    sentences = split_sentences(text)
    if sentence not in sentences:
        return sentence
    first = last = sentences.index(sentence)
    length = len(sentence)
    while True:  # grow towards the document's start first: that is where its subject is named
        if first > 0 and length + len(sentences[first - 1]) + 1 <= limit:
            first -= 1
            length += len(sentences[first]) + 1
        elif last + 1 < len(sentences) and length + len(sentences[last + 1]) + 1 <= limit:
            last += 1
            length += len(sentences[last]) + 1
        else:
            return " ".join(sentences[first:last + 1])


def best_similarity(fact: str, spans: list[dict]) -> float:
    if not spans:
        return 0.0
    vectors = encode([fact, *[s["sentence"] for s in spans]])
    return float(np.max(vectors[1:] @ vectors[0]))


def check_fact(fact: dict, selected: list[dict], judge: Judge, k: int, context: str = "sentence") -> dict:
    """A fact's judged evidence and alignment; its verdict comes from the rule in `checked_claim`. With
    `context="passage"` the judge reads each evidence sentence within its document (`passage_around`); the
    sentence stays what is cited."""
    spans = evidence_for(fact["text"], fact.get("entities", []), selected, k)
    texts = {doc["title"]: doc["text"] for doc in selected}
    judged, error = [], None
    for span in spans:
        shown = passage_around(span["sentence"], texts[span["title"]]) if context == "passage" else span["sentence"]
        for attempt in range(1, JUDGE_ATTEMPTS + 1):
            try:
                probs = judge(span["title"], shown, fact["text"])
                judged.append({**span, "probs": {label: round(p, 4) for label, p in probs.items()}})
                break
            except Exception as err:  # noqa: BLE001 - any model fault ends as an error on this fact
                if attempt == JUDGE_ATTEMPTS:
                    error = f"{type(err).__name__}: {str(err)[:160]}"
    alignment = alignment_score(fact["text"], fact.get("entities", []), spans, best_similarity(fact["text"], spans))
    return {"fact": fact["text"], "entities": fact.get("entities", []), "evidence": judged,
              "alignment": alignment, "error": error}


def rejudge(record: dict, rule: EnsembleRule) -> dict:
    """The fact's verdict and confidence from its recorded signals (judged evidence, alignment) under `rule`.
    A run and a replay with other thresholds (claimhop.evaluation.calibration) decide through this one function."""
    verdict, confidence = judge_fact([j["probs"] for j in record["evidence"]], record["alignment"], rule)
    if record.get("error") and not record["evidence"]:  # evidence was there but could not be judged: no confidence
        confidence = 0.0
    return {**record, "verdict": verdict, "confidence": confidence}


def check_facts(facts: list[dict], selected: list[dict], judge: Judge, rule: EnsembleRule, k: int,
                context: str = "sentence") -> dict:
    """Every fact checked; the claim's verdict, confidence and the reason for it."""
    return checked_claim(facts, selected, lambda fact: check_fact(fact, selected, judge, k, context), rule)


def checked_claim(facts: list[dict], selected: list[dict], check: Callable[[dict], dict], rule: EnsembleRule) -> dict:
    """Each fact's record from `check` (the facts or the QA verifier's), judged under `rule`, and the claim's
    verdict, confidence and reason from them."""
    if not selected:
        return {"facts": [], "verdict": "INSUFFICIENT_INFO", "confidence": 1.0,
                "reason": "no evidence: no document was selected"}
    records = [rejudge(check(fact), rule) for fact in facts]
    return {"facts": records, **decide(records, rule)}


def decide(records: list[dict], rule: EnsembleRule) -> dict:
    """The claim's verdict, confidence and reason from its judged facts (with `verdict` and `confidence`)."""
    failed = [r for r in records if r["error"] and not r["evidence"]]
    if failed and len(failed) == len(records):
        return {"verdict": "INSUFFICIENT_INFO", "confidence": 0.0,
                "reason": f"the model could not judge any fact ({failed[0]['error'].split(':')[0]})"}
    if not any(r["evidence"] for r in records):
        return {"verdict": "INSUFFICIENT_INFO", "confidence": 1.0, "reason": "no evidence sentence bears on any fact"}
    verdict, confidence, reason = combine([(r["verdict"], r["confidence"]) for r in records], rule)
    if rule.confidence_slope > 0:
        confidence = calibrated_confidence(weakest_entailment(records), verdict == "SUPPORTED", rule)
    return {"verdict": verdict, "confidence": confidence, "reason": reason}


def weakest_entailment(records: list[dict]) -> float:
    """The lowest, over a claim's facts, of each fact's best entailment probability (0 with no facts or evidence)."""
    return min((max((e["probs"]["entailment"] for e in r["evidence"]), default=0.0) for r in records), default=0.0)


def deciding_evidence(record: dict) -> dict | None:
    """The sentence that decided a fact: the most entailing for a supported fact, the most contradicting for a
    contradicted one, none for an unsettled one."""
    key = {"SUPPORTED": "entailment", "CONTRADICTED": "contradiction"}.get(record["verdict"])
    if key is None or not record["evidence"]:
        return None
    return max(record["evidence"], key=lambda e: e["probs"][key])


def closest_evidence(record: dict) -> dict | None:
    """For a fact no sentence settles: the best-ranked sentence examined, so the answer can show what was checked
    (quoted as not settling it) rather than nothing."""
    return record["evidence"][0] if record["evidence"] else None
