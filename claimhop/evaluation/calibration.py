"""`claimhop calibrate`: fit the facts (or, with `--verifier qa`, the QA) verifier's thresholds to the model that
judges, from `claimhop eval-verify` rows, without a single model call.

Why: the rule (claimhop.program.verify.alternatives.ensemble) is sound, but its numbers depend on the judge. The local 1.5B model gives
small entailment probabilities even to a sentence that states the fact, so with entail_threshold 0.5 it almost
never calls a claim SUPPORTED. Each facts row records every judged sentence's label probabilities and the fact's
alignment, so any thresholds can be replayed through the very functions a run decides with
(claimhop.program.verify.alternatives.pipeline.rejudge and decide).

Honesty: claims fall into folds by a hash of their uid; each fold's verdicts come from thresholds fitted on the
other folds (cross-fitting), so the reported figures are out of sample. The thresholds to use are fitted on all
the rows. The objective is macro-F1 of SUPPORTED vs NOT_SUPPORTED (ties: higher accuracy, then the earlier grid
point). The claim's confidence is then calibrated by Platt scaling: the slope of a logistic in the log of the
weakest fact's entailment, centred on the fitted threshold (claimhop.program.verify.alternatives.ensemble.supported_probability).

`--verifier served` fits a served model's three label probabilities instead (claimhop.program.verify.served): a
temperature and a bias per label on their logs, by log loss, from the label probabilities `claimhop eval-verify
--systems passages --model NAME` recorded."""

from __future__ import annotations

import hashlib
import itertools
import math
from collections import Counter
from dataclasses import replace
from pathlib import Path

from claimhop.evaluation.figures import pyplot, save_png
from claimhop.evaluation.metric import label_of
from claimhop.evaluation.report import macro_f1
from claimhop.evaluation.runner import rows_in
from claimhop.program.verify.alternatives.ensemble import EnsembleRule
from claimhop.program.verify.alternatives.pipeline import (
    decide,
    rejudge,
    weakest_entailment,
)
from claimhop.program.verify.served import KEYS, LABELS, ServedCalibration

GRID: dict[str, tuple[float, ...]] = {
    "entail_threshold": (0.005, 0.01, 0.015, 0.02, 0.03, 0.04, 0.05, 0.06, 0.08, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5),
    # at most 0.9: HoVer's two labels cannot tell CONTRADICTED from INSUFFICIENT_INFO, and a threshold of 1 would
    # switch contradiction detection off for the sake of a claim or two of macro-F1
    "contradict_threshold": (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
    "min_alignment": (0.0, 0.1, 0.2, 0.3, 0.4, 0.5),
}
# The QA verifier's "entailment" is the probability of the fact's own answer among a few options, so its
# threshold lives on another scale; the question pins the value, so there is no alignment to require.
GRIDS: dict[str, dict[str, tuple[float, ...]]] = {
    "facts": GRID,
    "qa": {"entail_threshold": (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7, 0.8),
           "contradict_threshold": GRID["contradict_threshold"], "min_alignment": (0.0,)},
}
SLOPES = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 8.0)
SETTINGS = (*GRID, "confidence_slope")
# the run settings each verifier's rule is read from (state.context)
SETTING_NAMES = {
    "facts": {name: name for name in SETTINGS},
    "qa": {"entail_threshold": "qa_threshold", "contradict_threshold": "qa_contradict_threshold",
           "confidence_slope": "qa_confidence_slope"},
}


def rules(verifier: str = "facts") -> list[EnsembleRule]:
    return [EnsembleRule(*values) for values in itertools.product(*GRIDS[verifier].values())]


def settings_of_rule(rule: EnsembleRule, verifier: str = "facts") -> dict[str, float]:
    """The rule as the run settings that ask for it (`--set NAME=VALUE`)."""
    return {setting: getattr(rule, name) for name, setting in SETTING_NAMES[verifier].items()}


def fit_slope(rows: list[dict], rule: EnsembleRule) -> EnsembleRule:
    """The confidence slope with the least log loss of the claims' P(supported) (as a run computes it) against the
    gold labels: Platt scaling with the centre fixed at the fitted threshold."""
    def log_loss(slope: float) -> float:
        total, candidate = 0.0, replace(rule, confidence_slope=slope)
        for row in rows:
            result = replay(row["facts"], candidate)
            p = result["confidence"] if result["verdict"] == "SUPPORTED" else 1.0 - result["confidence"]
            p = min(max(p, 1e-6), 1 - 1e-6)
            total -= math.log(p if row["label"] == "SUPPORTED" else 1 - p)
        return total

    return replace(rule, confidence_slope=min(SLOPES, key=log_loss))


