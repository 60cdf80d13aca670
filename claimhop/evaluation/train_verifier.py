"""`claimhop train-verifier`: read every training claim once with the local model (features cached, resumable),
fit the passage verifier's heads, measure them on claims they never saw, and write the weights file with its
provenance (claimhop.program.verify.head).

Training set: the synthetic claims (claimhop.evaluation.synthetic) and the HoVer dev claims on their gold and on
their retrieved documents. Every dev figure comes from a head trained without that claim (5 folds by a hash of the
claim's uid; both evidence kinds of a claim share its fold), and the file keeps those fold heads so `claimhop
eval-verify --systems passages` measures dev claims the same way. The regularisation is chosen by grouped inner
cross-validation on the training set alone."""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from claimhop.evaluation.verifier_data import (
    DEV_RETRIEVED,
    collection_claim_items,
    dev_items,
    is_synthetic,
    real_claim_items,
    retrieved_synthetic_items,
    synthetic_items,
)
from claimhop.evaluation.verifier_features import (
    extract_features,
    features_dir,
    load_features,
)
from claimhop.lm.weights import QWEN_CODER_1_5B
from claimhop.program.verify.head import HEAD_FILE, PROVENANCE_FILE, Logistic, save_head
from claimhop.program.verify.reading import ReadingRule, reading_rule

SYNTHETIC_CLAIMS = Path("docs/results/verifier/synthetic-claims.jsonl")
FOLDS = 5
C_GRID = (1e-4, 3e-4, 1e-3, 3e-3, 1e-2)
ANSWER_TOKENS = ("Yes", "yes", "No", "no")


def fold_of(uid: str, folds: int = FOLDS) -> int:
    return int(hashlib.sha256(uid.encode()).hexdigest(), 16) % folds


def answer_rows(model_path: Path) -> np.ndarray:
    """The output layer's rows for the answer tokens, dequantised from the GGUF (so P(yes) is a readout of the
    state without a generation call)."""
    import gguf

    reader = gguf.GGUFReader(str(model_path))
    tokens = reader.fields["tokenizer.ggml.tokens"]
    names = [bytes(tokens.parts[i]).decode("utf-8", "replace") for i in tokens.data]
    output = next(t for t in reader.tensors if t.name == "output.weight")
    ids = [names.index(token) for token in ANSWER_TOKENS]
    return np.asarray(gguf.quants.dequantize(output.data[ids], output.tensor_type), dtype=np.float64)


def yes_logits(states: np.ndarray, rows: np.ndarray) -> np.ndarray:
    logits = states.astype(np.float64) @ rows.T
    return np.logaddexp(logits[:, 0], logits[:, 1]) - np.logaddexp(logits[:, 2], logits[:, 3])


def class_balanced(y: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The items' weights times each class's inverse share (weighted), so both classes weigh the same in a fit."""
    share = np.average(y, weights=weights)
    return weights * np.where(y == 1, 0.5 / max(share, 1e-9), 0.5 / max(1 - share, 1e-9))


def fit_logistic(x: np.ndarray, y: np.ndarray, groups: list[str], c: float | None = None,
                 balanced: bool = False, grid: tuple[float, ...] = C_GRID,
                 weights: np.ndarray | None = None) -> tuple[Logistic, float]:
    """L2 logistic regression; C chosen by grouped 5-fold log-loss on (x, y) when not given. `balanced`: both
    classes weigh the same in the fit (and in choosing C), whatever their shares in the training items. `weights`:
    how much each item counts (a set of labelled pairs weighed against the rest), in the fit and in choosing C."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import log_loss
    from sklearn.model_selection import GroupKFold

    item = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=np.float64)

    def fit_weights(rows: np.ndarray) -> np.ndarray:
        """The items' weights, balanced on the rows fitted on when asked (as scikit-learn's class_weight="balanced"
        does on each fold's own training rows)."""
        return class_balanced(y[rows], item[rows]) if balanced else item[rows]

    everything = np.arange(len(y))
    sample_weight = fit_weights(everything)
    if c is None:
        losses = {}
        for candidate in grid:
            predicted = np.zeros(len(y))
            for train, test in GroupKFold(n_splits=5).split(x, y, groups):
                model = LogisticRegression(C=candidate, max_iter=2000).fit(x[train], y[train],
                                                                           sample_weight=fit_weights(train))
                predicted[test] = model.predict_proba(x[test])[:, 1]
            losses[candidate] = log_loss(y, np.clip(predicted, 1e-6, 1 - 1e-6), sample_weight=sample_weight)
        c = min(losses, key=losses.get)
    model = LogisticRegression(C=c, max_iter=2000).fit(x, y, sample_weight=sample_weight)
    return Logistic(model.coef_[0].astype(np.float64), float(model.intercept_[0])), c


