"""Does an evidence sentence entail, contradict, or say nothing about a fact? Asked of the local model with the
reply constrained to the three labels and the label probabilities read from the model (lm.label_probs).
A model other than the local one has no token probabilities here: its label is asked through DSPy and counts
as certain, which the answer says."""

from __future__ import annotations

from typing import Literal

import dspy

from lm.label_probs import classify_local
from lm.provider import LOCAL, get_lm, local_engine

LABELS = ("entailment", "contradiction", "neutral")
SYSTEM = (
    "You check a fact against one sentence of evidence. Answer entailment if the evidence shows the fact is "
    "true, contradiction if the evidence shows the fact is false, neutral if the evidence does not settle it. "
    "Judge only from the evidence. Answer with one word: entailment, contradiction or neutral."
)


class JudgePair(dspy.Signature):
    """Does the evidence sentence show the fact is true (entailment), false (contradiction), or neither
    (neutral)? Judge only from the evidence."""

    evidence: str = dspy.InputField()
    fact: str = dspy.InputField()
    label: Literal["entailment", "contradiction", "neutral"] = dspy.OutputField()


def prompt(evidence_title: str, evidence: str, fact: str) -> str:
    return f"Evidence ({evidence_title}): {evidence}\nFact: {fact}"


def judge_pair(model: str, evidence_title: str, evidence: str, fact: str) -> dict[str, float]:
    """Probabilities of entailment, contradiction and neutral for one (evidence, fact) pair."""
    if (model or LOCAL) == LOCAL:
        _, probs = classify_local(local_engine(), SYSTEM, prompt(evidence_title, evidence, fact), LABELS)
        return probs
    with dspy.context(lm=get_lm(model), adapter=dspy.JSONAdapter()):
        label = dspy.Predict(JudgePair)(evidence=f"{evidence_title}: {evidence}", fact=fact).label
    return {name: float(name == label) for name in LABELS}
