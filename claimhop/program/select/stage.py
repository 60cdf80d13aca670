"""Stage 5, selection (node `select_documents`): which candidates become the documents judged: the claim's own
top ranks, then coverage of its entities and the links that chain them (no model call)."""

from __future__ import annotations

from dataclasses import dataclass

import dspy

from claimhop.entities.matching import is_about, mentions, names_no_title
from claimhop.entities.ner import unique
from claimhop.program.built import Built
from claimhop.program.select.specificity import name_weights
from claimhop.retrieval.article_links import LinkTable
from claimhop.retrieval.titles import normalize_title
from state.context import Context
from state.schema import Candidate, SelectedDoc


def _matched(entities: list[str], cand: Candidate, normalized: str, title_bonus: float,
             weights: dict[str, float] | None = None) -> dict[str, float]:
    """The entities the document mentions, each with its weight (an entity that is the document's title counts
    more: the document is about it), times the name's own weight (`name_specificity`); a name weighing nothing (no
    BM25 word: "For", "X") is no mention, but still the title it is ("It (novel)")."""
    hits: dict[str, float] = {}
    for entity in entities:
        weight = (weights or {}).get(entity, 1.0)
        if is_about(entity, cand["title"]):
            hits[entity] = (1.0 + title_bonus) * (weight if weight > 0 else 1.0)
        elif weight > 0 and mentions(entity, normalized):
            hits[entity] = weight
    return hits


def score_candidates(candidates: dict[str, Candidate], claim_entities: list[str], looked_up: list[str],
                     ctx: Context, links: LinkTable | None = None, weights: dict[str, float] | None = None
                     ) -> list[SelectedDoc]:
    """All candidates, best first. score = retrieval_weight * fused retrieval score (0-1) + the claim's and the
    gap analyses' entity weights + a bonus for both + chain_weight * how specific a link to it is, when a
    document already chosen names it.

    The order is built one document at a time (when `coverage_decay` is below 1 or `chain_weight` above 0):
    - an entity the documents already chosen have is worth `coverage_decay` times less for each of them, so a
      document earns what it adds, and ten articles naming "Florida" do not crowd out the one about the claim's
      other name;
    - a document that a chosen one names is the next link of a chain ("Buddy Baker" names the film he scored),
      worth more the fewer articles name it (`LinkTable.relative_specificity`): "United States", which
      thousands name, is almost no link at all. `links` is the corpus's link table (None for an external engine,
      or when `chain_weight` is 0); each document records its bonus and the kept document that named it.
    `weights` are the names' own weights (claimhop.program.select.specificity; a name not in it counts 1)."""
    claim_entities = unique(claim_entities)
    looked_up = [e for e in unique(looked_up) if e.casefold() not in {c.casefold() for c in claim_entities}]
    top = max((c["retrieval_score"] for c in candidates.values()), default=1.0) or 1.0
    docs: list[tuple[SelectedDoc, dict[str, float], dict[str, float], int]] = []
    for cand in candidates.values():
        normalized = normalize_title(f"{cand['title']} {cand['text']}")
        claim_hits = _matched(claim_entities, cand, normalized, ctx.tuning.title_match_weight, weights)
        looked_up_hits = _matched(looked_up, cand, normalized, ctx.tuning.title_match_weight, weights)
        doc: SelectedDoc = {
            "rank": 0, "title": cand["title"], "text": cand["text"], "score": 0.0,
            "retrieval_score": round(cand["retrieval_score"] / top, 4), "claim_entities": list(claim_hits),
            "looked_up": list(looked_up_hits), "found_by": cand["found_by"],
        }
        if cand.get("source"):
            doc["source"] = cand["source"]
        docs.append((doc, claim_hits, looked_up_hits, cand["doc_id"]))
    chained = links is not None and ctx.tuning.chain_weight > 0
    had: dict[str, int] = {}  # how many chosen documents have each entity
    named: dict[int, float] = {}  # documents the chosen ones name, by the specificity of that link
    named_by: dict[int, str] = {}  # ... and the chosen document that named each first

    def worth(hits: dict[str, float]) -> float:
        return sum(weight * ctx.tuning.coverage_decay ** had.get(entity, 0) for entity, weight in hits.items())

    def score(item: tuple[SelectedDoc, dict[str, float], dict[str, float], int]) -> float:
        doc, claim_hits, looked_up_hits, doc_id = item
        return (ctx.tuning.retrieval_weight * doc["retrieval_score"] + ctx.tuning.claim_entity_weight * worth(claim_hits)
                + ctx.tuning.gap_entity_weight * worth(looked_up_hits) + (ctx.tuning.both_bonus if claim_hits and looked_up_hits else 0.0)
                + ctx.tuning.chain_weight * named.get(doc_id, 0.0))

    def order(item: tuple[SelectedDoc, dict[str, float], dict[str, float], int]) -> tuple:
        return -score(item), -item[0]["retrieval_score"], item[0]["title"]

    ranked: list[SelectedDoc] = []
    if ctx.tuning.coverage_decay >= 1.0 and not chained:
        for item in sorted(docs, key=order):
            item[0]["score"] = round(score(item), 4)
            ranked.append(item[0])
    else:
        remaining = list(docs)
        while remaining:
            best = min(remaining, key=order)
            best[0]["score"] = round(score(best), 4)
            ranked.append(best[0])
            remaining.remove(best)
            for entity in (*best[1], *best[2]):
                had[entity] = had.get(entity, 0) + 1
            if best[3] in named:
                best[0]["chain"] = {"bonus": round(ctx.tuning.chain_weight * named[best[3]], 4), "named_by": named_by[best[3]]}
            if chained and 0 <= best[3] < links.count:  # an id of another corpus names nothing here
                for target in links.named_by(best[3]):
                    if links.relative_specificity(target) > named.get(target, 0.0):
                        named[target] = links.relative_specificity(target)
                        named_by[target] = best[0]["title"]
    return renumbered(ranked)


