"""A retrieval round shared by the hops: run queries, record each hop, and turn hits into candidates."""

from __future__ import annotations

import dspy

from claimhop.entities.matching import is_about
from claimhop.retrieval.service import Hit, Mode, SearchEngine
from claimhop.steps.common import call_lm, calls_made
from state.context import Context
from state.schema import Candidate, Hop, State, merge_candidates

RRF_K = 60


def candidate(hit: Hit, rank: int, step: str) -> Candidate:
    """Each time a document is found it earns 1/(60 + rank), so documents many hops agree on rise."""
    found: Candidate = {
        "doc_id": hit.doc_id,
        "title": hit.title,
        "text": hit.text,
        "retrieval_score": 1.0 / (RRF_K + rank),
        "found_by": [step],
    }
    if hit.source:  # a document of the user's own collection: the file it came from goes into the citation
        found["source"] = hit.source
    return found


def search_round(
    retriever: SearchEngine, queries: list[str], step: str, k_total: int | None, k_each: int, mode: Mode
) -> tuple[dict[str, Candidate], list[Hop]]:
    """Search every query for `k_each` documents; with `k_total`, take the queries' results round-robin until
    that many distinct documents are found (so "18 documents in all" means 18 distinct ones)."""
    results = retriever.search_many(queries, k_each, mode) if queries else []
    budget = k_total if k_total is not None else len(queries) * k_each
    taken: dict[str, Candidate] = {}
    per_query: list[list[str]] = [[] for _ in queries]
    for rank in range(1, k_each + 1):
        for q_index, hits in enumerate(results):
            if rank <= len(hits):
                hit = hits[rank - 1]
                if hit.title in taken:  # found again by another query of this round: it earns more
                    taken[hit.title]["retrieval_score"] += 1.0 / (RRF_K + rank)
                    per_query[q_index].append(hit.title)
                elif len(taken) < budget:
                    taken[hit.title] = candidate(hit, rank, step)
                    per_query[q_index].append(hit.title)
    hops: list[Hop] = [{"step": step, "query": q, "titles": t} for q, t in zip(queries, per_query)]
    return taken, hops


def dual_phase_search(
    retriever: SearchEngine, claim: str, sub_questions: list[str], gap_queries: list[str], ctx: Context
) -> tuple[dict[str, Candidate], list[Hop]]:
    """Phase 1: the claim and its sub-questions (the claim leads: as one query it already finds most single-hop
    evidence); phase 2: the early gap queries. Each phase yields its k distinct documents."""
    found1, hops1 = search_round(
        retriever, [claim, *sub_questions], "phase1", ctx.phase1_k, ctx.phase1_k, ctx.retrieval_mode
    )
    found2, hops2 = search_round(retriever, gap_queries, "phase2", ctx.phase2_k, ctx.phase2_k, ctx.retrieval_mode)
    return merge_candidates(found1, found2), hops1 + hops2


SHOWN_DOCS = 8


PROMPT_SNIPPET_CHARS = 90


def found_so_far(state: State) -> list[str]:
    """The best candidates as 'title: first sentence', short enough for a small model's context."""
    best = sorted(state.get("candidates", {}).values(), key=lambda c: -c["retrieval_score"])[:SHOWN_DOCS]
    return [f"{c['title']}: {c['text'][:PROMPT_SNIPPET_CHARS]}" for c in best]


def gap_round(state: State, ctx: Context, retriever: SearchEngine, program) -> dspy.Prediction:
    """One gap-loop round: the program's GapRound shown what was found, then a search for its new queries. A query
    that repeats an earlier one, or names a document already found, cannot find anything new and is dropped."""
    iteration = state.get("iteration", 0) + 1
    step = program.gap
    out, degraded = call_lm(ctx, "gap_loop", lambda: step(claim=state["claim"], found=found_so_far(state)), step.fallback)
    asked = {h["query"].casefold() for h in state.get("hops", [])}
    known = list(state.get("candidates", {}))
    queries = [q for q in out.queries if q.casefold() not in asked and not any(is_about(q, t) for t in known)]
    queries = queries[: ctx.tuning.loop_queries]
    found, hops = search_round(retriever, queries, f"gap_loop_{iteration}", None, ctx.loop_k, ctx.retrieval_mode)
    return dspy.Prediction(iteration=iteration, missing=out.missing, entities=out.entities, queries=queries,
                           complete=out.complete, found=found, hops=hops, degraded=degraded,
                           calls=calls_made(ctx, "gap_loop"))
