"""Stage 2, search (nodes `search_claim` and `dual_retrieval`): the claim alone first, so a user sees documents
within seconds; then phase 1, the claim and its sub-questions, and phase 2, the early gap queries. Each phase
yields its k distinct documents. No model call."""

from __future__ import annotations

import dspy

from claimhop.program.built import Built
from claimhop.program.found import HOP_RANK_K, Found, candidate
from claimhop.retrieval.feedback import with_feedback
from claimhop.retrieval.service import Hit, Mode, SearchEngine
from state.context import Context
from state.schema import Candidate, merge_candidates


def search_round(
    retriever: SearchEngine, queries: list[str], step: str, k_total: int | None, k_each: int, mode: Mode
) -> Found:
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
                    taken[hit.title]["retrieval_score"] += 1.0 / (HOP_RANK_K + rank)
                    per_query[q_index].append(hit.title)
                elif len(taken) < budget:
                    taken[hit.title] = candidate(hit, rank, step)
                    per_query[q_index].append(hit.title)
    return Found(taken, [{"step": step, "query": q, "titles": t} for q, t in zip(queries, per_query)])


class Search(dspy.Module):
    """The searches before and after the plan, on the run's engine (built once per settings)."""

    SHOWN = 7  # the first documents a user sees while the model plans (a screenful in the chat page)

    def __init__(self, settings: Context, built: Built) -> None:
        super().__init__()
        self.settings, self.built = settings, built

    def first_look(self, claim: str) -> list[Hit]:
        """The claim alone, fused, never re-ranked by the model: what selection may add from or keep (`claim_k`,
        `claim_floor`, `unnamed_floor`) and what the user sees first."""
        ctx, engine = self.settings, self.built.engine
        depth = max(self.SHOWN, ctx.claim_k, ctx.claim_floor, ctx.tuning.unnamed_floor)
        hits = engine.search_fused(claim, depth, ctx.retrieval_mode)
        if ctx.tuning.claim_feedback and ctx.retrieval_mode == "hybrid" and engine.has_term_statistics():
            hits = with_feedback(engine, claim, hits, ctx.tuning.claim_feedback)
        return hits

    def forward(self, claim: str, sub_questions: list[str], gap_queries: list[str]) -> Found:
        """Phase 1, the claim and its sub-questions (the claim leads: as one query it already finds most single-hop
        evidence); phase 2, the early gap queries."""
        ctx, engine = self.settings, self.built.engine
        first = search_round(engine, [claim, *sub_questions], "phase1", ctx.phase1_k, ctx.phase1_k, ctx.retrieval_mode)
        second = search_round(engine, gap_queries, "phase2", ctx.phase2_k, ctx.phase2_k, ctx.retrieval_mode)
        return Found(merge_candidates(first.candidates, second.candidates), first.hops + second.hops)