def replay(facts: list[dict], rule: EnsembleRule) -> dict:
    """The claim's verdict and confidence had the run used `rule`: its recorded facts decided again."""
    if not facts:
        return {"verdict": "INSUFFICIENT_INFO", "confidence": 1.0, "reason": "no facts could be checked"}
    return decide([rejudge(fact, rule) for fact in facts], rule)


def facts_rows(rows: list[dict], evidence: str, source: Path, verifier: str = "facts") -> list[dict]:
    """The `<verifier>@<evidence>` rows of one eval-verify run (the newest fingerprint among `rows`, read from
    `source`)."""
    system = f"{verifier}@{evidence}"
    rows = [row for row in rows if row.get("system") == system and "facts" in row]
    if not rows:
        raise ValueError(f"{source} has no {system} rows with recorded facts; run "
                         f"`claimhop eval-verify --systems {verifier} --evidence {evidence}` first")
    fingerprint = rows[-1]["fingerprint"]
    latest = {row["uid"]: row for row in rows if row["fingerprint"] == fingerprint}
    return list(latest.values())


def score(rows: list[dict], verdicts: list[str]) -> tuple[float, float]:
    """(macro-F1, accuracy) of verdicts against the rows' gold labels."""
    pairs = [(row["label"], label_of(verdict)) for row, verdict in zip(rows, verdicts, strict=True)]
    return macro_f1(pairs) or 0.0, sum(g == p for g, p in pairs) / len(pairs)


def grid_scores(rows: list[dict], verifier: str = "facts") -> list[tuple[EnsembleRule, float, float]]:
    """(rule, macro-F1, accuracy) on these rows for every grid point, in grid order."""
    return [(rule, *score(rows, [replay(row["facts"], rule)["verdict"] for row in rows])) for rule in rules(verifier)]


def fit(rows: list[dict], scores: list[tuple[EnsembleRule, float, float]] | None = None, verifier: str = "facts"
        ) -> tuple[EnsembleRule, float, float]:
    """The rule with the best (macro-F1, accuracy) on these rows, its slope fitted; the earliest grid point wins a
    tie. `scores`: these rows' grid_scores, when already computed."""
    scored = scores if scores is not None else grid_scores(rows, verifier)
    order = max(range(len(scored)), key=lambda i: (scored[i][1], scored[i][2], -i))
    rule, f1, accuracy = scored[order]
    return fit_slope(rows, rule), f1, accuracy


def fold_of(uid: str, folds: int) -> int:
    return int(hashlib.sha256(uid.encode()).hexdigest(), 16) % folds


def cross_fit(rows: list[dict], folds: int = 2, verifier: str = "facts") -> list[EnsembleRule]:
    """Per fold, the rule fitted on the other folds' rows."""
    if folds < 2:
        raise ValueError("cross-fitting needs at least 2 folds")
    fitted = []
    for fold in range(folds):
        train = [row for row in rows if fold_of(row["uid"], folds) != fold]
        if len(train) == len(rows) or not train:
            raise ValueError(f"too few claims ({len(rows)}) for {folds} folds")
        fitted.append(fit(train, verifier=verifier)[0])
    return fitted


def decide_by_fold(rows: list[dict], fold_rules: list[EnsembleRule], name: str) -> list[dict]:
    """Each row decided by the rule of the fold its claim was held out in (so never by a rule fitted on it)."""
    return [as_row(row, fold_rules[fold_of(row["uid"], len(fold_rules))], f"{row['system']} {name}") for row in rows]


def as_row(row: dict, rule: EnsembleRule, system: str) -> dict:
    """An eval-verify row as the run would have written it under `rule` (same fields as the original)."""
    result = replay(row["facts"], rule)
    return {**{k: v for k, v in row.items() if k != "facts"}, "system": system, "verdict": result["verdict"],
            "predicted": label_of(result["verdict"]), "confidence": round(float(result["confidence"]), 4)}


def recorded_rule_agreement(rows: list[dict], rule: EnsembleRule) -> int:
    """How many recorded verdicts a replay under the run's own thresholds reproduces (all, unless the rows are
    from other code or other thresholds)."""
    return sum(replay(row["facts"], rule)["verdict"] == row["verdict"] for row in rows)


def threshold_curve(scores: list[tuple[EnsembleRule, float, float]]) -> dict[float, float]:
    """Best macro-F1 at each entail_threshold (over the other settings), from grid_scores, for the plot."""
    curve: dict[float, float] = {}
    for rule, f1, _ in scores:
        curve[rule.entail_threshold] = max(curve.get(rule.entail_threshold, 0.0), f1)
    return curve


