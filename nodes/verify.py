"""Step 8: judge the claim against evidence sentences from the selected documents (DSPy VerifyClaim)."""

from __future__ import annotations

from nodes.common import call_lm, emit, program_for, say, settings_of
from state.schema import Evidence, State
from verification.evidence import rank_evidence

FALLBACK_VERDICT = "INSUFFICIENT_INFO"


def numbered(evidence: list[Evidence]) -> list[str]:
    return [f"[{e['ref']}] {e['title']}: {e['sentence']}" for e in evidence]


def verify(state: State, runtime) -> dict:
    ctx = settings_of(runtime)
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
        "lm_calls": 1,
        "degraded": [degraded] if degraded else [],
        "messages": [say("verify", f"Verdict: {verdict} (on {len(behind)} evidence sentences).")],
    }
