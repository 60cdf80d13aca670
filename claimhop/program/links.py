"""Following the links between articles (no model call): the bridge follows the best documents' links, and
stage 4, the later links (node `later_links`), follows those of the articles the chain has reached.

Link following in the bridge reads the best documents of the first searches. The articles the claim names, and
what the bridge and the gap loop found, are a hop further along the chain, and their own links are the next
hop: "Anthony Bushell" names "Danger Man", and only "Danger Man" names its creator "Ralph Smart". The later hop
runs after the gap loop, so it changes no prompt: a rerun replays every model call from the DSPy cache."""

from __future__ import annotations

from dataclasses import dataclass

import dspy

from claimhop.entities.matching import is_about
from claimhop.program.built import Built
from claimhop.program.search import Found, candidate
from claimhop.retrieval.article_links import LinkTable, rank_linked
from claimhop.retrieval.service import SearchEngine
from state.context import Context
from state.schema import Candidate, Hop

LINK_SOURCES = 10  # the documents whose links are followed: the best 10 hold the chain's next article for most claims
LATER_STEPS = ("bridge", "links", "gap_loop")  # steps whose documents are a hop further along the chain


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


def later_link_sources(candidates: dict[str, Candidate], claim_entities: list[str]) -> list[int]:
    """Where the chain goes on from: the articles about a name the claim gives (the chain starts there), then
    what the bridge, link following and the gap loop found, best first."""
    own = [c for c in candidates.values() if any(is_about(e, c["title"]) for e in claim_entities)]
    later = sorted((c for c in candidates.values() if c not in own and any(
        step.startswith(LATER_STEPS) for step in c["found_by"])), key=lambda c: -c["retrieval_score"])
    return [c["doc_id"] for c in [*own, *later][:LINK_SOURCES]]


def later_hop(retriever: SearchEngine, links: LinkTable | None, candidates: dict[str, Candidate],
              claim_entities: list[str], limit: int, by_specificity: bool, generic: int = 0) -> Found:
    """The chain's next hop: up to `limit` articles that the claim's own articles and the later hops' documents
    name (`later_link_sources`), the most specific first with `by_specificity`."""
    sources = later_link_sources(candidates, claim_entities)
    return articles_linked_from(retriever, links, candidates, sources, limit, by_specificity, "later_links", generic)


@dataclass
class LinksResult(Found):
    """The later hop's documents and hops, and a line saying what it did (or why it could not)."""

    status: str = ""


class LaterLinks(dspy.Module):
    """The chain's next hop: the articles that the claim's own articles and the later hops' documents name, the
    most specific first (later_link_weighting=idf)."""

    def __init__(self, settings: Context, built: Built) -> None:
        super().__init__()
        self.settings, self.built = settings, built

    def forward(self, candidates: dict[str, Candidate], claim_entities: list[str]) -> LinksResult:
        ctx = self.settings
        links = self.built.links
        found = later_hop(self.built.engine, links, candidates, claim_entities, ctx.later_link_articles,
                          ctx.tuning.later_link_weighting == "idf", ctx.tuning.generic_links)
        if ctx.later_link_articles <= 0:
            status = "turned off (later_link_articles=0)"
        elif links is None:
            status = "not possible: this search engine has no link table"
        else:
            titles = list(found.candidates)
            status = f"{len(titles)} new documents" + (f" ({', '.join(titles)})" if titles else "")
        return LinksResult(found.candidates, found.hops, status)
