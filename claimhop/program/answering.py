"""The model steps that write for people: the answer's cited explanation (node `mitigate`, verifier=single) and
the answer to a follow-up question (node `follow_up`)."""

from __future__ import annotations

import dspy

from claimhop.signatures import AnswerFollowUp, ExplainVerdict


def numbered(evidence: list[dict]) -> list[str]:
    """Evidence as the prompts show it: '[n] title: sentence'."""
    return [f"[{e['ref']}] {e['title']}: {e['sentence']}" for e in evidence]


class Explain(dspy.Module):
    """2-4 statements, each restating one numbered evidence sentence with its number."""

    def __init__(self) -> None:
        super().__init__()
        self.predict = dspy.Predict(ExplainVerdict)

    def forward(self, claim: str, verdict: str, evidence: list[dict]) -> dspy.Prediction:
        return dspy.Prediction(statements=self.predict(claim=claim, verdict=verdict, evidence=numbered(evidence)).statements)

    @staticmethod
    def fallback() -> dspy.Prediction:
        return dspy.Prediction(statements=[])  # the answer quotes the evidence instead


class FollowUp(dspy.Module):
    """Answer a question about a finished check from its verdict and evidence only, citing [n]."""

    def __init__(self) -> None:
        super().__init__()
        self.predict = dspy.Predict(AnswerFollowUp)

    def forward(self, question: str, claim: str, verdict: str, evidence: list[dict]) -> dspy.Prediction:
        out = self.predict(question=question, claim=claim, verdict=verdict, evidence=numbered(evidence))
        return dspy.Prediction(answer=str(out.answer or ""))

    @staticmethod
    def fallback() -> dspy.Prediction:
        return dspy.Prediction(answer="")