def entailment_spread(rows: list[dict]) -> dict[str, Counter]:
    """Per gold label, how the claim's weakest fact's best entailment probability is spread (why 0.5 fails)."""
    spread: dict[str, Counter] = {}
    for row in rows:
        weakest = weakest_entailment(row["facts"])
        bucket = next(f"< {t}" for t in (0.01, 0.05, 0.1, 0.5, 1.01) if weakest < t)
        spread.setdefault(row["label"], Counter())[bucket] += 1
    return spread


def curve_plot(curves: dict[str, dict[float, float]], chosen: float, path: Path, verifier: str = "facts") -> Path:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, curve in curves.items():
        ax.plot(list(curve), list(curve.values()), marker="o", label=name)
    ax.axvline(chosen, color="grey", linestyle="--", label=f"fitted on all: {chosen}")
    name = SETTING_NAMES[verifier]["entail_threshold"]
    ax.set(xscale="log", xlabel=f"{name} (log scale)", ylabel="best macro-F1 at that threshold", ylim=(0, 1),
           title=f"{verifier} verifier: macro-F1 against {name}")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return save_png(fig, path)


def calibrate(path: Path, evidence: str, folds: int, recorded_rule: EnsembleRule, verifier: str = "facts"
              ) -> tuple[dict, list[dict]]:
    """Fit on all `<verifier>@<evidence>` rows and cross-fit; returns the report (thresholds, agreement, spread) and the
    rows to summarise: every verifier the run recorded, beside this verifier with cross-fitted thresholds on
    each kind of evidence (on the other kind, the thresholds fitted on this one, still by fold)."""
    if not path.is_file():
        raise ValueError(f"eval-verify rows file not found: {path}")
    everything = rows_in(path)
    rows = facts_rows(everything, evidence, path, verifier)
    fingerprint = rows[0]["fingerprint"]
    scores = grid_scores(rows, verifier)
    rule, f1, accuracy = fit(rows, scores, verifier)
    fold_rules = cross_fit(rows, folds, verifier)
    uids = {row["uid"] for row in rows}
    recorded = [row for row in everything if row.get("fingerprint") == fingerprint and row["uid"] in uids]
    recorded = list({(row["system"], row["uid"]): row for row in recorded}.values())
    facts = [row for row in recorded if str(row["system"]).startswith(f"{verifier}@") and "facts" in row]
    report = {
        "rows": str(path), "verifier": verifier, "evidence": evidence, "fingerprint": fingerprint, "claims": len(rows),
        "folds": folds,
        "grid": {**{name: list(values) for name, values in GRIDS[verifier].items()}, "confidence_slope": list(SLOPES)},
        "fitted_on_all": settings_of_rule(rule, verifier),
        "in_sample": {"macro_f1": round(f1, 4), "accuracy": round(accuracy, 4)},
        "fitted_per_fold": [settings_of_rule(r, verifier) for r in fold_rules],
        "replay_agreement": {"thresholds": settings_of_rule(recorded_rule, verifier),
                             "reproduced": recorded_rule_agreement(facts, recorded_rule), "of": len(facts)},
        "weakest_fact_entailment": {label: dict(sorted(c.items())) for label, c in entailment_spread(rows).items()},
        "best_macro_f1_by_entail_threshold": [[t, round(f, 4)] for t, f in threshold_curve(scores).items()],
    }
    ordered = sorted(recorded, key=lambda row: row["system"].split("@")[1] != evidence)
    return report, [*ordered, *decide_by_fold(facts, fold_rules, f"calibrated on {evidence} (cross-fitted)")]


# --- a served model's three labels (verifier=passages with --model NAME): `claimhop calibrate --verifier served` ---

# How strongly the fitted temperature and biases are held to the identity (squared penalty per unit of log-temperature
# and bias, against the summed log loss): a few dozen claims must not fit a label away. Set by hand; not tuned.
SERVED_RIDGE = 1.0


