"""Stage 3, the bridge (nodes `extract_entities` and `bridge`): the names in the found documents that no search
has covered yet, ranked by how strongly the retrieval points at them (spaCy NER); the best of them looked up by
title, then search; and the best documents' links followed. By default (bridge_pick=ranking) no model call; with
bridge_pick=lm the model picks among the names too (alternatives/lm_pick.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import zip_longest

import dspy

from claimhop.entities.matching import is_about, mentions
from claimhop.program.bridge.links import follow_links, generic_names
from claimhop.program.bridge.ranking import rank_uncovered_entities
from claimhop.program.built import Built
from claimhop.program.found import Found, candidate
from claimhop.retrieval.service import Mode, SearchEngine
from claimhop.retrieval.titles import normalize_title
from state.context import Context
from state.schema import Candidate, Hop

SHOWN_TO_LM = 20  # names the bridge picks from (and shows the model, with bridge_pick=lm)


def lookup_entity(retriever: SearchEngine, entity: str, k: int, mode: Mode, must_name: bool = False) -> list:
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


def fetch_entities(retriever: SearchEngine, entities: list[str], step: str, k: int, mode: Mode,
                   must_name: bool = False) -> Found:
    """Each entity looked up (`lookup_entity`), its documents as candidates found by `step`, a hop per entity."""
    found: dict[str, Candidate] = {}
    hops: list[Hop] = []
    for entity in entities:
        hits = lookup_entity(retriever, entity, k, mode, must_name)
        for rank, hit in enumerate(hits, start=1):
            if hit.title not in found:
                found[hit.title] = candidate(hit, rank, step)
        hops.append({"step": step, "query": entity, "titles": [h.title for h in hits]})
    return Found(found, hops)


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


@dataclass
class BridgeResult(Found):
    """The bridging entities, the model's picks (bridge_pick=lm), what was looked up (by name or by following
    links: selection weighs it as a looked-up name), why the pick fell back and the calls made."""

    entities: list[str] = field(default_factory=list)
    picked: list[str] = field(default_factory=list)
    looked_up: list[str] = field(default_factory=list)
    degraded: str | None = None
    calls: int = 0


class Bridge(dspy.Module):
    """bridge_pick=ranking: the entity ranking's best uncovered names, never a generic one ("United States"
    bridges nothing), looked up by title and search; then the best documents' links followed."""

    def __init__(self, settings: Context, built: Built) -> None:
        super().__init__()
        self.settings, self.built = settings, built

    def ranked_names(self, claim: str, sub_questions: list[str], candidates: dict[str, Candidate],
                     claim_entities: list[str], looked_up: list[str]) -> list[str]:
        """The names the found documents give that no search has covered yet, best first (node `extract_entities`;
        ranking.py): what the bridge picks from."""
        return rank_uncovered_entities(claim, sub_questions, candidates, claim_entities, looked_up)

    def pick(self, claim: str, sub_questions: list[str], shown: list[str]) -> tuple[list[str], str | None, int]:
        """The model's picks among the names shown, why the pick fell back and the calls made: none here (the
        ranking's best are taken)."""
        return [], None, 0

    def forward(self, claim: str, sub_questions: list[str], doc_entities: list[str],
                candidates: dict[str, Candidate]) -> BridgeResult:
        ctx, engine = self.settings, self.built.engine
        ranked = [e for e in doc_entities if not any(is_about(e, t) for t in candidates)]
        generic = generic_names(engine, self.built.links if ctx.tuning.generic_links > 0 else None, ranked,
                                ctx.tuning.generic_links)
        shown = [e for e in ranked if e not in generic][:SHOWN_TO_LM]
        picked, degraded, calls = self.pick(claim, sub_questions, shown)
        entities = choose(picked, shown, ctx.max_bridge_entities)
        found = fetch_entities(engine, entities, "bridge", ctx.bridge_k, ctx.retrieval_mode,
                               must_name=ctx.tuning.bridge_search == "naming")
        looked_up = list(entities)
        if ctx.link_articles:
            linked = follow_links(engine, self.built.links, candidates, ctx.link_articles,
                                  by_specificity=ctx.tuning.link_weighting == "idf", generic=ctx.tuning.generic_links)
            found = Found({**linked.candidates, **found.candidates}, found.hops + linked.hops)
            looked_up += [t for t in linked.candidates if t not in looked_up]
        return BridgeResult(found.candidates, found.hops, entities=entities, picked=picked, looked_up=looked_up,
                            degraded=degraded, calls=calls)
