"""Step 8: the verdict. By default (verifier=passages) the model reads the claim with the best passages whole in
one pass, a learned head decides, and each fact of the claim is quoted from what was read: all of it in
claimhop/program/verify/stage.py; the other verifiers are beside it (claimhop/program/choices.py)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from claimhop.program import stages_for
from claimhop.program.runtime import emit, say, settings_of
from claimhop.program.verify.stage import ToVerify
from state.context import Context
from state.schema import State


def verify(state: State, runtime: Runtime[Context]) -> dict:
    """Judge the claim on the selected documents with the verifier the settings name (the passages, by default)."""
    out = stages_for(settings_of(runtime)).verify(ToVerify(
        state["claim"], state.get("selected", []), state.get("claim_entities", []), state.get("planned_facts"),
        state.get("looked_up", []), state.get("sub_questions", [])))
    for number, record in enumerate(out.facts or []):
        emit("verify", event="fact", **record, **({"quotes": out.quotes[number]} if out.quotes is not None else {}))
    optional = {"confidence": out.confidence, "reason": out.reason}
    emit("verify", event="verdict", verdict=out.verdict, **{k: v for k, v in optional.items() if v is not None},
         evidence=out.evidence, degraded=out.degraded,
         **({"read": out.read, "probabilities": out.probabilities} if out.read is not None else {}))
    update = {"verdict": out.verdict, "evidence": out.evidence, "lm_calls": out.calls,
              "degraded": [out.degraded] if out.degraded else [],
              "messages": [say("verify", f"Verdict: {out.verdict} ({out.summary}).")]}
    if out.facts is not None:
        update.update(confidence=out.confidence, verdict_reason=out.reason, facts=out.facts)
    return update
