"""What `claimhop train-verifier` prints: the training data, the claim-only baseline, held-out synthetic figures,
and every dev figure from heads that never saw the claim (5 folds by a hash of its uid), for the shipped recipe
and its alternatives, on gold and on retrieved documents."""

from __future__ import annotations

import numpy as np

from claimhop.evaluation.report import macro_f1
from claimhop.evaluation.train_verifier import FOLDS, fit_logistic, fold_of
from claimhop.evaluation.verifier_data import is_synthetic
from claimhop.evaluation.verify_eval import expected_calibration_error


def auc(labels: np.ndarray, scores: np.ndarray) -> float:
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(labels, scores)) if len(set(labels.tolist())) == 2 else float("nan")


def scored_rows(items: list[dict], p: np.ndarray) -> list[dict]:
    """Rows as eval-verify writes them (verdict at P >= 0.5, confidence in the predicted label)."""
    rows = []
    for item, prob in zip(items, p):
        predicted = "SUPPORTED" if prob >= 0.5 else "NOT_SUPPORTED"
        rows.append({"label": item["label"], "predicted": predicted, "num_hops": item.get("num_hops"),
                     "confidence": float(prob if prob >= 0.5 else 1 - prob)})
    return rows


def figures(items: list[dict], p: np.ndarray) -> str:
    rows = scored_rows(items, p)
    cells = [f"{100 * (macro_f1([(r['label'], r['predicted']) for r in rows]) or 0):.1f}"]
    for hops in (2, 3, 4):
        group = [r for r in rows if r["num_hops"] == hops]
        cells.append(f"{100 * (macro_f1([(r['label'], r['predicted']) for r in group]) or 0):.1f}" if group else "–")
    labels = np.array([item["label"] == "SUPPORTED" for item in items], dtype=int)
    right = sum(r["label"] == r["predicted"] for r in rows)
    cells += [f"{auc(labels, p):.3f}", f"{expected_calibration_error(rows)[0]:.3f}", f"{right}/{len(rows)}"]
    return " | ".join(cells)


def held_out(x: np.ndarray, y: np.ndarray, groups: list[str], train: np.ndarray, target: np.ndarray,
             c: float | None) -> np.ndarray:
    """P(supported) of the `target` items (NaN elsewhere), each from a head trained on the `train` items without any
    item of its fold's groups (a dev claim's gold and retrieved items share its group, so neither teaches the other);
    a target that shares no group with the training set is scored whole by one head."""
    p = np.full(len(y), np.nan)
    group = np.array(groups)
    fold = np.array([fold_of(g) for g in groups])
    for k in range(FOLDS) if np.isin(group[train], group[target]).any() else [None]:
        out = target & (fold == k) if k is not None else target
        keep = train & ~np.isin(group, group[out])
        head, _ = fit_logistic(x[keep], y[keep], [g for g, m in zip(groups, keep) if m], c=c, balanced=True)
        p[out] = 1 / (1 + np.exp(-(x[out] @ head.weights + head.bias)))
    return p