def served_pairs(rows: list[dict], evidence: str, source: Path) -> dict[str, tuple[dict[str, float], str]]:
    """Per claim (uid), (the raw three-label probabilities, the gold label) of the newest `passages@<evidence>`
    eval-verify run that recorded a served model's labels (`claimhop eval-verify --systems passages --model NAME`)."""
    system = f"passages@{evidence}"
    rows = [row for row in rows if row.get("system") == system and "raw_supported" in (row.get("probs") or {})]
    rows = [row for row in rows if (row.get("probs") or {}).get("logprobs")]  # a fixed confidence has nothing to fit
    if not rows:
        raise ValueError(f"{source} has no {system} rows with a served model's label probabilities; run "
                         f"`claimhop eval-verify --systems passages --evidence {evidence} --model NAME` first")
    fingerprint = rows[-1]["fingerprint"]
    latest = {row["uid"]: row for row in rows if row["fingerprint"] == fingerprint}
    return {uid: ({label: row["probs"][f"raw_{KEYS[label]}"] for label in LABELS}, row["label"])
            for uid, row in latest.items()}


def served_log_loss(pairs: list[tuple[dict[str, float], str]], calibration: ServedCalibration) -> float:
    """Mean log loss of the gold labels; a gold NOT_SUPPORTED (HoVer's two labels) scores P(CONTRADICTED) +
    P(INSUFFICIENT_INFO)."""
    total = 0.0
    for raw, gold in pairs:
        p = calibration.apply(raw)
        said = 1.0 - p["SUPPORTED"] if gold == "NOT_SUPPORTED" else p[gold]
        total -= math.log(min(max(said, 1e-9), 1.0))
    return total / len(pairs)


def fit_served(pairs: list[tuple[dict[str, float], str]], ridge: float = SERVED_RIDGE) -> ServedCalibration:
    """The temperature and per-label biases with the least log loss on these claims (the SUPPORTED bias held at 0:
    only differences between biases matter), held towards the identity by `ridge`."""
    import numpy as np
    from scipy.optimize import minimize

    def loss(x: np.ndarray) -> float:
        candidate = ServedCalibration(float(np.exp(x[0])), (0.0, float(x[1]), float(x[2])))
        return served_log_loss(pairs, candidate) * len(pairs) + ridge * float(np.sum(x ** 2))

    x = minimize(loss, np.zeros(3), method="Nelder-Mead", options={"xatol": 1e-4, "fatol": 1e-6}).x
    return ServedCalibration(round(float(np.exp(x[0])), 4), (0.0, round(float(x[1]), 4), round(float(x[2]), 4)),
                             {"claims": len(pairs), "ridge": ridge, "objective": "log loss of the gold labels"})


def served_scores(pairs: list[tuple[dict[str, float], str]], calibration: ServedCalibration) -> dict[str, float]:
    """Log loss and how often the most probable label is right (NOT_SUPPORTED: either of the other two)."""
    right = 0
    for raw, gold in pairs:
        p = calibration.apply(raw)
        said = max(LABELS, key=p.get)
        right += said == gold or (gold == "NOT_SUPPORTED" and said != "SUPPORTED")
    return {"log_loss": round(served_log_loss(pairs, calibration), 4), "accuracy": round(right / len(pairs), 4)}


def calibrate_served(path: Path, evidence: str, model: str, folds: int) -> tuple[dict, ServedCalibration]:
    """Fit the served model's calibration on all `passages@<evidence>` rows (what runs with `model` then use), with
    cross-fitted figures (each fold scored by the calibration fitted on the others) beside the identity's."""
    if not path.is_file():
        raise ValueError(f"eval-verify rows file not found: {path}")
    by_uid = served_pairs(rows_in(path), evidence, path)
    pairs = list(by_uid.values())
    fitted = fit_served(pairs)
    fitted = ServedCalibration(fitted.temperature, fitted.bias, {**fitted.provenance, "rows": str(path),
                                                                  "evidence": evidence, "model": model})
    by_fold: list[tuple[dict[str, float], str]] = []  # each claim's probabilities calibrated by its fold's fit
    for fold in range(folds):
        train = [pair for uid, pair in by_uid.items() if fold_of(uid, folds) != fold]
        test = [pair for uid, pair in by_uid.items() if fold_of(uid, folds) == fold]
        if not train or not test:
            raise ValueError(f"too few claims ({len(pairs)}) for {folds} folds")
        calibration = fit_served(train)
        by_fold += [(calibration.apply(raw), gold) for raw, gold in test]
    report = {
        "rows": str(path), "verifier": "served", "model": model, "evidence": evidence, "claims": len(pairs),
        "folds": folds, "fitted_on_all": {"temperature": fitted.temperature, "bias": dict(zip(LABELS, fitted.bias))},
        "identity": served_scores(pairs, ServedCalibration()),
        "cross_fitted": served_scores(by_fold, ServedCalibration()),  # already calibrated by their fold
        "in_sample": served_scores(pairs, fitted),
    }
    return report, fitted
