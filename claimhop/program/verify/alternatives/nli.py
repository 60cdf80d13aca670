"""Does an evidence sentence entail, contradict, or say nothing about a fact? Asked of the local model with the
reply constrained to the three labels and the label probabilities read from the model (claimhop.lm.label_probs).
A model other than the local one has no token probabilities here: its label is asked through DSPy and counts
as certain, which the answer says."""

from __future__ import annotations

import dspy

from claimhop.lm.classify import classify
from claimhop.lm.provider import get_lm
from claimhop.signatures import JudgePair

LABELS = ("entailment", "contradiction", "neutral")


def prompt(evidence_title: str, evidence: str, fact: str) -> str:
    return f"Evidence ({evidence_title}): {evidence}\nFact: {fact}"


def judge_pair(model: str, evidence_title: str, evidence: str, fact: str,
               predictor: dspy.Predict | None = None) -> dict[str, float]:
    """Probabilities of entailment, contradiction and neutral for one (evidence, fact) pair. A model other than
    the local one without logprobs is asked through `predictor` (the run's program's `judge_pair`, so an
    optimised one is used)."""
    def ask_dspy() -> str:
        with dspy.context(lm=get_lm(model), adapter=dspy.JSONAdapter()):
            return (predictor or dspy.Predict(JudgePair))(evidence=f"{evidence_title}: {evidence}", fact=fact).label

    return classify(model, JudgePair, prompt(evidence_title, evidence, fact), LABELS, ask_dspy)
