"""Bridging: look up the entities a claim's chain passes through, and follow the links of found articles."""

from __future__ import annotations

from itertools import zip_longest

import dspy

from claimhop.entities.matching import is_about, mentions
from claimhop.retrieval.article_links import LinkTable
from claimhop.retrieval.service import SearchEngine
from claimhop.retrieval.titles import normalize_title
from claimhop.steps.common import call_lm, calls_made
from claimhop.steps.search import candidate
from state.schema import Candidate, Hop

SHOWN_TO_LM = 20


LINK_SOURCES = 10  # the documents whose links are followed


def lookup_entity(retriever: SearchEngine, entity: str, k: int, mode: str, must_name: bool = False) -> list:
    """The entity's own article(s) by title, then search results for its name, up to k distinct documents. With
    `must_name`, a search result counts only if it names the entity: searching "Edmund Burns" also ranks
    "Edmund Leach" high, and that article is not about him."""
    hits = retriever.by_title(entity, limit=k)
    seen = {h.doc_id for h in hits}
    for hit in retriever.search(entity, k, mode):
        if len(hits) >= k:
            break
        if must_name and not mentions(entity, normalize_title(f"{hit.title} {hit.text}")):
            continue
        if hit.doc_id not in seen:
            hits.append(hit)
            seen.add(hit.doc_id)
    return hits[:k]


def fetch_entities(
    retriever: SearchEngine, entities: list[str], step: str, k: int, mode: str, must_name: bool = False
) -> tuple[dict[str, Candidate], list[Hop]]:
    found: dict[str, Candidate] = {}
    hops: list[Hop] = []
    for entity in entities:
        hits = lookup_entity(retriever, entity, k, mode, must_name)
        for rank, hit in enumerate(hits, start=1):
            if hit.title not in found:
                found[hit.title] = candidate(hit, rank, step)
        hops.append({"step": step, "query": entity, "titles": [h.title for h in hits]})
    return found, hops


def choose(picked: list[str], ranked: list[str], limit: int) -> list[str]:
    """The LM's picks that are real candidates (by normalised name), interleaved with the ranking's best:
    a small model's judgement is hedged by the entity ranking instead of replacing it."""
    by_key = {normalize_title(name): name for name in ranked}
    valid = [by_key[normalize_title(p)] for p in picked if normalize_title(p) in by_key]
    chosen: list[str] = []
    for pair in zip_longest(valid, ranked):
        for name in pair:
            if name is not None and name not in chosen and len(chosen) < limit:
                chosen.append(name)
    return chosen


def follow_links(retriever: SearchEngine, candidates: dict[str, Candidate], limit: int, by_specificity: bool = False,
                 generic: int = 0) -> tuple[dict[str, Candidate], list[Hop]]:
    """Articles not yet found that the best documents so far name most often (`claimhop.retrieval.article_links`), each
    naming weighted, with `by_specificity`, by how few articles name the target. Nothing for an engine without
    the bundled corpus's indexes (an external engine)."""
    best = sorted(candidates.values(), key=lambda c: -c["retrieval_score"])[:LINK_SOURCES]
    return articles_linked_from(retriever, candidates, [c["doc_id"] for c in best], limit, by_specificity, "links", generic)


def corpus_links(retriever: SearchEngine) -> LinkTable | None:
    """The link table of the engine's corpus (claimhop's own indexes, or the PostgreSQL engine's); None for an
    engine that only answers queries."""
    return retriever.link_table()


def generic_names(retriever: SearchEngine, names: list[str], generic: int) -> set[str]:
    """The names whose own article `generic` or more articles name (a country, a city, a broadcaster): no bridge.
    Empty for an engine without claimhop's own indexes (no link table), or with `generic` 0."""
    links = corpus_links(retriever) if generic > 0 else None
    if links is None:
        return set()
    found = set()
    for name in names:
        hits = retriever.by_title(name, limit=1)
        if hits and links.times_named_of(hits[0].doc_id) >= generic:
            found.add(name)
    return found


LATER_STEPS = ("bridge", "links", "gap_loop")  # steps whose documents are a hop further along the chain


