"""The verifiers, chosen in one place by the `verifier` setting: each turns the selected documents into the verify
node's update (verdict, confidence, reason, facts, numbered evidence, calls made)."""

from __future__ import annotations

from collections.abc import Callable

from claimhop.program import ClaimHopProgram
from claimhop.program.answering import numbered
from claimhop.steps.common import call_lm, emit, model_update, say
from claimhop.steps.facts import FALLBACK_VERDICT, nothing_to_go_on, verify_by_facts, verify_by_questions
from claimhop.steps.passage_verdict import verify_by_passages
from claimhop.verification.coverage import claim_names, unmentioned_names
from claimhop.verification.evidence import rank_evidence
from state.context import Context
from state.schema import Evidence, State


def verify_single(state: State, ctx: Context, program: ClaimHopProgram) -> dict:
    """`verifier=single`: one model call (the program's Verify.single) over the best evidence sentences; the
    answer's references are exactly the sentences the verdict rests on."""
    entities = [*state.get("claim_entities", []), *state.get("gap_entities", [])]
    pool = rank_evidence(state["claim"], state.get("selected", []), entities, ctx.evidence_sentences,
                         state.get("sub_questions", []))
    evidence: list[Evidence] = [{"ref": i, **e} for i, e in enumerate(pool, start=1)]

    def ask():
        out = program.verify.single(claim=state["claim"], evidence=numbered(evidence))
        return out.verdict, list(out.evidence_ids or [])

    (verdict, ids), degraded = call_lm(ctx, "verify", ask, lambda: (FALLBACK_VERDICT, []))
    if not evidence:
        verdict, ids = FALLBACK_VERDICT, []
    cited = [e for e in evidence if e["ref"] in set(ids)] or evidence[:3]
    behind = [{**e, "ref": i} for i, e in enumerate(cited, start=1)]
    emit("verify", event="verdict", verdict=verdict, evidence=behind, degraded=degraded)
    return {"verdict": verdict, "evidence": behind, **model_update(ctx, "verify", degraded),
            "messages": [say("verify", f"Verdict: {verdict} (on {len(behind)} evidence sentences).")]}


VERIFIERS: dict[str, Callable[[State, Context, ClaimHopProgram], dict]] = {
    "passages": verify_by_passages,  # the default
    "facts": verify_by_facts,
    "qa": verify_by_questions,
    "single": verify_single,
}


def verify_claim(state: State, ctx: Context, program: ClaimHopProgram) -> dict:
    """The verifier the settings name; no model call when no selected document mentions a name of the claim."""
    uncovered = unmentioned_names(claim_names(state["claim"], state.get("claim_entities", [])), state.get("selected", []))
    if uncovered:
        return nothing_to_go_on(uncovered)
    return VERIFIERS[ctx.verifier](state, ctx, program)
