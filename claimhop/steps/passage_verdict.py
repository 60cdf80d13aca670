"""`verifier=passages`: the model reads the claim with whole passages of the selected documents in one pass, a
learned head turns what it read into the verdict (claimhop.verification.head), and each fact of the claim is
quoted from the passages read (claimhop.verification.quotes)."""

from __future__ import annotations

import math

import dspy

from claimhop.lm.classify import classify
from claimhop.lm.provider import LOCAL, get_lm, local_engine
from claimhop.program import PASSAGES_SYSTEM, JudgeClaimOnPassages
from claimhop.steps.common import call_lm, calls_made, emit, program_for, say
from claimhop.steps.facts import atomic_facts
from claimhop.verification.head import decide, load_head
from claimhop.verification.passages import passage_messages, passages_read
from claimhop.verification.quotes import quotes_for
from state.context import Context
from state.schema import Evidence, State

FAILED = {"supported": 0.0, "contradicted_if_not": 0.0, "yes": 0.0, "failed": 1.0}


def passage_probabilities(model: str, claim: str, passages: list[dict], program=None) -> dict[str, float]:
    """P(supported), P(contradicted | not supported) and the model's own P(yes) for the claim on these passages.
    The local model: one pass, the head reads its hidden state. Another model: its P(yes) through logprobs (or
    its yes/no through DSPy), calibrated as the head file says; it cannot tell contradicted from unsettled."""
    head = load_head()
    messages = passage_messages(claim, passages)
    if (model or LOCAL) == LOCAL:
        return head.probabilities(local_engine().last_hidden_state(messages))

    def ask_dspy() -> str:
        with dspy.context(lm=get_lm(model), adapter=dspy.JSONAdapter()):
            predictor = getattr(program, "judge_passages", None) or dspy.Predict(JudgeClaimOnPassages)
            return predictor(documents=[f"[{p['title']}] {p['text']}" for p in passages], claim=claim).supported

    p_yes = classify(model, PASSAGES_SYSTEM, messages[1]["content"], ("yes", "no"), ask_dspy)["yes"]
    p_yes = min(max(p_yes, 1e-6), 1 - 1e-6)
    a, b = head.yes_calibration
    p_supported = 1.0 / (1.0 + math.exp(-(a * math.log(p_yes / (1 - p_yes)) + b)))
    return {"supported": p_supported, "contradicted_if_not": 0.0, "yes": p_yes}


def verify_by_passages(state: State, ctx: Context) -> dict:
    """The verify node's update under `verifier=passages`."""
    facts, degraded, split_calls = atomic_facts(state, ctx)
    passages = passages_read(state.get("selected", []), claim=state["claim"])
    program = program_for(ctx)
    probs, failed = call_lm(ctx, "verify", lambda: passage_probabilities(ctx.model, state["claim"], passages, program),
                            lambda: dict(FAILED))
    if failed:
        degraded = f"{degraded}; {failed}" if degraded else failed
    verdict, confidence = decide(probs["supported"], probs["contradicted_if_not"], load_head().threshold)
    if probs.get("failed"):
        verdict, confidence = "INSUFFICIENT_INFO", 0.0
    evidence: list[Evidence] = []
    records = []
    for fact, quotes in zip(facts, quotes_for([f["text"] for f in facts], passages)):
        refs = []
        for quote in quotes:
            known = next((e for e in evidence if (e["title"], e["sentence"]) == (quote["title"], quote["sentence"])), None)
            if known is None:
                known = {"ref": len(evidence) + 1, "title": quote["title"], "sentence": quote["sentence"],
                         "score": quote["score"]}
                evidence.append(known)
            refs.append(known["ref"])
        record = {"fact": fact["text"], "entities": fact["entities"], "evidence": [], "alignment": 0.0,
                  "verdict": verdict, "confidence": confidence, "error": None, "ref": refs[0] if refs else 0,
                  "refs": refs, "read": True}
        records.append(record)
        emit("verify", event="fact", **record, quotes=quotes)
    reason = reason_of(verdict, probs, len(passages))
    emit("verify", event="verdict", verdict=verdict, confidence=confidence, reason=reason, evidence=evidence,
         degraded=degraded, read=[p["title"] for p in passages], probabilities=probs)
    return {
        "verdict": verdict, "confidence": confidence, "verdict_reason": reason, "facts": records,
        "evidence": evidence, "lm_calls": split_calls + calls_made(ctx, "verify"), "degraded": [degraded] if degraded else [],
        "messages": [say("verify", f"Verdict: {verdict} (confidence {confidence:.2f}; read {len(passages)} passages).")],
    }


def reason_of(verdict: str, probs: dict[str, float], read: int) -> str:
    """Why, in the words the answer uses."""
    if probs.get("failed"):
        return "the model could not read the passages"
    if verdict == "SUPPORTED":
        return f"read together, the {read} best passages support every part of the claim"
    if verdict == "CONTRADICTED":
        return f"read together, the {read} best passages say something else than the claim"
    return f"read together, the {read} best passages do not settle the claim"
