"""planner=one_call: one model call writes sub-questions (not facts) and names what to look up."""

from __future__ import annotations

import dspy

from claimhop.program.outputs import clean_list
from claimhop.program.plan.stage import PlanResult, names_to_look_up
from claimhop.program.runtime import call_lm, calls_made
from claimhop.signatures import MAX_REPLY_ITEMS, PlanClaim
from state.context import Context


class PlanOneCall(dspy.Module):
    """Sub-questions and names in one call; the verifier splits the claim into facts itself."""

    cost_step = "plan"

    def __init__(self, settings: Context) -> None:
        super().__init__()
        self.settings = settings
        self.one_call = dspy.Predict(PlanClaim)

    def forward(self, claim: str) -> PlanResult:
        ctx = self.settings

        def ask() -> tuple[list[str], list[str]]:
            out = self.one_call(claim=claim)
            return (clean_list(out.sub_questions, MAX_REPLY_ITEMS)[: ctx.max_sub_questions],
                    clean_list(out.entities, MAX_REPLY_ITEMS))

        (questions, names), degraded = call_lm(ctx, "decompose", ask, lambda: ([claim], []),
                                               usable=lambda out: bool(out[0]), cost_step=self.cost_step)
        return PlanResult(sub_questions=questions, facts=None,
                          gap=names_to_look_up(claim, names, ctx),
                          degraded=degraded, calls=calls_made(ctx, "decompose", self.cost_step))
