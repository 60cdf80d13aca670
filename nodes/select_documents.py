"""Step 7: deduplicated, entity-scored selection of the top documents (21 by default), in score order."""

from __future__ import annotations

from entities.matching import is_about, mentions
from entities.ner import unique
from nodes.common import emit, say, settings_of
from retrieval.titles import normalize_title
from state.context import Context
from state.schema import Candidate, SelectedDoc, State


def _matched(entities: list[str], cand: Candidate, normalized: str, title_bonus: float) -> tuple[list[str], float]:
    """Entities the document mentions, and their weight (an entity that is the document's title counts more)."""
    hits, weight = [], 0.0
    for entity in entities:
        if is_about(entity, cand["title"]):
            hits.append(entity)
            weight += 1.0 + title_bonus
        elif mentions(entity, normalized):
            hits.append(entity)
            weight += 1.0
    return hits, weight


def score_candidates(candidates: dict[str, Candidate], claim_entities: list[str], gap_entities: list[str],
                     ctx: Context) -> list[SelectedDoc]:
    """score = retrieval_weight * fused retrieval score (0-1) + claim and gap entity weights + a bonus for both."""
    claim_entities = unique(claim_entities)
    gap_entities = [e for e in unique(gap_entities) if e.casefold() not in {c.casefold() for c in claim_entities}]
    top = max((c["retrieval_score"] for c in candidates.values()), default=1.0) or 1.0
    scored: list[SelectedDoc] = []
    for cand in candidates.values():
        normalized = normalize_title(f"{cand['title']} {cand['text']}")
        claim_hits, claim_w = _matched(claim_entities, cand, normalized, ctx.title_match_weight)
        gap_hits, gap_w = _matched(gap_entities, cand, normalized, ctx.title_match_weight)
        retrieval = cand["retrieval_score"] / top
        score = (
            ctx.retrieval_weight * retrieval
            + ctx.claim_entity_weight * claim_w
            + ctx.gap_entity_weight * gap_w
            + (ctx.both_bonus if claim_hits and gap_hits else 0.0)
        )
        scored.append({
            "rank": 0, "title": cand["title"], "text": cand["text"], "score": round(score, 4),
            "retrieval_score": round(retrieval, 4), "claim_entities": claim_hits, "gap_entities": gap_hits,
            "found_by": cand["found_by"],
        })
    scored.sort(key=lambda d: (-d["score"], -d["retrieval_score"], d["title"]))
    for rank, doc in enumerate(scored, start=1):
        doc["rank"] = rank
    return scored


def select_documents(state: State, runtime) -> dict:
    ctx = settings_of(runtime)
    ranked = score_candidates(
        state.get("candidates", {}), state.get("claim_entities", []), state.get("gap_entities", []), ctx
    )
    selected = ranked[: ctx.top_k]
    emit("select_documents", event="selection", candidates=len(ranked),
         selected=[{"rank": d["rank"], "title": d["title"], "score": d["score"]} for d in selected])
    return {
        "selected": selected,
        "messages": [say("select_documents", f"Kept {len(selected)} of {len(ranked)} documents: "
                         + ", ".join(d["title"] for d in selected[:8]) + ("…" if len(selected) > 8 else ""))],
    }
