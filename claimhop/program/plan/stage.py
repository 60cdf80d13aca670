"""Stage 1, the plan (node `decompose`), and what the claim needs before any search (node `early_gap`).

The default (planner=facts): one model call splits the claim into its atomic facts, which are the sub-questions
the first hop searches and later the facts the verifier quotes, and names the entities whose articles to look up
(they are the early gap queries: a name finds its own article). The other planners are in alternatives/one_call.py
and alternatives/two_calls.py, chosen in claimhop.program.choices."""

from __future__ import annotations

from dataclasses import dataclass

import dspy

from claimhop.program.outputs import clean_list
from claimhop.program.runtime import call_lm, calls_made
from claimhop.signatures import MAX_REPLY_ITEMS, PlanClaimAsFacts
from state.context import Context


@dataclass
class PlanResult:
    """What a planner gives the graph: the first hop's sub-questions, the claim's facts (planner=facts; None when
    the plan fell back, so the verifier splits the claim itself), the names to look up and the queries for them
    (None when another call, the early gap, names them), why it fell back and the calls it made."""

    sub_questions: list[str]
    facts: list[str] | None
    gap: dict | None
    degraded: str | None = None
    calls: int = 0


@dataclass
class GapResult:
    """What the claim needs before any search: the facts it rests on, the names to look up and the queries."""

    facts_needed: list[str]
    entities: list[str]
    queries: list[str]
    degraded: str | None = None
    calls: int = 0


# plan_examples=terse: the plan's worked examples. A 1.5B model writes facts as long as the claim whatever the
# instruction says, but copies the length of facts it has just seen. Made-up claims, none from any evaluation set.
TERSE_EXAMPLES = [
    dspy.Example(claim="The director of the 1994 film Ed Wood was born in Burbank, California, like the star of "
                       "Beetlejuice.",
                 facts=["Ed Wood's director was born in Burbank.", "Beetlejuice's star was born in Burbank."],
                 entities=["Ed Wood (film)", "Beetlejuice", "Burbank, California"]),
    dspy.Example(claim="Chandgi Ram won a gold medal in 1970 at an event held in Bangkok.",
                 facts=["Chandgi Ram won gold in 1970.", "Chandgi Ram's 1970 event was in Bangkok."],
                 entities=["Chandgi Ram", "Bangkok"]),
]


def names_to_look_up(claim: str, names: list[str], settings: Context) -> dict:
    """A one-call plan's names as the early gap: its first `max_gap_queries` are the queries (a name finds its own
    article; the claim itself when there are none)."""
    return {"queries": names[: settings.tuning.max_gap_queries] or [claim], "entities": names}


class Plan(dspy.Module):
    """planner=facts: one call splits the claim into facts (the sub-questions) and names what to look up."""

    cost_step = "plan"  # the model-cost step a plan is charged to: one call planning everything

    def __init__(self, settings: Context) -> None:
        super().__init__()
        self.settings = settings
        self.facts = dspy.Predict(PlanClaimAsFacts)
        if settings.tuning.plan_examples == "terse":
            self.facts.demos = list(TERSE_EXAMPLES)  # an optimised program's own demos replace them when loaded

    def forward(self, claim: str) -> PlanResult:
        ctx = self.settings

        def ask() -> tuple[list[str], list[str]]:
            out = self.facts(claim=claim)
            return clean_list(out.facts, MAX_REPLY_ITEMS), clean_list(out.entities, MAX_REPLY_ITEMS)

        (facts, names), degraded = call_lm(ctx, "decompose", ask, lambda: ([claim], []),
                                           usable=lambda out: bool(out[0][: ctx.max_sub_questions]),
                                           cost_step=self.cost_step)
        return PlanResult(
            sub_questions=[claim] if degraded else facts[: ctx.max_sub_questions],
            facts=None if degraded else facts,  # a failed plan leaves the claim's split to the verifier
            gap=names_to_look_up(claim, names, ctx),
            degraded=degraded, calls=calls_made(ctx, "decompose", self.cost_step))


class PlannedGap(dspy.Module):
    """The early gap of a plan that already named what to look up (planner=facts or one_call): no model call."""

    def __init__(self, settings: Context) -> None:
        super().__init__()
        self.settings = settings

    def forward(self, claim: str, planned: dict | None) -> GapResult:
        planned = planned or {"queries": [claim], "entities": []}
        return GapResult(facts_needed=[], entities=clean_list(planned["entities"], MAX_REPLY_ITEMS),
                         queries=clean_list(planned["queries"], self.settings.tuning.max_gap_queries) or [claim])
