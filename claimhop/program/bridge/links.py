"""Following the links between articles (no model call): the bridge follows the best documents' links of the first
searches; the later links (claimhop/program/later_links.py) follow those of the articles the chain has reached."""

from __future__ import annotations

from claimhop.program.found import Found, candidate
from claimhop.retrieval.article_links import LinkTable, rank_linked
from claimhop.retrieval.service import SearchEngine
from state.schema import Candidate, Hop

LINK_SOURCES = 10  # the documents whose links are followed: the best 10 hold the chain's next article for most claims


def generic_names(retriever: SearchEngine, links: LinkTable | None, names: list[str], generic: int) -> set[str]:
    """The names whose own article `generic` or more articles name (a country, a city, a broadcaster): no bridge.
    Empty without a link table (an external engine) or with `generic` 0."""
    if links is None or generic <= 0:
        return set()
    found = set()
    for name in names:
        hits = retriever.by_title(name, limit=1)
        if hits and links.times_named_of(hits[0].doc_id) >= generic:
            found.add(name)
    return found


def articles_linked_from(retriever: SearchEngine, links: LinkTable | None, candidates: dict[str, Candidate],
                         sources: list[int], limit: int, by_specificity: bool, step: str, generic: int = 0) -> Found:
    """Up to `limit` articles that `sources` (best first) name and no candidate is yet, as candidates found by
    `step`, with a hop per source; never an article `generic` or more articles name (when above 0). Nothing
    without a link table (an external engine)."""
    if links is None or not candidates or not sources or limit <= 0:
        return Found({}, [])
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
    return Found(found, hops)


def follow_links(retriever: SearchEngine, links: LinkTable | None, candidates: dict[str, Candidate], limit: int,
                 by_specificity: bool = False, generic: int = 0) -> Found:
    """Articles not yet found that the best documents so far name most often, each naming weighted, with
    `by_specificity`, by how few articles name the target."""
    best = sorted(candidates.values(), key=lambda c: -c["retrieval_score"])[:LINK_SOURCES]
    return articles_linked_from(retriever, links, candidates, [c["doc_id"] for c in best], limit, by_specificity,
                                "links", generic)
