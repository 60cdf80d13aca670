"""planner=two_calls: one call only decomposes the claim into sub-questions (node `decompose`); a second,
EarlyGap (node `early_gap`), names the facts the claim needs, the entities to look up, including ones it only
describes, and 1-3 queries for what is hardest to find."""

from __future__ import annotations

import dspy

from claimhop.program.outputs import clean_list
from claimhop.program.plan.stage import GapResult, PlanResult
from claimhop.program.runtime import call_lm, calls_made
from claimhop.signatures import MAX_REPLY_ITEMS, DecomposeClaim, EarlyGapAnalysis
from state.context import Context


class PlanTwoCalls(dspy.Module):
    """The claim's sub-questions only; the names to look up come from EarlyGap's call."""

    cost_step = "decompose"  # a bare decompose is charged to itself

    def __init__(self, settings: Context) -> None:
        super().__init__()
        self.settings = settings
        self.decompose = dspy.Predict(DecomposeClaim)

    def forward(self, claim: str) -> PlanResult:
        ctx = self.settings
        questions, degraded = call_lm(
            ctx, "decompose", lambda: clean_list(self.decompose(claim=claim).sub_questions, ctx.max_sub_questions),
            lambda: [claim], usable=bool, cost_step=self.cost_step)
        return PlanResult(sub_questions=questions, facts=None, gap=None, degraded=degraded,
                          calls=calls_made(ctx, "decompose", self.cost_step))


class EarlyGap(dspy.Module):
    """Before any search: the facts the claim needs, the entities to look up and the queries for them."""

    def __init__(self, settings: Context) -> None:
        super().__init__()
        self.settings = settings
        self.predict = dspy.Predict(EarlyGapAnalysis)

    def forward(self, claim: str, planned: dict | None = None) -> GapResult:
        ctx = self.settings

        def ask() -> GapResult:
            out = self.predict(claim=claim)
            return GapResult(facts_needed=clean_list(out.facts_needed, MAX_REPLY_ITEMS),
                             entities=clean_list(out.entities, MAX_REPLY_ITEMS),
                             queries=clean_list(out.queries, ctx.tuning.max_gap_queries))

        gap, degraded = call_lm(ctx, "early_gap", ask, lambda: GapResult([], [], [claim]), usable=lambda g: bool(g.queries))
        gap.queries = clean_list(gap.queries, ctx.tuning.max_gap_queries) or [claim]
        gap.entities = clean_list(gap.entities, MAX_REPLY_ITEMS)
        gap.degraded, gap.calls = degraded, calls_made(ctx, "early_gap")
        return gap
