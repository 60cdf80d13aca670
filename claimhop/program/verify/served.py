"""The passage verifier on a served model (`--model NAME`, any model but the local one): there is no state for the
head to read, so the model itself says SUPPORTED, CONTRADICTED or INSUFFICIENT_INFO (JudgeClaimThreeWays) over the
same passages, in the same order and format, as the head's prompt. Where the server gives logprobs, the three labels'
probabilities are read from the first answer token's top tokens (claimhop.lm.label_probs.classify_served, as the
facts verifier and the re-ranker read theirs) and calibrated per label (ServedCalibration: identity until
`claimhop calibrate --verifier served` fits one for that model); without logprobs, DSPy asks for the label and it gets
a fixed confidence. The verdict is the most probable label. An optimised program's instruction and demos for this
step (`claimhop optimize --step verdict`) are sent on the logprob path too, as the system message and worked turns."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import dspy

from claimhop.atomic import write_text
from claimhop.cache_root import cache_root
from claimhop.lm.label_probs import NoLogprobs, classify_served
from claimhop.lm.provider import get_lm
from claimhop.program.verify.reading import (
    ReadingRule,
    as_documents,
    documents_prompt,
    passages_read,
)
from claimhop.signatures import THREE_WAYS_QUESTION, JudgeClaimThreeWays

LABELS = ("SUPPORTED", "CONTRADICTED", "INSUFFICIENT_INFO")
KEYS = {"SUPPORTED": "supported", "CONTRADICTED": "contradicted", "INSUFFICIENT_INFO": "insufficient"}
# A label read from a reply without logprobs: the model said it, but not how sure it is. Not measured: a middle value
# so such a verdict never reads as certain; the other two labels share the rest.
NO_LOGPROBS_CONFIDENCE = 0.7
# The least probability a label keeps: the mass outside the top tokens read is unknown, so no label is certain.
FLOOR = 1e-4


@dataclass(frozen=True)
class ServedCalibration:
    """P(label) = softmax(log(raw P(label)) / temperature + bias[label]): temperature scaling with one bias per
    label, fitted on labelled claims (claimhop.evaluation.calibration.fit_served). The identity (temperature 1, no
    bias) when none was fitted for the model."""

    temperature: float = 1.0
    bias: tuple[float, float, float] = (0.0, 0.0, 0.0)  # in LABELS order
    provenance: dict = field(default_factory=dict)

    @property
    def fitted(self) -> bool:
        return bool(self.provenance)

    def apply(self, raw: dict[str, float]) -> dict[str, float]:
        logits = [math.log(max(raw[label], FLOOR)) / self.temperature + b for label, b in zip(LABELS, self.bias)]
        top = max(logits)
        weights = [math.exp(z - top) for z in logits]
        total = sum(weights)
        return {label: min(max(w / total, FLOOR), 1 - FLOOR) for label, w in zip(LABELS, weights)}


def calibration_file(model: str) -> Path:
    """Where the calibration fitted for `model` is kept: claimhop's folder (CLAIMHOP_HOME), one file per model."""
    return cache_root() / "calibration" / f"served-verdict-{re.sub(r'[^A-Za-z0-9._-]+', '_', model)}.json"


def load_calibration(model: str) -> ServedCalibration:
    """The calibration fitted for `model`, else the identity."""
    path = calibration_file(model)
    if not path.is_file():
        return ServedCalibration()
    saved = json.loads(path.read_text(encoding="utf-8"))
    return ServedCalibration(float(saved["temperature"]), tuple(float(saved["bias"][label]) for label in LABELS),
                             saved.get("provenance") or {"file": str(path)})


def save_calibration(model: str, calibration: ServedCalibration) -> Path:
    path = calibration_file(model)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, json.dumps({"model": model, "temperature": calibration.temperature,
                                 "bias": dict(zip(LABELS, calibration.bias)),
                                 "provenance": calibration.provenance}, indent=2) + "\n")
    return path


def decide_three(probs: dict[str, float]) -> tuple[str, float]:
    """The most probable of the three labels and its probability (the first in LABELS order on a tie)."""
    label = max(LABELS, key=lambda name: probs[KEYS[name]])
    return label, round(probs[KEYS[label]], 4)


class ServedVerdict(dspy.Module):
    """A served model's three-way verdict on the passages: {"supported", "contradicted", "insufficient"} (calibrated;
    the run's verdict is the most probable), the raw ones ("raw_supported", ...) and "logprobs" (1 when read from
    them, 0 when the label came through DSPy with a fixed confidence)."""

    def __init__(self) -> None:
        super().__init__()
        self.predict = dspy.Predict(JudgeClaimThreeWays)

    def forward(self, model: str, claim: str, passages: list[dict]) -> dict[str, float]:
        documents = as_documents(passages)
        shots = [(documents_prompt(demo["claim"], list(demo["documents"]), THREE_WAYS_QUESTION), demo["verdict"])
                 for demo in self.predict.demos if demo.get("verdict") in LABELS]
        try:
            label, raw = classify_served(get_lm(model), self.predict.signature,
                                         documents_prompt(claim, documents, THREE_WAYS_QUESTION), LABELS, shots)
            calibrated, read = load_calibration(model).apply(raw), 1.0
        except NoLogprobs:
            with dspy.context(lm=get_lm(model), adapter=dspy.JSONAdapter()):
                label = str(self.predict(documents=documents, claim=claim).verdict)
            if label not in LABELS:
                raise ValueError(f"{model} answered {label[:40]!r}, none of {', '.join(LABELS)}") from None
            rest = (1.0 - NO_LOGPROBS_CONFIDENCE) / (len(LABELS) - 1)
            raw = calibrated = {name: NO_LOGPROBS_CONFIDENCE if name == label else rest for name in LABELS}
            read = 0.0
        else:
            trace = dspy.settings.trace  # recorded as a DSPy call records itself, so an optimiser can keep it as a demo
            if trace is not None and dspy.settings.max_trace_size > 0:
                if len(trace) >= dspy.settings.max_trace_size:
                    trace.pop(0)
                trace.append((self.predict, {"documents": documents, "claim": claim},
                              dspy.Prediction(verdict=max(LABELS, key=calibrated.get))))
        return {**{KEYS[name]: calibrated[name] for name in LABELS},
                **{f"raw_{KEYS[name]}": raw[name] for name in LABELS}, "logprobs": read}


class VerdictOnDocuments(dspy.Module):
    """What `claimhop optimize --step verdict` compiles: a served model's verdict on a claim's documents, read as a run
    reads them (the passages `rule` chooses: the head's reading). Its predictor is the verify stage's
    (`verify.served.predict` in a saved program)."""

    def __init__(self, model: str, rule: ReadingRule) -> None:
        super().__init__()
        self.model, self.rule = model, rule
        self.served = ServedVerdict()

    def forward(self, claim: str, documents: list[dict]) -> dspy.Prediction:
        probs = self.served(self.model, claim, passages_read(documents, claim, self.rule))
        verdict, confidence = decide_three(probs)
        return dspy.Prediction(verdict=verdict, confidence=confidence, probabilities=probs)
