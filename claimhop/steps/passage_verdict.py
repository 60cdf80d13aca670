"""`verifier=passages`: the model reads the claim with whole passages of the selected documents in one pass, a
learned head turns what it read into the verdict (claimhop.verification.head), and each fact of the claim is
quoted from the passages read (claimhop.verification.quotes)."""

from __future__ import annotations

from claimhop.program import ClaimHopProgram
from claimhop.steps.common import call_lm, calls_made, emit, say
from claimhop.steps.facts import atomic_facts
from claimhop.verification.head import decide, load_head
from claimhop.verification.passages import passages_read
from claimhop.verification.quotes import quotes_for
from state.context import Context
from state.schema import Evidence, State


def verify_by_passages(state: State, ctx: Context, program: ClaimHopProgram) -> dict:
    """The verify node's update under `verifier=passages`: the program's Verify reads the passages in one pass."""
    facts, degraded, split_calls = atomic_facts(state, ctx)
    head = load_head()
    passages = passages_read(state.get("selected", []), state["claim"], head.reading)
    step = program.verify
    out, failed = call_lm(ctx, "verify", lambda: step(claim=state["claim"], passages=passages, model=ctx.model),
                          step.fallback)
    probs = out.probabilities
    if failed:
        degraded = f"{degraded}; {failed}" if degraded else failed
    verdict, confidence = decide(probs["supported"], probs["contradicted_if_not"], head.threshold)
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
