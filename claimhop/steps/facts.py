"""The claim's atomic facts and their verdicts: splitting, repairing fragments, judging each fact against evidence."""

from __future__ import annotations

from claimhop.entities.matching import mentions
from claimhop.entities.ner import extract_entities, unique
from claimhop.lm.usage import model_step
from claimhop.program import ClaimHopProgram
from claimhop.retrieval.titles import normalize_title
from claimhop.steps.common import (
    call_lm,
    calls_made,
    clean_list,
    emit,
    program_for,
    say,
    with_timeout,
)
from claimhop.verification.coverage import claim_names, folded, mentioned, nothing_about
from claimhop.verification.ensemble import EnsembleRule
from claimhop.verification.nli import judge_pair
from claimhop.verification.pipeline import (
    check_facts,
    closest_evidence,
    deciding_evidence,
)
from claimhop.verification.qa import ask_model, check_claim_qa
from state.context import Context
from state.schema import Evidence, State

FALLBACK_VERDICT = "INSUFFICIENT_INFO"
# a claim whose names no selected document mentions: not settled, and sure of it (fires on no dev claim)
NOTHING_CONFIDENCE = 0.95


def atomic_facts(state: State, ctx: Context) -> tuple[list[dict], str | None, int]:
    """The claim's atomic facts (DSPy SplitClaim, or the plan's facts with `planner=facts`); the whole claim as
    one fact when the model gives none. Also the degradation, if any, and the model calls made (0 for the plan's)."""
    planned = state.get("planned_facts")
    if planned and ctx.tuning.fact_names != "asked":
        return facts_from_split(planned, state["claim"], state.get("claim_entities", []), ctx.tuning.fact_repair), None, 0

    def usable(facts) -> bool:
        return any(str(getattr(f, "text", f)).strip() for f in facts or [])

    split = splitter(ctx)
    result, degraded = call_lm(ctx, "verify", lambda: split(claim=state["claim"]).facts,
                               list, usable=usable, cost_step="claim_split")
    facts = facts_from_split(result, state["claim"], state.get("claim_entities", []), ctx.tuning.fact_repair)
    return facts, degraded, calls_made(ctx, "verify", "claim_split")


def splitter(ctx: Context):
    """The program's predictor that splits a claim into facts under the settings: the planning call's with
    `planner=facts` (what the graph judges), else SplitClaim with or without the model naming each fact's names."""
    program = program_for(ctx)
    if ctx.planner == "facts" and ctx.tuning.fact_names != "asked":
        return program.plan.facts
    return program.verify.split_with_names if ctx.tuning.fact_names == "asked" else program.verify.split


def facts_from_split(split, claim: str, claim_entities: list[str], repair: str = "off") -> list[dict]:
    """SplitClaim's output as the facts a check judges (at most 5, fragments joined); the whole claim when empty.
    Each fact's names are found in its text (the claim's names it mentions, then NER), not asked of the model:
    fewer tokens to generate, and no invented names. With `repair="claim"`, a split that lost a name of the claim
    gets the whole claim as one more fact. One place, so the eval measures what the graph checks."""
    facts = [{"text": " ".join(str(getattr(f, "text", f)).split()), "entities": clean_list(getattr(f, "entities", []), 8)}
             for f in split or []]
    facts = whole_facts([f for f in facts if f["text"]][:5]) or [{"text": claim, "entities": []}]
    if repair == "claim" and lost_names(claim, claim_entities, [f["text"] for f in facts]):
        facts.append({"text": claim, "entities": []})
    unnamed = [f for f in facts if not f["entities"]]  # fact_names=found, or the model gave none
    for fact, found in zip(unnamed, extract_entities([f["text"] for f in unnamed], with_spans=True)):
        named = [e for e in claim_entities if mentions(e, normalize_title(fact["text"]))]
        fact["entities"] = clean_list(unique([*named, *found]), 8)
    return facts


def lost_names(claim: str, claim_entities: list[str], facts: list[str]) -> list[str]:
    """The claim's names (without nationalities) that no fact mentions (fuzzy, accents folded): a part of the
    claim the split dropped. Measured on the recorded splits of the 169 dev claims at 3750aa0: 42 lose one."""
    text = folded(" ".join(facts))
    return [name for name in claim_names(claim, claim_entities) if not mentioned(name, text)]


def whole_facts(facts: list[dict]) -> list[dict]:
    """A small model sometimes splits a claim into fragments ("in 1970", "held in Argentina"); a fragment (it
    starts in lower case or has fewer than 3 words) is joined to the fact before it, so each fact stands alone."""
    merged: list[dict] = []
    for fact in facts:
        text = fact["text"]
        if merged and (text[:1].islower() or len(text.split()) < 3):
            last = merged[-1]
            last["text"] = f"{last['text'].rstrip('. ')} {text}"
            last["entities"] = list(dict.fromkeys([*last["entities"], *fact["entities"]]))
        else:
            merged.append({**fact})
    return merged


