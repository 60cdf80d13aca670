"""The model steps before any hop: the search plan (node `decompose`) and, with planner=two_calls, the early gap
analysis apart (node `early_gap`)."""

from __future__ import annotations

import dspy

from claimhop.program.outputs import clean_list
from claimhop.signatures import DecomposeClaim, EarlyGapAnalysis, PlanClaim, PlanClaimAsFacts

PLANNERS = ("facts", "one_call", "two_calls")
MAX_FACTS = 5  # a claim's atomic facts kept for the verifier (HoVer claims have 2-4)
MAX_NAMES = 8


class Plan(dspy.Module):
    """Plan the search for a claim in one model call. The default (planner=facts) splits the claim into its atomic
    facts, which are the sub-questions the first hop searches and later the facts the verifier quotes, and names
    the entities whose articles to look up (they are the early gap queries: a name finds its own article).
    planner=one_call writes sub-questions instead of facts; planner=two_calls only decomposes, and EarlyGap names
    the entities in a second call."""

    def __init__(self) -> None:
        super().__init__()
        self.facts = dspy.Predict(PlanClaimAsFacts)
        self.one_call = dspy.Predict(PlanClaim)
        self.decompose = dspy.Predict(DecomposeClaim)

    def forward(self, claim: str, planner: str = "facts", max_sub_questions: int = 3,
                max_gap_queries: int = 3) -> dspy.Prediction:
        if planner == "two_calls":
            questions = clean_list(self.decompose(claim=claim).sub_questions, max_sub_questions)
            return dspy.Prediction(sub_questions=questions, facts=None, gap=None)
        out = self.facts(claim=claim) if planner == "facts" else self.one_call(claim=claim)
        items = clean_list(out.facts if planner == "facts" else out.sub_questions, MAX_FACTS)
        entities = clean_list(out.entities, MAX_NAMES)
        return dspy.Prediction(sub_questions=items[:max_sub_questions], facts=items if planner == "facts" else None,
                               gap={"queries": entities[:max_gap_queries] or [claim], "entities": entities})

    @staticmethod
    def fallback(claim: str, planner: str = "facts") -> dspy.Prediction:
        """Without the model: the claim itself is the one sub-question, query and (planner=facts) fact."""
        gap = None if planner == "two_calls" else {"queries": [claim], "entities": []}
        return dspy.Prediction(sub_questions=[claim], facts=[claim] if planner == "facts" else None, gap=gap)


class EarlyGap(dspy.Module):
    """Before any search (planner=two_calls): the facts the claim needs, the entities to look up, including ones it
    only describes, and 1-3 queries for what is hardest to find."""

    def __init__(self) -> None:
        super().__init__()
        self.predict = dspy.Predict(EarlyGapAnalysis)

    def forward(self, claim: str, max_gap_queries: int = 3) -> dspy.Prediction:
        out = self.predict(claim=claim)
        return dspy.Prediction(facts_needed=clean_list(out.facts_needed, 6), entities=clean_list(out.entities, MAX_NAMES),
                               queries=clean_list(out.queries, max_gap_queries))

    @staticmethod
    def fallback(claim: str) -> dspy.Prediction:
        return dspy.Prediction(facts_needed=[], entities=[], queries=[claim])
