"""Stage 4, the later links (node `later_links`): the chain's next hop, the articles that the claim's own articles
and what the bridge and the gap loop found name (no model call). The articles the claim names, and what the bridge
and the gap loop found, are a hop further along the chain, and their own links are the next hop: "Anthony Bushell"
names "Danger Man", and only "Danger Man" names its creator "Ralph Smart". The later hop runs after the gap loop, so
it changes no prompt: a rerun replays every model call from the DSPy cache."""

from __future__ import annotations

from dataclasses import dataclass

import dspy

from claimhop.entities.matching import is_about
from claimhop.program.bridge.links import LINK_SOURCES, articles_linked_from
from claimhop.program.built import Built
from claimhop.program.found import Found
from claimhop.retrieval.article_links import LinkTable
from claimhop.retrieval.service import SearchEngine
from state.context import Context
from state.schema import Candidate

LATER_STEPS = ("bridge", "links", "gap_loop")  # steps whose documents are a hop further along the chain


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