def verify_by_facts(state: State, ctx: Context, program: ClaimHopProgram | None = None) -> dict:
    """`verifier=facts`: each fact judged sentence by sentence with label probabilities."""
    program = program or program_for(ctx)
    facts, degraded, split_calls = atomic_facts(state, ctx)
    rule = EnsembleRule.from_settings(ctx)

    def judge(title: str, sentence: str, fact: str) -> dict[str, float]:
        with model_step("fact_judgements"):
            return with_timeout(lambda: judge_pair(ctx.model, title, sentence, fact, program.verify.judge_pair), ctx.model_timeout_s)

    result = check_facts(facts, state.get("selected", []), judge, rule, ctx.tuning.fact_evidence, ctx.tuning.fact_context)
    return verdict_of_facts(result, degraded, calls=split_calls + sum(len(r["evidence"]) for r in result["facts"]))


def verify_by_questions(state: State, ctx: Context, program: ClaimHopProgram | None = None) -> dict:
    """`verifier=qa`: each fact asked as a question whose answer decides it (claimhop.verification.qa)."""
    program = program or program_for(ctx)
    facts, degraded, split_calls = atomic_facts(state, ctx)
    rule = EnsembleRule.for_questions(ctx)

    def ask(evidence: list[str], question: str, options: list[str]) -> dict[str, float]:
        with model_step("fact_judgements"):
            return with_timeout(lambda: ask_model(ctx.model, evidence, question, options,
                                                  program.verify.answer_from_evidence), ctx.model_timeout_s)

    result = check_claim_qa(facts, state.get("selected", []), ask, rule, ctx.tuning.qa_evidence, ctx.tuning.qa_resolve)
    return verdict_of_facts(result, degraded, calls=split_calls + result["calls"])


def verdict_of_facts(result: dict, degraded: str | None, calls: int) -> dict:
    """The verify node's update from checked facts: each fact's deciding (or closest) sentence numbered once as
    evidence, the events the CLI and the chat page show, and the model calls made (the split's, if any, among them)."""
    failures = [r for r in result["facts"] if r["error"]]
    if failures:
        failure = f"verify: the model could not judge {len(failures)} fact(s): {failures[0]['error'][:120]}"
        degraded = f"{degraded}; {failure}" if degraded else failure
    evidence: list[Evidence] = []

    def reference(title: str, sentence: str, score: float) -> int:
        """The sentence's reference number, numbering it when it is new."""
        known = next((e for e in evidence if (e["title"], e["sentence"]) == (title, sentence)), None)
        if known is None:
            known = {"ref": len(evidence) + 1, "title": title, "sentence": sentence, "score": score}
            evidence.append(known)
        return known["ref"]

    for record in result["facts"]:
        for question in record.get("questions", []):  # the QA verifier: every answer quotes its sentence
            question["ref"] = reference(question["title"], question["sentence"], question["probability"]) \
                if question["sentence"] else 0
        decided = deciding_evidence(record) or closest_evidence(record)
        record["ref"] = reference(decided["title"], decided["sentence"], max(decided["probs"].values())) \
            if decided and decided.get("sentence") else 0
        emit("verify", event="fact", **record)
    emit("verify", event="verdict", verdict=result["verdict"], confidence=result["confidence"],
         reason=result["reason"], evidence=evidence, degraded=degraded)
    return {
        "verdict": result["verdict"], "confidence": result["confidence"], "verdict_reason": result["reason"],
        "facts": result["facts"], "evidence": evidence, "lm_calls": calls,
        "degraded": [degraded] if degraded else [],
        "messages": [say("verify", f"Verdict: {result['verdict']} (confidence {result['confidence']:.2f}; "
                                   f"{len(result['facts'])} facts checked).")],
    }


def nothing_to_go_on(names: list[str]) -> dict:
    """The verdict for a claim no selected document mentions any name of: INSUFFICIENT_INFO, said plainly, with
    no model call and no quote (there is nothing to quote)."""
    reason = nothing_about(names)
    emit("verify", event="verdict", verdict="INSUFFICIENT_INFO", confidence=NOTHING_CONFIDENCE, reason=reason,
         evidence=[], degraded=None)
    return {
        "verdict": "INSUFFICIENT_INFO", "confidence": NOTHING_CONFIDENCE, "verdict_reason": reason, "facts": [],
        "evidence": [], "lm_calls": 0, "degraded": [],
        "messages": [say("verify", f"Verdict: INSUFFICIENT_INFO ({reason}).")],
    }
