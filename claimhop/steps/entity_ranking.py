"""Which names in the found documents are still unsearched: ranked by how often and where they appear."""

from __future__ import annotations

from collections import defaultdict

from claimhop.entities.matching import is_about, mentions
from claimhop.entities.ner import extract_entities as ner
from claimhop.retrieval.titles import normalize_title
from state.schema import State

DOCS_SCANNED = 30


KEPT = 40


CLAIM_ARTICLE_BONUS = 3.0  # follow the links of the claim's own articles before re-searching names it already gave


def rank_uncovered_entities(state: State) -> list[str]:
    """Entities not yet the title of a candidate, scored by the retrieval scores of the documents naming them,
    plus a boost when the claim or the gap analysis names them too, and when they stand in the article of an
    entity the claim names (that article is where the next hop starts: "Chandgi Ram" -> "1970 Asian Games")."""
    candidates = sorted(state.get("candidates", {}).values(), key=lambda c: -c["retrieval_score"])[:DOCS_SCANNED]
    if not candidates:
        return []
    top = candidates[0]["retrieval_score"]
    titles = [c["title"] for c in state.get("candidates", {}).values()]
    claim_text = normalize_title(" ".join([state["claim"], *state.get("sub_questions", [])]))
    scores: dict[str, float] = defaultdict(float)
    names: dict[str, str] = {}
    claim_entities = state.get("claim_entities", [])
    for cand, found in zip(candidates, ner([c["text"] for c in candidates])):
        from_claim_article = any(is_about(e, cand["title"]) for e in claim_entities)
        for entity in found:
            key = normalize_title(entity)
            names.setdefault(key, entity)
            scores[key] += cand["retrieval_score"] / top + (CLAIM_ARTICLE_BONUS if from_claim_article else 0.0)
    for entity in [*state.get("claim_entities", []), *state.get("gap_entities", [])]:
        key = normalize_title(entity)
        names.setdefault(key, entity)
        scores[key] += 1.0
    for key in list(scores):
        if mentions(names[key], claim_text):
            scores[key] += 2.0
    uncovered = [k for k in scores if k and not any(is_about(names[k], t) for t in titles)]
    uncovered = [k for k in uncovered if not is_fragment(k, titles, scores)]
    uncovered.sort(key=lambda k: -scores[k])
    return [names[k] for k in uncovered[:KEPT]]


def is_fragment(key: str, titles: list[str], scores: dict[str, float]) -> bool:
    """"Steve" or "Currie" when "Steve Augeri" or "Cherie Currie" is already known: a part of a longer name
    (a covered title or another entity) is no new entity to look up."""
    longer = [normalize_title(t) for t in titles] + [k for k in scores if k != key]
    return any(key != other and mentions(key, other) for other in longer)
