"""The verdict's model steps (node `verify`): by default the model reads the claim with the best passages whole in
one pass and a learned head turns what it read into P(supported) (claimhop.verification.head); the other
verifiers' predictors live here too, so one saved program optimises whichever a run uses."""

from __future__ import annotations

import math

import dspy

from claimhop.lm.classify import classify
from claimhop.lm.provider import LOCAL, get_lm, local_engine
from claimhop.signatures import (
    AnswerFromEvidence,
    JudgeClaimOnPassages,
    JudgePair,
    SplitClaim,
    SplitClaimWithNames,
    VerifyClaim,
)
from claimhop.verification.head import load_head
from claimhop.verification.passages import hidden_state, passage_messages

VERIFIERS = ("passages", "facts", "qa", "single")
FAILED = {"supported": 0.0, "contradicted_if_not": 0.0, "yes": 0.0, "failed": 1.0}


class Verify(dspy.Module):
    """Judge the claim on the passages read (verifier=passages, the default). The facts, QA and single-call
    verifiers (claimhop.steps.verdicts) call the other predictors: the claim's split when the plan gave no facts,
    a label per (sentence, fact), an answer per question, or one call over evidence sentences."""

    def __init__(self) -> None:
        super().__init__()
        self.judge_passages = dspy.Predict(JudgeClaimOnPassages)  # a served model without logprobs
        self.split = dspy.Predict(SplitClaim)
        self.split_with_names = dspy.Predict(SplitClaimWithNames)  # fact_names=asked
        self.judge_pair = dspy.Predict(JudgePair)  # verifier=facts with a model other than the local one
        self.answer_from_evidence = dspy.Predict(AnswerFromEvidence)  # verifier=qa, the same
        self.single = dspy.ChainOfThought(VerifyClaim)  # verifier=single; reasoning first: 4/5 vs 1/5 labels right

    def forward(self, claim: str, passages: list[dict], model: str = LOCAL) -> dspy.Prediction:
        return dspy.Prediction(probabilities=passage_probabilities(model, claim, passages, self.judge_passages))

    @staticmethod
    def fallback() -> dspy.Prediction:
        return dspy.Prediction(probabilities=dict(FAILED))


def passage_probabilities(model: str, claim: str, passages: list[dict],
                          predictor: dspy.Predict | None = None) -> dict[str, float]:
    """P(supported), P(contradicted | not supported) and the model's own P(yes) for the claim on these passages.
    The local model: one pass, the head reads its hidden state. Another model: its P(yes) through logprobs (or
    its yes/no through DSPy), calibrated as the head file says; it cannot tell contradicted from unsettled."""
    head = load_head()
    messages = passage_messages(claim, passages)
    if (model or LOCAL) == LOCAL:
        return head.probabilities(hidden_state(local_engine(), messages, head.reading.blocks))

    def ask_dspy() -> str:
        with dspy.context(lm=get_lm(model), adapter=dspy.JSONAdapter()):
            judge = predictor or dspy.Predict(JudgeClaimOnPassages)
            return judge(documents=[f"[{p['title']}] {p['text']}" for p in passages], claim=claim).supported

    p_yes = classify(model, JudgeClaimOnPassages, messages[1]["content"], ("yes", "no"), ask_dspy)["yes"]
    p_yes = min(max(p_yes, 1e-6), 1 - 1e-6)
    a, b = head.yes_calibration
    p_supported = 1.0 / (1.0 + math.exp(-(a * math.log(p_yes / (1 - p_yes)) + b)))
    return {"supported": p_supported, "contradicted_if_not": 0.0, "yes": p_yes}