def later_link_sources(candidates: dict[str, Candidate], claim_entities: list[str]) -> list[int]:
    """Where the chain goes on from: the articles about a name the claim gives (the chain starts there), then
    what the bridge, link following and the gap loop found, best first. "Anthony Bushell" names "Danger Man",
    and only "Danger Man" names its creator "Ralph Smart"."""
    own = [c for c in candidates.values() if any(is_about(e, c["title"]) for e in claim_entities)]
    later = sorted((c for c in candidates.values() if c not in own and any(
        step.startswith(LATER_STEPS) for step in c["found_by"])), key=lambda c: -c["retrieval_score"])
    return [c["doc_id"] for c in [*own, *later][:LINK_SOURCES]]


def articles_linked_from(retriever: SearchEngine, candidates: dict[str, Candidate], sources: list[int], limit: int,
                    by_specificity: bool, step: str, generic: int = 0) -> tuple[dict[str, Candidate], list[Hop]]:
    """Up to `limit` articles that `sources` (best first) name and no candidate is yet, as candidates found by
    `step`, with a hop per source; never an article `generic` or more articles name (when above 0). Nothing for
    an engine without the bundled corpus's indexes (an external one)."""
    from claimhop.retrieval.article_links import rank_linked

    links = corpus_links(retriever)
    if links is None or not candidates or not sources or limit <= 0:
        return {}, []
    known = [c["doc_id"] for c in candidates.values()]
    if generic > 0:
        known += links.named_at_least(generic)
    found: dict[str, Candidate] = {}
    by_source: dict[str, list[str]] = {}
    ranked = rank_linked(links.pairs(sources), sources, limit, exclude=known,
                         weight=links.specificity if by_specificity else None)
    documents = {hit.doc_id: hit for hit in retriever.documents(sorted({i for pair in ranked for i in pair}))}
    for rank, (source, target) in enumerate(ranked, start=1):
        title = documents[target].title
        found[title] = candidate(documents[target], rank, step)
        by_source.setdefault(documents[source].title, []).append(title)
    hops: list[Hop] = [{"step": step, "query": f"named by {source}", "titles": titles}
                       for source, titles in by_source.items()]
    return found, hops


def later_hop(retriever: SearchEngine, candidates: dict[str, Candidate], claim_entities: list[str], limit: int,
              by_specificity: bool, generic: int = 0) -> tuple[dict[str, Candidate], list[Hop]]:
    """The chain's next hop, after the bridge and the gap loop: the articles that the claim's own articles and
    the later hops' documents name (`later_link_sources`), the most specific first with `by_specificity`."""
    sources = later_link_sources(candidates, claim_entities)
    return articles_linked_from(retriever, candidates, sources, limit, by_specificity, "later_links", generic)


def bridge_hop(state: dict, ctx, retriever: SearchEngine, program) -> dspy.Prediction:
    """The bridge step: the entity ranking's best uncovered names (with bridge_pick=lm, the program's PickBridges
    interleaved with them) looked up by title and search, then the best documents' links followed. Returns the
    entities, the model's picks, the documents found, the hops, what was looked up, and why the pick fell back."""
    ranked = [e for e in state.get("doc_entities", []) if not any(is_about(e, t) for t in state.get("candidates", {}))]
    generic = generic_names(retriever, ranked, ctx.tuning.generic_links)  # "United States" bridges nothing
    shown = [e for e in ranked if e not in generic][:SHOWN_TO_LM]
    picked, degraded, asked = [], None, bool(shown) and ctx.max_bridge_entities > 0 and ctx.bridge_pick == "lm"
    if asked:
        step = program.bridge
        out, degraded = call_lm(ctx, "bridge", lambda: step(claim=state["claim"], sub_questions=state.get("sub_questions", []),
                                                            candidates=shown, limit=ctx.max_bridge_entities), step.fallback)
        picked = out.entities
    entities = choose(picked, shown, ctx.max_bridge_entities)
    found, hops = fetch_entities(retriever, entities, "bridge", ctx.bridge_k, ctx.retrieval_mode,
                                 must_name=ctx.tuning.bridge_search == "naming")
    looked_up = list(entities)
    if ctx.link_articles:
        linked, link_hops = follow_links(retriever, state.get("candidates", {}), ctx.link_articles,
                                         by_specificity=ctx.tuning.link_weighting == "idf", generic=ctx.tuning.generic_links)
        found, hops = {**linked, **found}, hops + link_hops
        looked_up += [t for t in linked if t not in looked_up]
    return dspy.Prediction(entities=entities, picked=picked, found=found, hops=hops, looked_up=looked_up,
                           degraded=degraded, calls=calls_made(ctx, "bridge") if asked else 0)
