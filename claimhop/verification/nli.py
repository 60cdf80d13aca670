"""Does an evidence sentence entail, contradict, or say nothing about a fact? Asked of the local model with the
reply constrained to the three labels and the label probabilities read from the model (claimhop.lm.label_probs).
A model other than the local one has no token probabilities here: its label is asked through DSPy and counts
as certain, which the answer says."""

from __future__ import annotations

import dspy

from claimhop.lm.label_probs import NoLogprobs, classify_local, classify_served
from claimhop.lm.provider import LOCAL, get_lm, local_engine
from claimhop.program import JUDGE_PAIR_SYSTEM, JudgePair

LABELS = ("entailment", "contradiction", "neutral")



def prompt(evidence_title: str, evidence: str, fact: str) -> str:
    return f"Evidence ({evidence_title}): {evidence}\nFact: {fact}"


def judge_pair(model: str, evidence_title: str, evidence: str, fact: str,
               predictor: dspy.Predict | None = None) -> dict[str, float]:
    """Probabilities of entailment, contradiction and neutral for one (evidence, fact) pair. A model other than
    the local one is asked through `predictor` (the run's program's `judge_pair`, so an optimised one is used)."""
    if (model or LOCAL) == LOCAL:
        _, probs = classify_local(local_engine(), JUDGE_PAIR_SYSTEM, prompt(evidence_title, evidence, fact), LABELS)
        return probs
    try:  # a served model: the same prompt, its label probabilities from the server's logprobs
        _, probs = classify_served(get_lm(model), JUDGE_PAIR_SYSTEM, prompt(evidence_title, evidence, fact), LABELS)
        return probs
    except NoLogprobs:  # the server offers no logprobs: the label asked through DSPy, counted as certain
        pass
    with dspy.context(lm=get_lm(model), adapter=dspy.JSONAdapter()):
        label = (predictor or dspy.Predict(JudgePair))(evidence=f"{evidence_title}: {evidence}", fact=fact).label
    return {name: float(name == label) for name in LABELS}