def standardise(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean = raw.mean(axis=0)
    scale = raw.std(axis=0)
    return mean, np.where(scale > 1e-8, scale, 1.0)


def head_inputs(states: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What the heads read: each state with the model's yes-vs-no logit beside it, standardised; with the mean and
    scale used (shipped in the head, so a run standardises the same way)."""
    raw = np.column_stack([states.astype(np.float64), yes_logits(states, rows)])
    mean, scale = standardise(raw)
    return (raw - mean) / scale, mean, scale


def folder_corpus(folder: str):
    """The documents of a folder a user indexed (`claimhop index FOLDER`)."""
    from claimhop.retrieval.factory import search_engine

    return search_engine(folder).corpus


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def train_verifier(synthetic_path: Path = SYNTHETIC_CLAIMS, retrieved_from: Path = DEV_RETRIEVED,
                   out: Path = HEAD_FILE, provenance_out: Path = PROVENANCE_FILE, use_dev: bool = True,
                   report_dir: Path | None = None, rule: ReadingRule | None = None,
                   dev_evidence: tuple[str, ...] = ("gold", "retrieved"), chains_path: Path | None = None,
                   retrieved_synthetic: Path | None = None, real_claims: Path | None = None,
                   real_root: Path | None = None, without_sets: tuple[str, ...] = (),
                   collections: tuple[Path, ...] = ()) -> dict:
    """Features for every item (read once, as `rule` reads), the heads, cross-fitted dev predictions, the weights
    file. `dev_evidence`: which documents the dev claims are read on for training (gold, retrieved); `chains_path`:
    three-document synthetic claims (claimhop.evaluation.synthetic_chains) trained on beside the others;
    `retrieved_synthetic`: a folder of synthetic claims and the documents claimhop retrieved for them
    (claimhop.evaluation.verifier_data.retrieved_synthetic_items), trained on as synthetic claims too;
    `real_claims`: real labelled claims of other domains, each read in its own folder under `real_root`
    (benchmarks.real_claims), those of `without_sets` left out; both heads learn from them (the kind head from their
    CONTRADICTED and INSUFFICIENT_INFO claims beside the synthetic false ones); `collections`: folders a user indexed
    whose own made claims (`claimhop train-verifier --corpus`) are trained on as synthetic claims beside the rest."""
    from claimhop.lm.weights import gguf_path
    from claimhop.retrieval.corpus import load_corpus

    started = time.time()
    synthetic = synthetic_items(synthetic_path)
    chains = synthetic_items(chains_path) if chains_path else []
    counts = dict(Counter(item["variant"] for item in synthetic))  # of the two-document claims
    two_document = len(synthetic)
    synthetic += chains
    on_retrieved = retrieved_synthetic_items(retrieved_synthetic) if retrieved_synthetic else []
    synthetic += on_retrieved
    dev = [item for kind in dev_evidence for item in dev_items(kind, retrieved_from)] if use_dev else []
    real = real_claim_items(real_claims, real_root, without_sets) if real_claims else []
    made = [item for source in collections for item in collection_claim_items(source)]
    by_folder: dict[str, list[dict]] = {}  # claims read in their own folder's documents, each folder loaded once
    for item in [*real, *made]:
        by_folder.setdefault(item["folder"], []).append(item)
    elsewhere = [item for folder_items in by_folder.values() for item in folder_items]
    rule = rule or reading_rule()
    corpus = load_corpus()
    extract_features(dev, corpus, desc="dev claims", rule=rule)
    extract_features(synthetic, corpus, desc="synthetic claims", rule=rule)
    elsewhere_states = []
    for folder, folder_items in by_folder.items():
        folder_documents = folder_corpus(folder)
        extract_features(folder_items, folder_documents, rule=rule, desc=f"claims read in {folder}")
        elsewhere_states.append(load_features(folder_items, folder_documents, rule))
    items = [*synthetic, *dev, *elsewhere]
    states = np.concatenate([load_features([*synthetic, *dev], corpus, rule=rule), *elsewhere_states])
    rows = answer_rows(gguf_path(QWEN_CODER_1_5B))
    x, mean, scale = head_inputs(states, rows)
    supported = np.array([item["label"] == "SUPPORTED" for item in items], dtype=int)
    groups = [item["group"] for item in items]
    synthetic_mask = np.array([is_synthetic(item) for item in items])

    # SUPPORTED is decided by heads fitted with both classes weighing the same: the training items are 45%
    # supported (the synthetic ones 37%), the claims users bring about half. Chosen on the synthetic claims held
    # out (grouped 5-fold, synthetic-only heads): macro-F1 61.2 unweighted -> 66.6 balanced.
    support, c_support = fit_logistic(x, supported, groups, balanced=True)
    false_synthetic = np.array([item.get("kind") in ("CONTRADICTED", "INSUFFICIENT_INFO") for item in items]) & synthetic_mask
    contradicted = np.array([item.get("kind") == "CONTRADICTED" for item in items], dtype=int)
    kind, c_kind = fit_logistic(x[false_synthetic], contradicted[false_synthetic],
                                [g for g, keep in zip(groups, false_synthetic) if keep])
    # the prompted answer alone, calibrated on the synthetic claims only: what a served model gets
    yes_only, _ = fit_logistic(x[synthetic_mask][:, -1:], supported[synthetic_mask],
                               [g for g, keep in zip(groups, synthetic_mask) if keep], c=1.0, balanced=True)
    yes_a = yes_only.weights[0] / scale[-1]
    yes_b = yes_only.bias - yes_only.weights[0] * mean[-1] / scale[-1]

    dev_uids = sorted({item["group"] for item in dev})
    folds = {uid: fold_of(uid) for uid in dev_uids}
    fold_heads = []
    for fold in range(FOLDS if dev else 0):
        keep = np.array([is_synthetic(item) or folds[item["group"]] != fold for item in items])
        head, _ = fit_logistic(x[keep], supported[keep], [g for g, k in zip(groups, keep) if k], c=c_support,
                               balanced=True)
        fold_heads.append(head)

    arrays = {
        "mean": mean, "scale": scale, "answer_rows": rows,
        "support_weights": support.weights, "support_bias": np.array(support.bias),
        "kind_weights": kind.weights, "kind_bias": np.array(kind.bias),
        "threshold": np.array(0.5), "yes_calibration": np.array([yes_a, yes_b]),
        # no fold heads with --no-dev: an empty (0, features) array, as load_head reads it
        "fold_weights": np.array([h.weights for h in fold_heads]).reshape(len(fold_heads), x.shape[1]),
        "fold_biases": np.array([h.bias for h in fold_heads]),
    }
    provenance = {
        "what": "claimhop's passage verifier head (verifier=passages): logistic regressions over the bundled model's "
                f"hidden state after {rule.blocks} of its blocks at the answer position of the passage prompt, plus its "
                "yes-vs-no logit",
        "command": "claimhop train-verifier",
        "trained_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "model": QWEN_CODER_1_5B.name, "model_sha256": QWEN_CODER_1_5B.sha256,
        "prompt": rule.version(), "reading": rule.name, "passage_budget_chars": rule.budget, "read_blocks": rule.blocks,
        "training_data": {
            "synthetic": {"file": str(synthetic_path), "sha256": file_sha256(synthetic_path), "items": two_document,
                          "by_variant": counts,
                          "made_from": "HotpotQA questions bundled in claimhop/data/hotpotqa_questions_dev.jsonl.gz "
                                       "and their Wikipedia paragraphs (CC BY-SA 4.0); see claimhop.evaluation.synthetic"},
            **({"chains": {"file": str(chains_path), "sha256": file_sha256(chains_path), "items": len(chains),
                           "made_from": "pairs of the same bundled HotpotQA questions sharing one supporting article "
                                        "(none the synthetic file used); see claimhop.evaluation.synthetic_chains"}}
               if chains_path else {}),
            **({"synthetic_retrieved": {
                "files": {name: file_sha256(retrieved_synthetic / name) for name in ("claims.jsonl", "eval.jsonl")},
                "folder": str(retrieved_synthetic), "items": len(on_retrieved),
                "made_from": "the stated/swap/flip claims of the synthetic file and stated/swap of the chains file, "
                             "each on the 21 documents `claimhop eval --recall-only` selected for it; see "
                             f"{retrieved_synthetic}/README.md"}} if retrieved_synthetic else {}),
            **({"real_claims": {
                "file": str(real_claims), "sha256": file_sha256(real_claims), "items": len(real),
                "folders": str(real_root),
                "without": list(without_sets),
                "by_set_and_label": {f"{s}/{label}": n for (s, label), n in sorted(
                    Counter((i["set"], i["label"]) for i in real).items())},
                "made_from": "public claim sets of other domains (HealthVer, Climate-FEVER, Check-COVID; their "
                             "PROVENANCE.md beside each folder), each claim read on the documents search found for it "
                             "in its set's folder; see benchmarks/real_claims.py"}} if real_claims else {}),
            **({"collections": {
                "folders": [str(source) for source in collections], "items": len(made),
                "by_variant": dict(Counter(i["variant"] for i in made)),
                "made_from": "each collection's own finding sentences (claimhop.evaluation.collection_claims), no "
                             "label of the user's"}} if collections else {}),
            "hover_dev": {"claims": len(dev_uids),
                          "evidence": [k if k == "gold" else f"retrieved ({retrieved_from})" for k in dev_evidence] if dev else [],
                          "file": "claimhop/data/claims_dev.jsonl"},
        },
        "support_head": {"C": c_support, "items": int(len(items)), "supported": int(supported.sum()),
                         "class_weight": "balanced"},
        "kind_head": {"C": c_kind, "items": int(false_synthetic.sum()), "contradicted": int(contradicted[false_synthetic].sum())},
        "yes_calibration": {"a": float(yes_a), "b": float(yes_b), "fitted_on": "synthetic claims only"},
        "folds": FOLDS, "dev_folds": folds,
        "features_folder": str(features_dir(rule)),
        "seconds": round(time.time() - started, 1),
    }
    save_head(arrays, provenance, out, provenance_out)
    return {"items": items, "x": x, "supported": supported, "groups": groups, "provenance": provenance,
            "kind_items": false_synthetic, "contradicted": contradicted, "mean_last": mean[-1], "scale_last": scale[-1]}