def claim_only_baseline(items: list[dict]) -> float:
    """Macro-F1 of a bag-of-words model that sees only the claim's text (grouped 5-fold CV on the synthetic set):
    near 50 means the labels cannot be guessed from the claims' wording."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline

    texts = [item["claim"] for item in items]
    y = np.array([item["label"] == "SUPPORTED" for item in items], dtype=int)
    model = make_pipeline(TfidfVectorizer(ngram_range=(1, 2), min_df=1), LogisticRegression(max_iter=2000))
    predicted = cross_val_predict(model, texts, y, groups=[item["group"] for item in items], cv=GroupKFold(5))
    labels = ["SUPPORTED" if v else "NOT_SUPPORTED" for v in y]
    return 100 * (macro_f1(list(zip(labels, ["SUPPORTED" if v else "NOT_SUPPORTED" for v in predicted]))) or 0)


def training_report(result: dict) -> str:
    items, x, y, groups = result["items"], result["x"], result["supported"], result["groups"]
    provenance = result["provenance"]
    synthetic = np.array([is_synthetic(item) for item in items])
    dev = ~synthetic
    c = provenance["support_head"]["C"]
    lines = ["# The passage verifier's head: training report", "",
             f"Model {provenance['model']} ({provenance['model_sha256'][:12]}), prompt {provenance['prompt']}, "
             f"passage budget {provenance['passage_budget_chars']} characters; support head C = {c}, kind head "
             f"C = {provenance['kind_head']['C']}.", ""]
    data = provenance["training_data"]
    lines += [f"Synthetic claims: {data['synthetic']['items']} ({', '.join(f'{k} {v}' for k, v in data['synthetic']['by_variant'].items())}), "
              f"from {data['synthetic']['file']} (sha256 {data['synthetic']['sha256'][:12]}). HoVer dev claims: "
              f"{data['hover_dev']['claims']} x {len(data['hover_dev']['evidence'])} evidence kinds."]
    more = ([f"{data['chains']['items']} three-document claims ({data['chains']['file']})"] if "chains" in data else []) + (
        [f"{data['synthetic_retrieved']['items']} synthetic claims on the documents claimhop retrieved for them "
         f"({data['synthetic_retrieved']['folder']})"] if "synthetic_retrieved" in data else [])
    if more:
        lines.append(f"Also trained on: {'; '.join(more)}; every synthetic figure below counts them as synthetic claims.")
    lines.append("")
    syn_items = [item for item, s in zip(items, synthetic) if s]
    lines.append(f"Claim-only baseline (TF-IDF + logistic regression on the synthetic claims' text, grouped 5-fold): "
                 f"macro-F1 {claim_only_baseline(syn_items):.1f}.")
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold, cross_val_predict

    syn_groups = [g for g, s in zip(groups, synthetic) if s]
    # the evidence for fitting the support heads with balanced classes: synthetic claims only, no dev claim
    for weight in (None, "balanced"):
        p_syn = cross_val_predict(LogisticRegression(C=c, max_iter=2000, class_weight=weight), x[synthetic], y[synthetic],
                                  groups=syn_groups, cv=GroupKFold(5), method="predict_proba")[:, 1]
        lines.append(f"Synthetic claims held out (grouped 5-fold, head trained on synthetic claims only, classes "
                     f"{'weighted equally' if weight else 'unweighted'}): {figures(syn_items, p_syn).split(' | ')[0]} "
                     f"macro-F1, AUC {auc(y[synthetic], p_syn):.3f}.")
    kind_mask = result["kind_items"]
    if kind_mask.sum() >= 10:
        kind_p = cross_val_predict(LogisticRegression(C=provenance["kind_head"]["C"], max_iter=2000), x[kind_mask],
                                   result["contradicted"][kind_mask], groups=[g for g, m in zip(groups, kind_mask) if m],
                                   cv=GroupKFold(5), method="predict")
        accuracy = float(np.mean(kind_p == result["contradicted"][kind_mask]))
        lines.append(f"Kind head (contradicted vs not settled) on held-out synthetic false claims: accuracy {accuracy:.3f} "
                     f"(n = {int(kind_mask.sum())}).")
    lines.append("")
    if not dev.any():
        return "\n".join(lines)
    everything = " + ".join(["synthetic", *(["three-document claims"] if "chains" in data else []),
                             *(["synthetic on retrieved documents"] if "synthetic_retrieved" in data else []),
                             "dev (this head)"])
    variants = {
        everything: np.ones(len(items), dtype=bool),
        "dev only": dev,
        "synthetic only": synthetic,
    }
    lines += ["Dev claims, every figure from a head that never saw the claim (macro-F1 in %; verdict at P >= 0.5; "
              "support heads fitted with both classes weighing the same):", "",
              "| head trained on | documents | macro-F1 | 2-hop | 3-hop | 4-hop | AUC | ECE | right |",
              "|---|---|---|---|---|---|---|---|---|"]
    yes_a, yes_b = provenance["yes_calibration"]["a"], provenance["yes_calibration"]["b"]
    for name, mask in variants.items():
        p = held_out(x, y, groups, mask, dev, c)
        for kind in ("gold", "retrieved"):
            chosen = [i for i, item in enumerate(items) if item["source"] == f"dev-{kind}"]
            lines.append(f"| {name} | {kind} | {figures([items[i] for i in chosen], p[chosen])} |")
    raw_yes = x[:, -1] * result["scale_last"] + result["mean_last"]
    p_yes = 1 / (1 + np.exp(-(yes_a * raw_yes + yes_b)))
    for kind in ("gold", "retrieved"):
        chosen = [i for i, item in enumerate(items) if item["source"] == f"dev-{kind}"]
        lines.append("| P(yes) through the output layer from the state read, calibrated on synthetic claims | "
                     f"{kind} | {figures([items[i] for i in chosen], p_yes[chosen])} |")
    return "\n".join(lines)