def candidate_pool(candidates: dict[str, Candidate], claim_ranking: list[Candidate], ctx: Context
                   ) -> dict[str, Candidate]:
    """What selection chooses from: the hops' candidates and the claim's own first `claim_k` search results."""
    pool = dict(candidates)
    for cand in claim_ranking[: ctx.claim_k]:
        pool.setdefault(cand["title"], cand)
    return pool


def select_from(candidates: dict[str, Candidate], claim_entities: list[str], looked_up: list[str],
                claim_ranking: list[Candidate], ctx: Context, links: LinkTable | None = None, claim: str = "",
                weights: dict[str, float] | None = None) -> list[SelectedDoc]:
    """The `top_k` best candidates, in score order (a claim that names a document has the claim search's first
    `claim_lead` first, `file_claim_lead` in a collection of files, or with `claim_fusion` both orders fused; one
    that names none, that search's order under `unnamed_order=claim`). The claim's own first `claim_k` search
    results join the candidates, and its first `claim_floor` are kept whatever their score: what one search of the
    claim ranks high is evidence the entity scores may not see (a name the planner did not write down). A claim that
    names none of the candidates keeps its first `unnamed_floor` instead when that is more: with top_k, its own
    search's documents alone, which `unnamed_order=claim` puts in that search's order, so one plain search of the
    claim is never ahead of it at any depth."""
    pool = candidate_pool(candidates, claim_ranking, ctx)
    unnamed = names_nothing(pool, claim_entities, claim, ctx.tuning.named_words)
    floor_k = ctx.claim_floor
    if unnamed and ctx.tuning.unnamed_floor > ctx.claim_floor:
        floor_k = ctx.tuning.unnamed_floor
        for cand in claim_ranking[:floor_k]:  # the floor's documents are candidates, past claim_k too
            pool.setdefault(cand["title"], cand)
    ranked = score_candidates(pool, claim_entities, looked_up, ctx, links, weights)
    floor = {c["title"] for c in claim_ranking[:floor_k]} & set(pool)
    rest = [d["title"] for d in ranked if d["title"] not in floor][: max(0, ctx.top_k - len(floor))]
    chosen = floor | set(rest)
    selected = [d for d in ranked if d["title"] in chosen][: ctx.top_k]
    if ctx.unnamed_order == "claim" and unnamed:
        selected = in_claim_order(selected, claim_ranking)
    elif ctx.tuning.claim_fusion > 0:
        selected = claim_fused(selected, claim_ranking, ctx.tuning.claim_fusion, ctx.tuning.claim_fusion_k)
    elif lead := claim_lead_of(claim_ranking, ctx):
        selected = claim_led(selected, claim_ranking, lead)
    if ctx.tuning.documents_once:
        selected = documents_once(selected)
    return selected


def renumbered(docs: list[SelectedDoc]) -> list[SelectedDoc]:
    """The documents with their `rank` set to where they now stand (1 first), after a reordering."""
    for rank, doc in enumerate(docs, start=1):
        doc["rank"] = rank
    return docs


def documents_once(selected: list[SelectedDoc]) -> list[SelectedDoc]:
    """The same passages with each document's first one in place and its later ones ("Mars (2)", "Report >
    Methods") after the first passage of every other document (`documents_once`): the few passages the verifier reads
    first span as many documents as the 21 hold. A passage's document is its file (`source`); without one (the
    bundled Wikipedia corpus, one passage an article) every passage is its own document and nothing moves."""
    seen: set[str] = set()
    first: list[SelectedDoc] = []
    later: list[SelectedDoc] = []
    for doc in selected:
        key = doc.get("source") or doc["title"]
        (later if key in seen else first).append(doc)
        seen.add(key)
    return renumbered(first + later)


