"""The passage verifier's learned decision: logistic heads over the local model's hidden state where its yes/no
answer starts (claimhop.program.verify.reading), trained by `claimhop train-verifier` and shipped as a small weights
file with its training provenance beside it.

Features: the standardised 1536-float state and the model's own yes-vs-no logit (one linear readout of the same
state, through the output layer's "Yes"/"yes"/"No"/"no" rows, shipped in the file so nothing else is read at run
time). Two heads:
- `support`: P(the claim is supported by the passages), trained on synthetic claims and the HoVer dev claims;
- `kind`: P(contradicted | not supported), trained on the synthetic claims, whose false ones say how they are false.
The file also holds one `support` head per cross-fitting fold, trained without that fold's dev claims, so a
measurement on a dev claim uses a head that never saw it (`support_for`)."""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from claimhop.atomic import atomic_path, write_text
from claimhop.data import bundled
from claimhop.program.verify.reading import (
    MODEL_BLOCKS,
    RULE_BUDGET,
    ReadingRule,
    reading_rule,
)

HEAD_FILE = bundled("verifier_head.npz")
PROVENANCE_FILE = bundled("verifier_head.json")
HEAD_VARIABLE = "CLAIMHOP_VERIFIER_HEAD"
TRAIN_COMMAND = "claimhop train-verifier"
_LOCK = threading.Lock()
_LOADED: dict[str, VerdictHead] = {}


class HeadError(ValueError):
    """The head's weights file is missing or was trained for another model or prompt."""


@dataclass(frozen=True)
class Logistic:
    """P = sigmoid(w . standardised(x) + b)."""

    weights: np.ndarray
    bias: float

    def probability(self, features: np.ndarray) -> float:
        z = float(features @ self.weights + self.bias)
        return float(1.0 / (1.0 + np.exp(-np.clip(z, -50, 50))))


@dataclass(frozen=True)
class ContradictionHead:
    """P(contradicted | not supported) from a second state: the model's at the answer of the three-way question
    (reading.three_way_messages) on the same passages. Trained on labelled pairs of many genres read that way
    (benchmarks.pair_heads --three-ways), where the support question's state tells contradicted from
    not-enough-info claims poorly; standardised on its own training states."""

    mean: np.ndarray
    scale: np.ndarray
    logistic: Logistic

    def probability(self, state: np.ndarray) -> float:
        return self.logistic.probability((state.astype(np.float64) - self.mean) / self.scale)


@dataclass(frozen=True)
class VerdictHead:
    mean: np.ndarray
    scale: np.ndarray
    answer_rows: np.ndarray  # output-layer rows of Yes, yes, No, no
    support: Logistic
    kind: Logistic
    threshold: float  # P(supported) a SUPPORTED verdict needs
    yes_calibration: tuple[float, float]  # a served model's P(supported) = sigmoid(a * yes_logit + b)
    folds: dict[str, int] = field(default_factory=dict)  # dev uid -> the fold whose head never saw it
    fold_support: list[Logistic] = field(default_factory=list)
    provenance: dict = field(default_factory=dict)
    contradiction: ContradictionHead | None = None  # a head file may hold one (contradiction_check=three-ways)

    @property
    def reading(self) -> ReadingRule:
        """How the passages are read for this head: as they were read for its training."""
        return reading_of(self.provenance)

    def yes_logit(self, state: np.ndarray) -> float:
        """The model's log-odds of answering yes rather than no, from the state (what its answer would say)."""
        logits = self.answer_rows @ state
        return float(np.logaddexp(logits[0], logits[1]) - np.logaddexp(logits[2], logits[3]))

    def features(self, state: np.ndarray) -> np.ndarray:
        raw = np.concatenate([state.astype(np.float64), [self.yes_logit(state)]])
        return (raw - self.mean) / self.scale

    def support_for(self, uid: str | None = None) -> Logistic:
        """The full head, or for a claim it was trained on, the head of the fold that left that claim out."""
        fold = self.folds.get(uid or "")
        return self.fold_support[fold] if fold is not None else self.support

    def probabilities(self, state: np.ndarray, uid: str | None = None) -> dict[str, float]:
        x = self.features(state)
        return {"supported": self.support_for(uid).probability(x), "contradicted_if_not": self.kind.probability(x),
                "yes": float(1.0 / (1.0 + np.exp(-np.clip(self.yes_logit(state), -50, 50))))}

    def label(self, state: np.ndarray) -> str:
        """The head's own label for a read state, with no rule of the stage around it (no opposite read, no quote
        rule): what a comparison of heads on states read once scores (benchmarks.pair_heads)."""
        probs = self.probabilities(state)
        return decide(probs["supported"], probs["contradicted_if_not"], self.threshold)[0]


def reading_of(provenance: dict) -> ReadingRule:
    """The reading a head's provenance names: its rule, layer and passage budget (chain-order-1 at full depth for
    heads trained before readings had names)."""
    return reading_rule(provenance.get("reading", "chain-order-1"), provenance.get("read_blocks", MODEL_BLOCKS),
                        provenance.get("passage_budget_chars", RULE_BUDGET))


