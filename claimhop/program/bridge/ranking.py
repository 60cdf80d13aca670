"""The bridge's entity ranking (node `extract_entities`): the names in the found documents that no search has
covered yet, scored by how strongly the retrieval points at them (spaCy NER, no model call)."""

from __future__ import annotations

from collections import defaultdict

from claimhop.entities.matching import is_about, mentions
from claimhop.entities.ner import extract_entities as ner
from claimhop.retrieval.titles import normalize_title
from state.schema import Candidate

DOCS_SCANNED = 30  # the best candidates whose names are ranked (NER on more costs time and adds noise)
KEPT = 40  # names kept for the bridge (it looks up at most max_bridge_entities of them)
CLAIM_ARTICLE_BONUS = 3.0  # follow the links of the claim's own articles before re-searching names it already gave
NAMED_BONUS = 1.0  # a name among the claim's entities or the names looked up: what a top document's mention adds
IN_CLAIM_BONUS = 2.0  # ... and more when the claim or a sub-question spells it out; both set in ff51bcf, not tuned


def rank_uncovered_entities(claim: str, sub_questions: list[str], candidates: dict[str, Candidate],
                            claim_entities: list[str], looked_up: list[str]) -> list[str]:
    """Entities not yet the title of a candidate, scored by the retrieval scores of the documents naming them,
    plus a boost when the claim or a look-up (the plan, the bridge, the gap loop) named them too, and when they stand
    in the article of an entity the claim names (that article is where the next hop starts: "Chandgi Ram" -> "1970
    Asian Games")."""
    best = sorted(candidates.values(), key=lambda c: -c["retrieval_score"])[:DOCS_SCANNED]
    if not best:
        return []
    top = best[0]["retrieval_score"]
    titles = [c["title"] for c in candidates.values()]
    claim_text = normalize_title(" ".join([claim, *sub_questions]))
    scores: dict[str, float] = defaultdict(float)
    names: dict[str, str] = {}
    for cand, found in zip(best, ner([c["text"] for c in best])):
        from_claim_article = any(is_about(e, cand["title"]) for e in claim_entities)
        for entity in found:
            key = normalize_title(entity)
            names.setdefault(key, entity)
            scores[key] += cand["retrieval_score"] / top + (CLAIM_ARTICLE_BONUS if from_claim_article else 0.0)
    for entity in [*claim_entities, *looked_up]:
        key = normalize_title(entity)
        names.setdefault(key, entity)
        scores[key] += NAMED_BONUS
    for key in list(scores):
        if mentions(names[key], claim_text):
            scores[key] += IN_CLAIM_BONUS
    uncovered = [k for k in scores if k and not any(is_about(names[k], t) for t in titles)]
    uncovered = [k for k in uncovered if not is_fragment(k, titles, scores)]
    uncovered.sort(key=lambda k: -scores[k])
    return [names[k] for k in uncovered[:KEPT]]


def is_fragment(key: str, titles: list[str], scores: dict[str, float]) -> bool:
    """"Steve" or "Currie" when "Steve Augeri" or "Cherie Currie" is already known: a part of a longer name
    (a covered title or another entity) is no new entity to look up."""
    longer = [normalize_title(t) for t in titles] + [k for k in scores if k != key]
    return any(key != other and mentions(key, other) for other in longer)
