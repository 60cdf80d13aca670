"""Step 8: judge the claim against evidence sentences from the selected documents: one model call over the
evidence (DSPy VerifyClaim, `verifier=single`), fact by fact with label probabilities (`verifier=facts`), or
by a question per fact (`verifier=qa`)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from claimhop.steps.common import (
    call_lm,
    calls_made,
    emit,
    program_for,
    say,
    settings_of,
)
from claimhop.steps.facts import (
    FALLBACK_VERDICT,
    nothing_to_go_on,
    numbered,
    verify_by_facts,
    verify_by_questions,
)
from claimhop.steps.passage_verdict import verify_by_passages
from claimhop.verification.coverage import claim_names, unmentioned_names
from claimhop.verification.evidence import rank_evidence
from state.context import Context
from state.schema import Evidence, State


def verify(state: State, runtime: Runtime[Context]) -> dict:
    """Judge the claim against evidence sentences of the selected documents (one call, or fact by fact)."""
    ctx = settings_of(runtime)
    names = claim_names(state["claim"], state.get("claim_entities", []))
    uncovered = unmentioned_names(names, state.get("selected", []))
    if uncovered:
        return nothing_to_go_on(uncovered)
    if ctx.verifier == "facts":
        return verify_by_facts(state, ctx)
    if ctx.verifier == "qa":
        return verify_by_questions(state, ctx)
    if ctx.verifier == "passages":
        return verify_by_passages(state, ctx)
    entities = [*state.get("claim_entities", []), *state.get("gap_entities", [])]
    pool = rank_evidence(
        state["claim"], state.get("selected", []), entities, ctx.evidence_sentences, state.get("sub_questions", [])
    )
    evidence: list[Evidence] = [{"ref": i, **e} for i, e in enumerate(pool, start=1)]
    program = program_for(ctx)

    def ask():
        out = program.verify(claim=state["claim"], evidence=numbered(evidence))
        return out.verdict, list(out.evidence_ids or [])

    (verdict, ids), degraded = call_lm(ctx, "verify", ask, lambda: (FALLBACK_VERDICT, []))
    if not evidence:
        verdict, ids = FALLBACK_VERDICT, []
    cited = [e for e in evidence if e["ref"] in set(ids)] or evidence[:3]
    # Renumber: the answer's references are exactly the sentences the verdict rests on.
    behind = [{**e, "ref": i} for i, e in enumerate(cited, start=1)]
    emit("verify", event="verdict", verdict=verdict, evidence=behind, degraded=degraded)
    return {
        "verdict": verdict,
        "evidence": behind,
        "lm_calls": calls_made(ctx, "verify"),
        "degraded": [degraded] if degraded else [],
        "messages": [say("verify", f"Verdict: {verdict} (on {len(behind)} evidence sentences).")],
    }