def decide(p_supported: float, p_contradicted: float, threshold: float) -> tuple[str, float]:
    """The user's three labels from the two heads: SUPPORTED with confidence P(supported); otherwise CONTRADICTED
    or INSUFFICIENT_INFO by the kind head, with confidence 1 - P(supported) (how sure the claim is not supported)."""
    if p_supported >= threshold:
        return "SUPPORTED", round(p_supported, 4)
    verdict = "CONTRADICTED" if p_contradicted >= 0.5 else "INSUFFICIENT_INFO"
    return verdict, round(1.0 - p_supported, 4)


def save_head(head_arrays: dict[str, np.ndarray], provenance: dict, npz: Path = HEAD_FILE,
              json_path: Path = PROVENANCE_FILE) -> None:
    with atomic_path(npz, suffix=".npz") as tmp:
        np.savez_compressed(tmp, **head_arrays)
    write_text(json_path, json.dumps(provenance, indent=2, ensure_ascii=False) + "\n")


COLLECTION_HEAD = "verifier_head.npz"  # in a collection's index folder: `claimhop train-verifier --corpus FOLDER`


def collection_head(corpus_path: str = "", index_dir: str = "") -> Path | None:
    """The head trained for the collection a run searches (in its index folder, beside its versions), if any."""
    from claimhop.retrieval.collection import default_folder
    from claimhop.retrieval.documents import is_collection_source

    if index_dir:
        folder = Path(index_dir).expanduser()
    elif corpus_path and is_collection_source(Path(corpus_path).expanduser()):
        folder = default_folder(Path(corpus_path).expanduser())
    else:
        return None
    path = folder / COLLECTION_HEAD
    return path if path.is_file() else None


def head_file(corpus_path: str = "", index_dir: str = "") -> Path:
    """The head a run uses: one named by CLAIMHOP_VERIFIER_HEAD (trained with `claimhop train-verifier --out FILE`,
    its provenance beside it as FILE's .json; an operator's variable, not a run setting, so a server client cannot
    point the server at a file), else the head trained for the run's collection (`claimhop train-verifier --corpus
    FOLDER`), else the bundled one."""
    named = os.environ.get(HEAD_VARIABLE, "").strip()
    if named:
        return Path(named).expanduser()
    return collection_head(corpus_path, index_dir) or HEAD_FILE


def head_version(corpus_path: str = "", index_dir: str = "") -> str:
    """The head file a run with these settings uses and when it was written: a new value means the head changed."""
    path = head_file(corpus_path, index_dir)
    return f"{path}|{path.stat().st_mtime_ns if path.is_file() else 0}"


def load_head(npz: Path | None = None, json_path: Path | None = None) -> VerdictHead:
    """The run's head (`head_file`), checked against the model and the reading it names; loaded once per process."""
    from claimhop.lm.weights import QWEN_CODER_1_5B

    npz = npz or head_file()
    json_path = json_path or npz.with_suffix(".json")  # the bundled pair too: verifier_head.npz / .json
    key = f"{npz}|{npz.stat().st_mtime_ns if npz.is_file() else 0}"  # a head retrained in place is loaded anew
    with _LOCK:
        if key in _LOADED:
            return _LOADED[key]
        if not npz.is_file() or not json_path.is_file():
            named = f" ({HEAD_VARIABLE} names it)" if npz != HEAD_FILE else ""
            raise HeadError(f"the passage verifier's head {npz}{named} is missing, or its provenance {json_path}: "
                            f"make them with `{TRAIN_COMMAND}`")
        provenance = json.loads(json_path.read_text(encoding="utf-8"))
        try:
            version = reading_of(provenance).version()
        except ValueError as error:
            raise HeadError(f"the passage verifier's head {npz}: {error}: retrain it with `{TRAIN_COMMAND}`") from None
        if provenance.get("model_sha256") != QWEN_CODER_1_5B.sha256 or provenance.get("prompt") != version:
            raise HeadError(f"the passage verifier's head {npz} was trained for another model or prompt "
                            f"(model {str(provenance.get('model_sha256'))[:12]}, prompt {provenance.get('prompt')}; "
                            f"this run: {QWEN_CODER_1_5B.sha256[:12]}, {version}): retrain it with `{TRAIN_COMMAND}`")
        with np.load(npz) as data:
            arrays = {name: data[name] for name in data.files}
        folds = int(arrays["fold_weights"].shape[0])
        head = VerdictHead(
            mean=arrays["mean"], scale=arrays["scale"], answer_rows=arrays["answer_rows"],
            support=Logistic(arrays["support_weights"], float(arrays["support_bias"])),
            kind=Logistic(arrays["kind_weights"], float(arrays["kind_bias"])),
            threshold=float(arrays["threshold"]),
            yes_calibration=(float(arrays["yes_calibration"][0]), float(arrays["yes_calibration"][1])),
            folds={uid: int(f) for uid, f in provenance.get("dev_folds", {}).items()},
            fold_support=[Logistic(arrays["fold_weights"][i], float(arrays["fold_biases"][i])) for i in range(folds)],
            provenance=provenance,
            contradiction=ContradictionHead(
                arrays["contradiction_mean"], arrays["contradiction_scale"],
                Logistic(arrays["contradiction_weights"], float(arrays["contradiction_bias"])))
            if "contradiction_weights" in arrays else None,
        )
        _LOADED[key] = head
        return head
