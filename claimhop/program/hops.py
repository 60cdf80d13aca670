"""The model steps between hops: which bridging entities to look up (node `bridge`, bridge_pick=lm) and what is
still missing after the hops (node `gap_loop`)."""

from __future__ import annotations

import dspy

from claimhop.program.outputs import clean_list
from claimhop.signatures import GapAnalysis, PickBridgingEntities


class PickBridges(dspy.Module):
    """Pick the entities that link the claim's parts from the names the entity ranking found in the documents."""

    def __init__(self) -> None:
        super().__init__()
        self.predict = dspy.Predict(PickBridgingEntities)

    def forward(self, claim: str, sub_questions: list[str], candidates: list[str], limit: int) -> dspy.Prediction:
        out = self.predict(claim=claim, sub_questions=sub_questions, candidates=candidates)
        return dspy.Prediction(entities=clean_list(out.entities, limit))

    @staticmethod
    def fallback() -> dspy.Prediction:
        return dspy.Prediction(entities=[])  # the entity ranking's best are taken instead


class GapRound(dspy.Module):
    """One round of the gap loop: shown what was found, say what is missing and write new queries for it."""

    def __init__(self) -> None:
        super().__init__()
        self.predict = dspy.Predict(GapAnalysis)

    def forward(self, claim: str, found: list[str]) -> dspy.Prediction:
        out = self.predict(claim=claim, found=found)
        return dspy.Prediction(missing=clean_list(out.missing, 6), entities=clean_list(out.entities, 8),
                               queries=clean_list(out.queries, 8), complete=bool(out.complete))

    @staticmethod
    def fallback() -> dspy.Prediction:
        return dspy.Prediction(missing=[], entities=[], queries=[], complete=True)  # nothing asked: stop looping
