"""The rule that turns each fact's signals into its verdict and confidence, and the facts into the claim's.

Per fact, over its evidence sentences: p_entail and p_contra are the highest entailment and contradiction
probabilities any sentence got (one sentence that settles the fact is enough).
- CONTRADICTED when p_contra >= contradict_threshold and p_contra > p_entail; confidence p_contra.
- SUPPORTED when p_entail >= entail_threshold and the evidence covers the fact (alignment >= min_alignment);
  confidence p_entail x (the share of the fact the evidence covers, raised to alignment_weight).
- otherwise INSUFFICIENT_INFO; confidence 1 - max(p_entail, p_contra).
(With confidence_slope > 0, a SUPPORTED or INSUFFICIENT_INFO fact's confidence is the calibrated one below.)
For the claim: every fact SUPPORTED -> SUPPORTED (confidence: the least confident fact); any fact CONTRADICTED
with confidence >= contradict_threshold -> CONTRADICTED (the most confident contradiction); otherwise
INSUFFICIENT_INFO. No facts or no evidence at all -> INSUFFICIENT_INFO, saying so.
With confidence_slope > 0 the claim's confidence is calibrated instead: P(supported) is logistic in the log of
its weakest fact's best entailment probability, centred on entail_threshold (so 0.5 exactly there), with the
slope fitted on labelled claims (`claimhop calibrate`); a SUPPORTED verdict has confidence P, any other 1 - P
(P capped at 0.5 when a contradiction or weak alignment, not the entailment, kept the claim from SUPPORTED).
The numbers are run settings (state.context), so they can be tuned and recorded with each run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

FLOOR = 1e-6  # probabilities are floored before taking logs


@dataclass(frozen=True)
class EnsembleRule:
    entail_threshold: float = 0.5
    contradict_threshold: float = 0.6
    min_alignment: float = 0.3
    confidence_slope: float = 0.0
    alignment_weight: float = 0.5  # no setting: alignment's power in a SUPPORTED confidence; not tuned (9b03c4d)

    @classmethod
    def from_settings(cls, settings) -> EnsembleRule:
        """The rule a run's settings (state.context.Context) ask for."""
        return cls(settings.tuning.entail_threshold, settings.tuning.contradict_threshold, settings.tuning.min_alignment,
                   settings.tuning.confidence_slope)

    @classmethod
    def for_questions(cls, settings) -> EnsembleRule:
        """The QA verifier's rule: the fact's own answer plays entailment and the question pins the value, so
        no alignment is required."""
        return cls(settings.tuning.qa_threshold, settings.tuning.qa_contradict_threshold, 0.0, settings.tuning.qa_confidence_slope)


def supported_probability(weakest_entailment: float, rule: EnsembleRule) -> float:
    """Calibrated P(the claim is supported) from its weakest fact's best entailment probability."""
    x = math.log(max(weakest_entailment, FLOOR)) - math.log(max(rule.entail_threshold, FLOOR))
    z = max(-50.0, min(50.0, rule.confidence_slope * x))
    return 1.0 / (1.0 + math.exp(-z))


def calibrated_confidence(entailment: float, supported: bool, rule: EnsembleRule) -> float:
    """Confidence in a SUPPORTED (P) or not-SUPPORTED (1 - P) verdict; P is capped at even odds when something
    other than the entailment (weak alignment, a contradiction) kept the verdict from SUPPORTED."""
    p = supported_probability(entailment, rule)
    return round(p if supported else 1.0 - min(p, 0.5), 4)


def judge_fact(pair_probs: list[dict[str, float]], alignment: float, rule: EnsembleRule) -> tuple[str, float]:
    if not pair_probs:
        return "INSUFFICIENT_INFO", 1.0
    p_entail = max(p["entailment"] for p in pair_probs)
    p_contra = max(p["contradiction"] for p in pair_probs)
    if p_contra >= rule.contradict_threshold and p_contra > p_entail:
        return "CONTRADICTED", round(p_contra, 4)
    supported = p_entail >= rule.entail_threshold and alignment >= rule.min_alignment
    if rule.confidence_slope > 0:  # calibrated: the same P(supported) the claim's confidence uses, per fact
        return ("SUPPORTED" if supported else "INSUFFICIENT_INFO"), calibrated_confidence(p_entail, supported, rule)
    if supported:
        return "SUPPORTED", round(p_entail * alignment ** rule.alignment_weight, 4)
    return "INSUFFICIENT_INFO", round(1.0 - max(p_entail, p_contra), 4)


def combine(fact_verdicts: list[tuple[str, float]], rule: EnsembleRule) -> tuple[str, float, str]:
    """(verdict, confidence, reason) for the claim."""
    if not fact_verdicts:
        return "INSUFFICIENT_INFO", 1.0, "no facts could be checked"
    contradicted = [c for v, c in fact_verdicts if v == "CONTRADICTED" and c >= rule.contradict_threshold]
    if contradicted:
        return "CONTRADICTED", max(contradicted), f"{len(contradicted)} fact(s) contradicted by the evidence"
    if all(v == "SUPPORTED" for v, _ in fact_verdicts):
        return "SUPPORTED", min(c for _, c in fact_verdicts), "every fact is supported by the evidence"
    unsettled = [c for v, c in fact_verdicts if v == "INSUFFICIENT_INFO"]
    return ("INSUFFICIENT_INFO", round(sum(unsettled) / len(unsettled), 4),
            f"{len(unsettled)} of {len(fact_verdicts)} fact(s) not settled by the evidence")