def claim_lead_of(claim_ranking: list[Candidate], ctx: Context) -> int:
    """How many of the claim search's first results lead the documents in selection order (a named claim's, or any
    under `unnamed_order=score`): `file_claim_lead` when they are passages of the user's files (they carry their
    `source`), `claim_lead` on a corpus of one passage an article (the bundled Wikipedia). A name in a claim is an
    article's title there, and selection's names and chains put the chain's articles first; in files a name is a
    topic that many passages mention, and a plain search of the claim ranks its evidence higher than they do."""
    if any(cand.get("source") for cand in claim_ranking):
        return ctx.tuning.file_claim_lead
    return ctx.tuning.claim_lead


def claim_led(selected: list[SelectedDoc], claim_ranking: list[Candidate], lead: int) -> list[SelectedDoc]:
    """The same documents with the claim search's first `lead` results among them first, in that search's order,
    and the others after them in the order they had (`claim_lead`, `file_claim_lead`)."""
    first = [c["title"] for c in claim_ranking[:lead]]
    by_title = {doc["title"]: doc for doc in selected}
    led = [by_title[t] for t in first if t in by_title]
    ordered = led + [doc for doc in selected if doc["title"] not in set(first)]
    return renumbered(ordered)


def claim_fused(selected: list[SelectedDoc], claim_ranking: list[Candidate], weight: float, k: int
                ) -> list[SelectedDoc]:
    """The same documents ordered by a reciprocal-rank fusion of selection's order with the claim search's own
    (`claim_fusion` its weight, `claim_fusion_k` the constant): a document both orders rank high moves up; those the
    claim search did not return keep selection's order among themselves."""
    position: dict[str, int] = {}
    for r, cand in enumerate(claim_ranking, start=1):
        position.setdefault(cand["title"], r)

    def fused(item: tuple[int, SelectedDoc]) -> float:
        rank, doc = item
        own = position.get(doc["title"])
        return 1.0 / (k + rank) + (weight / (k + own) if own else 0.0)

    ordered = [doc for _, doc in sorted(enumerate(selected, start=1), key=lambda item: (-fused(item), item[0]))]
    return renumbered(ordered)


def names_nothing(pool: dict[str, Candidate], claim_entities: list[str], claim: str = "", named_words: str = "any"
                  ) -> bool:
    """Whether the claim names none of the candidates (claimhop.entities.matching.names_no_title): then the names it
    has are topics many documents mention, and their counts rank documents worse than one search of the claim's
    words does (evidence among the first 2: 0.47 -> 0.76 on 45 Climate-FEVER claims)."""
    return names_no_title([cand["title"] for cand in pool.values()], claim_entities, claim, named_words)


def in_claim_order(selected: list[SelectedDoc], claim_ranking: list[Candidate]) -> list[SelectedDoc]:
    """The same documents, as the claim's own search ranks them (those it did not rank after, in their order)."""
    position = {cand["title"]: i for i, cand in enumerate(claim_ranking)}
    ordered = sorted(selected, key=lambda doc: (position.get(doc["title"], len(position)), doc["rank"]))
    return renumbered(ordered)


@dataclass
class Selection:
    """The documents judged, best first, and how many candidates they were chosen from."""

    selected: list[SelectedDoc]
    pooled: int


class Select(dspy.Module):
    """The `top_k` best candidates under the run's scoring, with the corpus's link table for its chains."""

    def __init__(self, settings: Context, built: Built) -> None:
        super().__init__()
        self.settings, self.built = settings, built

    def links(self) -> LinkTable | None:
        """The link table when chains count (chain_weight above 0), else None (the table is not even opened)."""
        return self.built.links if self.settings.tuning.chain_weight > 0 else None

    def weights(self, claim_entities: list[str], looked_up: list[str]) -> dict[str, float]:
        """The names' weights under `name_specificity` (empty when it is off: every name counts 1)."""
        tuning = self.settings.tuning
        if tuning.name_specificity <= 0:
            return {}
        said = {c.casefold() for c in claim_entities}
        names = unique(claim_entities if tuning.specific_names == "all" else []) + [
            e for e in unique(looked_up) if tuning.specific_names == "all" or e.casefold() not in said]
        return name_weights(names, self.built.engine, tuning.name_specificity)

    def forward(self, candidates: dict[str, Candidate], claim_entities: list[str], looked_up: list[str],
                claim_ranking: list[Candidate], claim: str = "") -> Selection:
        selected = select_from(candidates, claim_entities, looked_up, claim_ranking, self.settings, self.links(),
                               claim, self.weights(claim_entities, looked_up))
        return Selection(selected, len(candidate_pool(candidates, claim_ranking, self.settings)))
