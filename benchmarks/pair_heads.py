"""A verdict head that has seen contradiction in many genres (issue 69, item 2): the shipped head's training items
(synthetic and HoVer dev claims, claimhop.evaluation.train_verifier) beside the labelled pairs that
benchmarks.read_pairs read, scored set by set with **leave-one-set-out**: each pair set is scored by heads that
never saw any pair of it; C is chosen inside each training mix by grouped 5-fold log-loss (nested).

The table (`OUT/loso.md`, rows in `OUT/loso.json`, plot `OUT/loso.png`): per held-out set, its pairs, and for the
shipped head and for the heads trained with the other sets' pairs: 3-class macro-F1, contradicted pairs
recognised, AUC of the support head. Then HoVer dev (169 claims on claimhop's documents), each claim judged by a
head trained without its fold, paired with the same recipe without pairs (exact McNemar). The plot: macro-F1 per
held-out set against the number of pairs trained on. `--heads DIR` also writes one head file per left-out set
(`DIR/pairs-without-SET.npz`, provenance beside it) and one trained on every pair (`DIR/pairs-all.npz`), for
`python -m benchmarks.out_of_domain --head pairs=DIR/pairs-without-{set}.npz`.

Table: the leave-one-set-out table of docs/results/verifier/pairs/README.md (`loso/`).

    python -m benchmarks.pair_heads --pairs docs/results/verifier/pairs/9730b8b7e840-cc324af070c2-ctx600 \
        --out docs/results/verifier/pairs/loso --sizes 150,100000 --heads docs/results/verifier/pairs/heads
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import numpy as np

from benchmarks.pair_sets import CONTRADICTED, INSUFFICIENT, LABELS, SUPPORTED
from benchmarks.read_pairs import packed_states, read_manifest
from claimhop.atomic import write_text
from claimhop.evaluation.report import mcnemar_exact
from claimhop.evaluation.train_verifier import (
    FOLDS,
    class_balanced,
    fit_logistic,
    fold_of,
    standardise,
    yes_logits,
)
from claimhop.evaluation.verifier_features import features_dir
from claimhop.evaluation.verifier_report import auc
from claimhop.program.verify.head import Logistic, VerdictHead, save_head
from claimhop.program.verify.reading import (
    NEW_HEAD_READING,
    READINGS,
    ReadingRule,
    reading_rule,
)

SUPPORT_C = (1e-4, 3e-4, 1e-3)
KIND_C = (3e-3, 1e-2, 3e-2)
CONTRADICTION_C = (1e-3, 3e-3, 1e-2, 3e-2, 1e-1)
RATIOS = (0.1, 0.3, 1.0)  # the pairs' total weight against the shipped head's items, chosen nested


def shipped_items(rule: ReadingRule) -> tuple[list[dict], np.ndarray]:
    """The bundled head's training items, as its provenance names them, with their saved states under `rule`
    (benchmarks.feature_archive load puts them in the cache; `claimhop train-verifier --reading` reads the rest)."""
    from claimhop.evaluation.verifier_data import (
        DEV_RETRIEVED,
        SYNTHETIC_RETRIEVED,
        dev_items,
        retrieved_synthetic_items,
        synthetic_items,
    )
    from claimhop.evaluation.verifier_features import load_features
    from claimhop.retrieval.corpus import load_corpus

    items = [*synthetic_items(Path("docs/results/verifier/synthetic-claims.jsonl")),
             *synthetic_items(Path("docs/results/verifier/synthetic-chains.jsonl")),
             *retrieved_synthetic_items(SYNTHETIC_RETRIEVED),
             *dev_items("gold", DEV_RETRIEVED), *dev_items("retrieved", DEV_RETRIEVED)]
    return items, load_features(items, load_corpus(), rule)


def pair_items(folder: Path, sets: list[str] | None = None) -> tuple[list[dict], np.ndarray]:
    rows = read_manifest(folder)
    states = packed_states(folder)
    rows = [r for r in rows if r["id"] in states and (sets is None or r["set"] in sets)]
    items = [{"key": r["id"], "group": r["group"], "label": r["label"], "kind": r["label"],
              "source": f"pair-{r['set']}",
              "set": r["set"]} for r in rows]
    return items, (np.stack([states[r["id"]] for r in rows]) if rows else np.zeros((0, 1536), np.float32))


def real_items(path: Path, root: Path, rule: ReadingRule) -> tuple[list[dict], np.ndarray]:
    """benchmarks.real_claims' training claims (role "train": no reported sample shares a document with them), read
    as a check reads them (21 documents found in their set's folder, 3,000 characters): labelled claims of three
    pair sets in the reading of a real check, which 600-character pairs are not. Each keeps its set's name, so a
    head written for a left-out set never sees that set's claims either."""
    from claimhop.evaluation.train_verifier import folder_corpus
    from claimhop.evaluation.verifier_data import real_claim_items
    from claimhop.evaluation.verifier_features import extract_features, load_features

    items = real_claim_items(path, root)
    by_folder = {folder: [i for i in items if i["folder"] == folder] for folder in sorted({i["folder"] for i in items})}
    states = []
    for folder, these in by_folder.items():  # a claim a check never read (nothing to go on) is read here, once
        corpus = folder_corpus(folder)
        extract_features(these, corpus, rule, desc=f"real claims in {folder}")
        states.append(load_features(these, corpus, rule))
    return [i for these in by_folder.values() for i in these], np.concatenate(states)


def contradiction_part(folder: Path, held: str | None) -> tuple[dict[str, np.ndarray], dict]:
    """The head's contradiction part (claimhop.program.verify.head.ContradictionHead): contradicted against
    not-enough-info, on the states of the pairs (not supported, not of the `held` set) read with the three-way
    question (`benchmarks.read_pairs --prompt three-ways`), standardised on them, C by grouped 5-fold log-loss."""
    states = packed_states(folder)
    rows = [r for r in read_manifest(folder) if r["id"] in states and r["set"] != held and r["label"] != SUPPORTED]
    raw = np.stack([states[r["id"]] for r in rows]).astype(np.float64)
    mean, scale = standardise(raw)
    y = np.array([r["label"] == CONTRADICTED for r in rows], dtype=int)
    logistic, c = fit_logistic((raw - mean) / scale, y, [r["group"] for r in rows], None, balanced=True,
                               grid=CONTRADICTION_C)
    arrays = {"contradiction_mean": mean, "contradiction_scale": scale, "contradiction_weights": logistic.weights,
              "contradiction_bias": np.array(logistic.bias)}
    return arrays, {"pairs folder": str(folder), "C": c, "class_weight": "balanced",
                    "pairs": {f"{s}/{label}": n for (s, label), n in sorted(Counter((r["set"], r["label"])
                                                                                     for r in rows).items())},
                    "question": "three-way (claimhop.program.verify.reading.three_way_messages)"}


def fit_mass_mean(x: np.ndarray, y: np.ndarray, groups: list[str], c: float | None = None, balanced: bool = False,
                  grid: tuple[float, ...] = (), weights: np.ndarray | None = None) -> tuple[Logistic, float]:
    """A mass-mean probe (Marks & Tegmark, "The Geometry of Truth", 2023): the direction from the mean state of one
    class to the other's, its scale and offset fitted by a one-feature logistic regression; reported to travel
    across datasets better than a logistic probe. Same call as fit_logistic (C is unused and given as 0)."""
    from sklearn.linear_model import LogisticRegression

    item = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=np.float64)
    if balanced:
        item = class_balanced(y, item)
    direction = (np.average(x[y == 1], axis=0, weights=item[y == 1])
                 - np.average(x[y == 0], axis=0, weights=item[y == 0]))
    model = LogisticRegression(C=1e4, max_iter=2000).fit((x @ direction)[:, None], y, sample_weight=item)
    return Logistic(direction * float(model.coef_[0, 0]), float(model.intercept_[0])), 0.0


PROBES = {"logistic": fit_logistic, "mass-mean": fit_mass_mean}


def probe_name() -> str:
    """How this run fits its heads (--probe), for its table and the provenance of the heads it writes."""
    return next(name for name, fit in PROBES.items() if fit is Heads.probe)


def kind_mask(items: list[dict]) -> np.ndarray:
    """What the kind head learns from: items not supported that say how (synthetic false claims, pairs)."""
    return np.array([i.get("kind") in (CONTRADICTED, INSUFFICIENT) and i["label"] != SUPPORTED
                     and not i["source"].startswith("dev-") for i in items])


class Heads:
    """The support and kind heads fitted on (raw features of) a training mix, standardised on it."""

    answer_rows: np.ndarray | None = None  # the output layer's yes/no rows (set once the model file is read)
    probe = fit_logistic  # how each head is fitted (--probe); a plain function, called as Heads.probe

    def __init__(self, raw: np.ndarray, items: list[dict], support_c: float | None = None,
                 kind_c: float | None = None, weights: np.ndarray | None = None):
        self.mean, self.scale = standardise(raw)
        x = (raw - self.mean) / self.scale
        groups = [i["group"] for i in items]
        w = np.ones(len(items)) if weights is None else weights
        y = np.array([i["label"] == SUPPORTED for i in items], dtype=int)
        self.support, self.support_c = Heads.probe(x, y, groups, support_c, balanced=True, grid=SUPPORT_C,
                                                    weights=w)
        mask = kind_mask(items)
        yk = np.array([i.get("kind") == CONTRADICTED for i in items], dtype=int)
        self.kind, self.kind_c = Heads.probe(x[mask], yk[mask], [g for g, m in zip(groups, mask) if m], kind_c,
                                              balanced=True, grid=KIND_C, weights=w[mask])

    def probabilities(self, raw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = (raw - self.mean) / self.scale
        sig = lambda head: 1 / (1 + np.exp(-np.clip(x @ head.weights + head.bias, -50, 50)))  # noqa: E731
        return sig(self.support), sig(self.kind)

    def verdicts(self, raw: np.ndarray) -> list[str]:
        """Each state's label as the verify stage's head decides it (raw: the state, then its yes-logit)."""
        head = VerdictHead(self.mean, self.scale, Heads.answer_rows, self.support, self.kind, 0.5, (0.0, 0.0))
        return [head.label(state) for state in raw[:, :-1]]


def macro3(gold: list[str], predicted: list[str]) -> float:
    scores = []
    for label in LABELS:
        if label not in gold and label not in predicted:
            continue  # a two-label set is scored on its two labels
        tp = sum(g == p == label for g, p in zip(gold, predicted))
        fp = sum(g != label and p == label for g, p in zip(gold, predicted))
        fn = sum(g == label and p != label for g, p in zip(gold, predicted))
        scores.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    return 100 * float(np.mean(scores))


def scored(items: list[dict], verdicts: list[str], p_support: np.ndarray) -> dict:
    gold = [i["label"] for i in items]
    contradicted = [v for g, v in zip(gold, verdicts) if g == CONTRADICTED]
    return {"pairs": len(items), "macro_f1": round(macro3(gold, verdicts), 1),
            "contradicted": f"{sum(v == CONTRADICTED for v in contradicted)}/{len(contradicted)}",
            "auc": round(auc(np.array([g == SUPPORTED for g in gold], dtype=int), p_support), 3),
            "verdicts": {i["key"]: v for i, v in zip(items, verdicts)}}


def pooled(rows: list[dict], pairs: list[dict]) -> dict[str, dict]:
    """Every held-out set's verdicts together, per arm (the largest size of each kind): 3-class macro-F1,
    contradicted recognised, and pairs gained and lost against the shipped head (exact McNemar)."""
    gold = {i["key"]: i["label"] for i in pairs}
    arms: dict[str, dict[str, str]] = {}
    for row in rows:
        for key, value in row.items():
            if key == "shipped head" or key.startswith("+"):
                arms.setdefault(arm_name(key), {}).update(value["verdicts"])  # later (larger) sizes win
    base = arms["shipped head"]
    out = {}
    for arm, verdicts in arms.items():
        keys = sorted(verdicts)
        gained = sum(verdicts[k] == gold[k] != base[k] for k in keys)
        lost = sum(base[k] == gold[k] != verdicts[k] for k in keys)
        contradicted = [k for k in keys if gold[k] == CONTRADICTED]
        out[arm] = {"pairs": len(keys), "macro_f1": round(macro3([gold[k] for k in keys],
                                                                 [verdicts[k] for k in keys]), 1),
                    "contradicted": f"{sum(verdicts[k] == CONTRADICTED for k in contradicted)}/{len(contradicted)}",
                    "gained": gained, "lost": lost, "p": mcnemar_exact(gained, lost)}
    return out


def raw_features(states: np.ndarray, rows: np.ndarray) -> np.ndarray:
    return np.column_stack([states.astype(np.float64), yes_logits(states, rows)])


def shipped_head_scores(raw: np.ndarray, items: list[dict]) -> dict:
    from claimhop.program.verify.head import load_head

    head = load_head()
    states = raw[:, :-1]
    p_s = np.array([head.probabilities(state)["supported"] for state in states])
    return scored(items, [head.label(state) for state in states], p_s)


def pair_weights(n_base: int, pairs: list[dict], ratio: float) -> np.ndarray:
    """Each item's weight in a fit when the pairs together weigh `ratio` times the shipped head's items: the
    pairs' share is a choice, not an accident of how many were read. Scaled to a mean of 1, so the ratio moves
    only the mix and not the regularisation (scikit-learn scales the loss by the weights' sum, C stays fixed)."""
    weights = np.r_[np.ones(n_base), np.full(len(pairs), ratio * n_base / max(len(pairs), 1))]
    return weights / weights.mean()


def chosen_ratio(base: list[dict], base_raw: np.ndarray, pairs: list[dict], pair_raw: np.ndarray,
                 ratios: tuple[float, ...] = RATIOS) -> tuple[float, dict[float, float]]:
    """The pairs' weight chosen by leave-one-set-out *inside* a training mix (the nested step of issue 69): each
    of its sets scored by heads fitted on the base items and the mix's other sets, C fixed at the grids' middle to
    keep it affordable; the ratio with the best mean 3-class macro-F1 over those sets."""
    sets = sorted({i["set"] for i in pairs})
    scores: dict[float, float] = {}
    for ratio in ratios:
        f1 = []
        for inner in sets:
            keep = np.array([i["set"] != inner for i in pairs])
            kept = [p for p, k in zip(pairs, keep) if k]
            heads = Heads(np.vstack([base_raw, pair_raw[keep]]), [*base, *kept], SUPPORT_C[1], KIND_C[1],
                          pair_weights(len(base), kept, ratio))
            held = [p for p, k in zip(pairs, keep) if not k]
            f1.append(macro3([i["label"] for i in held], heads.verdicts(pair_raw[~keep])))
        scores[ratio] = round(float(np.mean(f1)), 1)
    return max(scores, key=scores.get), scores


def leave_one_set_out(base: list[dict], base_raw: np.ndarray, pairs: list[dict], pair_raw: np.ndarray,
                      sizes: tuple[int, ...], weigh: bool = True) -> list[dict]:
    """Per pair set: the shipped head, and heads trained on the base items plus up to N pairs of the other sets
    (each N of `sizes`, stratified prefix of the read order), scored on that set's pairs: the pairs counted as
    read, and (`weigh`) weighed by the ratio chosen inside the training mix (chosen_ratio)."""
    sets = sorted({i["set"] for i in pairs})
    rows = []
    for held in sets:
        test = np.array([i["set"] == held for i in pairs])
        test_items = [i for i, t in zip(pairs, test) if t]
        row = {"set": held, "pairs": int(test.sum()),
               "labels": dict(Counter(i["label"] for i in test_items)),
               "shipped head": shipped_head_scores(pair_raw[test], test_items)}
        for n in sizes:
            train_idx = np.flatnonzero(~test)[:n]
            train = [pairs[k] for k in train_idx]
            arms: list[tuple[str, np.ndarray | None, dict]] = [(f"+{len(train_idx)} pairs", None, {})]
            if weigh:
                ratio, by_ratio = chosen_ratio(base, base_raw, train, pair_raw[train_idx])
                arms.append((f"+{len(train_idx)} pairs w{ratio:g}", pair_weights(len(base), train, ratio),
                             {"ratio": ratio, "inner macro_f1 by ratio": by_ratio}))
            for arm, weights, extra in arms:
                heads = Heads(np.vstack([base_raw, pair_raw[train_idx]]), [*base, *train], weights=weights)
                p_s, _ = heads.probabilities(pair_raw[test])
                row[arm] = {**scored(test_items, heads.verdicts(pair_raw[test]), p_s),
                            "C": [heads.support_c, heads.kind_c], **extra}
                print(held, arm, row[arm], flush=True)
        rows.append(row)
    return rows


def hover_dev(base: list[dict], base_raw: np.ndarray, pair_raw: np.ndarray, pairs: list[dict],
              ratio: float | None = None) -> dict:
    """HoVer dev claims on claimhop's documents, each judged by a head trained without its fold (as the shipped
    head's fold heads do), with and without the pairs (weighing `ratio` times the base items, or as read);
    paired by claim."""
    dev = np.array([i["source"] == "dev-retrieved" for i in base])
    fold = np.array([fold_of(i["group"]) if i["source"].startswith("dev-") else -1 for i in base])
    right: dict[str, dict[str, bool]] = {"without pairs": {}, "with pairs": {}}
    heads_c: dict[str, tuple] = {}
    for name, extra_raw, extra in (("without pairs", pair_raw[:0], []), ("with pairs", pair_raw, pairs)):
        weigh = (lambda n: pair_weights(n, extra, ratio)) if ratio and extra else (lambda n: None)  # noqa: E731
        whole = Heads(np.vstack([base_raw, extra_raw]), [*base, *extra], weights=weigh(len(base)))  # C chosen once
        heads_c[name] = (whole.support_c, whole.kind_c)
        for k in range(FOLDS):
            keep = fold != k
            heads = Heads(np.vstack([base_raw[keep], extra_raw]), [*(b for b, m in zip(base, keep) if m), *extra],
                          whole.support_c, whole.kind_c, weigh(int(keep.sum())))
            out = dev & (fold == k)
            p_s, _ = heads.probabilities(base_raw[out])
            for item, p in zip((b for b, m in zip(base, out) if m), p_s):
                right[name][item["group"]] = bool((p >= 0.5) == (item["label"] == SUPPORTED))
    from claimhop.evaluation.report import macro_f1

    labels = {i["group"]: i["label"] for i in base if i["source"] == "dev-retrieved"}
    summary = {}
    for name, by in right.items():
        pairs2 = [(labels[u], labels[u] if ok else ("NOT_SUPPORTED" if labels[u] == SUPPORTED else SUPPORTED))
                  for u, ok in by.items()]
        summary[name] = {"macro_f1": round(100 * (macro_f1(pairs2) or 0), 1), "right": sum(by.values()),
                         "claims": len(by), "C": heads_c[name], "pairs weigh": ratio if name == "with pairs" else None}
    # do states of short contexts (a pair among ~600 characters) teach a head that works on long ones (HoVer dev
    # read with 3,000)? A head on the pairs alone, AUC of P(supported) on the dev claims
    only = Heads(pair_raw, pairs)
    dev_items = [b for b, m in zip(base, dev) if m]
    p_only, _ = only.probabilities(base_raw[dev])
    summary["pairs only"] = {"auc": round(auc(np.array([i["label"] == SUPPORTED for i in dev_items], dtype=int),
                                               p_only), 3), "pairs": len(pairs)}
    gained = sum(right["with pairs"][u] and not right["without pairs"][u] for u in labels)
    lost = sum(right["without pairs"][u] and not right["with pairs"][u] for u in labels)
    summary["paired"] = {"gained": gained, "lost": lost, "p": round(mcnemar_exact(gained, lost), 3)}
    return summary


def write_head(path: Path, heads: Heads, rows: np.ndarray, trained_on: dict, rule: ReadingRule,
               contradiction: tuple[dict[str, np.ndarray], dict] | None = None) -> None:
    """A head file `load_head` reads (no dev fold heads: it is measured on sets it never saw), with a contradiction
    part when one is given."""
    from claimhop.lm.weights import QWEN_CODER_1_5B
    from claimhop.program.verify.head import load_head

    arrays = {"mean": heads.mean, "scale": heads.scale, "answer_rows": rows,
              "support_weights": heads.support.weights, "support_bias": np.array(heads.support.bias),
              "kind_weights": heads.kind.weights, "kind_bias": np.array(heads.kind.bias),
              "threshold": np.array(0.5), "yes_calibration": np.array(load_head().yes_calibration),
              "fold_weights": np.zeros((0, heads.mean.shape[0])), "fold_biases": np.zeros(0),
              **(contradiction[0] if contradiction else {})}
    provenance = {"what": "claimhop's passage verifier head trained with labelled pairs of many genres "
                          "(benchmarks.pair_heads)", "command": "python -m benchmarks.pair_heads --heads",
                  "model": QWEN_CODER_1_5B.name, "model_sha256": QWEN_CODER_1_5B.sha256, "prompt": rule.version(),
                  "reading": rule.name, "passage_budget_chars": rule.budget, "read_blocks": rule.blocks,
                  "training_data": trained_on,
                  "support_head": {"probe": probe_name(), "C": heads.support_c, "class_weight": "balanced"},
                  "kind_head": {"probe": probe_name(), "C": heads.kind_c, "class_weight": "balanced"},
                  **({"contradiction_head": contradiction[1]} if contradiction else {})}
    path.parent.mkdir(parents=True, exist_ok=True)
    save_head(arrays, provenance, path, path.with_suffix(".json"))


def bundled_with_part(path: Path, contradiction: tuple[dict[str, np.ndarray], dict]) -> None:
    """The bundled head file as shipped, plus a contradiction part: its support and kind heads unchanged."""
    from claimhop.program.verify.head import HEAD_FILE, PROVENANCE_FILE

    with np.load(HEAD_FILE) as data:
        arrays = {name: data[name] for name in data.files}
    provenance = json.loads(PROVENANCE_FILE.read_text(encoding="utf-8"))
    path.parent.mkdir(parents=True, exist_ok=True)
    save_head({**arrays, **contradiction[0]}, {**provenance, "contradiction_head": contradiction[1]}, path,
              path.with_suffix(".json"))


def plot(rows: list[dict], path: Path) -> None:
    from claimhop.evaluation.figures import pyplot, save_png

    fig, ax = pyplot().subplots(figsize=(7, 4))
    for row in rows:
        sizes = [(0, row["shipped head"]["macro_f1"])]
        color = None
        for weighed in (False, True):
            points = sizes + [(int(k[1:].split()[0]), v["macro_f1"]) for k, v in row.items()
                              if k.startswith("+") and (" w" in k) == weighed]
            line = ax.plot(*zip(*points), marker="o", linestyle="--" if weighed else "-",
                           label=f"{row['set']} ({row['pairs']} pairs)" if not weighed else None,
                           color=color)
            color = line[0].get_color()
    ax.set_xlabel("pairs of the other sets trained on (0: the shipped head; dashed: weighed, ratio chosen nested)")
    ax.set_ylabel("3-class macro-F1 on the held-out set's pairs")
    ax.set_title("Leave one set out: a set scored by heads that never saw it")
    ax.legend(fontsize=7)
    fig.tight_layout()
    save_png(fig, path, dpi=120)


def arm_name(key: str) -> str:
    """A row's arm as a column: the shipped head, the other sets' pairs as read, or weighed (ratio chosen nested)."""
    if key == "shipped head":
        return key
    return "+ other sets' pairs, weighed" if " w" in key else "+ other sets' pairs"


def markdown(rows: list[dict], dev: dict | None, folder: Path, pairs: list[dict] | None = None) -> str:
    arms = list(dict.fromkeys(arm_name(k) for r in rows for k in r if k == "shipped head" or k.startswith("+")))
    lines = [f"# Leave one set out: pairs of `{folder}`" + ("" if probe_name() == "logistic"
                                                          else f" ({probe_name()} probes)"), "",
             "Each set's pairs scored by heads that never saw a pair of that set (`python -m benchmarks.pair_heads`): "
             "the shipped head, and heads trained on the shipped head's items plus the other sets' pairs, counted as "
             "read or weighed: together they weigh R times the shipped head's items, R in "
             f"{', '.join(f'{r:g}' for r in RATIOS)} chosen by leave-one-set-out inside the training mix (nested). "
             "Cells: 3-class macro-F1 / contradicted recognised / AUC of the support head (pairs trained on; R).",
             "",
             "| held-out set | pairs | " + " | ".join(arms) + " |", "|---|---|" + "---|" * len(arms)]
    for r in rows:
        cells = {arm_name(k): f"{v['macro_f1']} / {v['contradicted']} / {v['auc']}"
                 + (f" ({k.split()[0][1:]}{'; R ' + k.split()[-1][1:] if ' w' in k else ''})"
                    if k.startswith("+") else "")
                 for k, v in r.items() if k == "shipped head" or k.startswith("+")}
        lines.append(f"| {r['set']} | {r['pairs']} | " + " | ".join(cells.get(a, "-") for a in arms) + " |")
    if pairs:
        together = pooled(rows, pairs)
        lines.append(f"| **pooled** | {together['shipped head']['pairs']} | " + " | ".join(
            f"{together[a]['macro_f1']} / {together[a]['contradicted']}"
            + ("" if a == "shipped head" else f" (+{together[a]['gained']} -{together[a]['lost']}, "
                                             f"p = {together[a]['p']:.2g})") for a in arms) + " |")
    if dev:
        lines += ["", "HoVer dev, 169 claims on claimhop's documents, 2-class macro-F1, each claim judged by a head "
                  "trained without its fold:", "",
                  f"- without pairs {dev['without pairs']['macro_f1']} ({dev['without pairs']['right']} right), "
                  f"with pairs {dev['with pairs']['macro_f1']} ({dev['with pairs']['right']} right); gained "
                  f"{dev['paired']['gained']}, lost {dev['paired']['lost']} (exact McNemar p = {dev['paired']['p']})",
                  f"- a head on the {dev['pairs only']['pairs']} pairs alone (short contexts): AUC of P(supported) on "
                  f"the dev claims (3,000 characters read) {dev['pairs only']['auc']}"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=Path, required=True, help="a benchmarks.read_pairs folder")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--sizes", default="100000", help="comma-separated numbers of other sets' pairs")
    parser.add_argument("--heads", type=Path, help="write the left-out and all-pairs heads here")
    parser.add_argument("--no-dev", action="store_true", help="skip the HoVer dev comparison")
    parser.add_argument("--real-claims", type=Path, help="benchmarks.real_claims' file: its training claims join "
                        "the written heads' training (a left-out set's own claims stay out)")
    parser.add_argument("--real-root", type=Path, default=Path("/work/ood"), help="the folders of --real-claims")
    parser.add_argument("--three-ways", type=Path, help="pairs read with the three-way question: the written heads "
                        "get a contradiction part trained on them (contradiction_check=three-ways)")
    parser.add_argument("--heads-only", action="store_true", help="write --heads, no table (nor HoVer dev)")
    parser.add_argument("--reading", default=NEW_HEAD_READING, choices=sorted(READINGS), help="the reading rule "
                        "(21 blocks, 3,000 characters) the shipped items, real claims and --pairs were read with")
    parser.add_argument("--as-read", action="store_true", help="no weighed arm: HoVer dev and the written heads "
                        "count each pair as one item")
    parser.add_argument("--probe", choices=sorted(PROBES), default="logistic",
                        help="how the support and kind heads are fitted: L2 logistic regression (C nested) or a "
                             "mass-mean probe")
    args = parser.parse_args(argv)
    Heads.probe = PROBES[args.probe]  # every head of this run: its table, HoVer dev and the heads it writes
    if not args.pairs.is_dir():
        parser.error(f"--pairs {args.pairs}: no such folder (read pairs with `python -m benchmarks.read_pairs`)")
    rule = reading_rule(args.reading)
    if not args.pairs.name.startswith(features_dir(rule).name):
        parser.error(f"--pairs {args.pairs} was not read with --reading {args.reading} (its folder would start "
                     f"{features_dir(rule).name}: `python -m benchmarks.read_pairs --reading {args.reading}`)")
    from claimhop.evaluation.train_verifier import answer_rows
    from claimhop.lm.weights import gguf_path

    rows_out = answer_rows(gguf_path())
    Heads.answer_rows = rows_out
    base, base_states = shipped_items(rule)
    base_raw = raw_features(base_states, rows_out)
    pairs, pair_states = pair_items(args.pairs)
    if not pairs:
        parser.error(f"no packed pairs in {args.pairs}")
    pair_raw = raw_features(pair_states, rows_out)
    if args.heads_only and not args.heads:
        parser.error("--heads-only needs --heads DIR")
    sizes = tuple(sorted(int(s) for s in args.sizes.split(",")))  # ascending: a table keeps each arm's largest
    rows = [] if args.heads_only else leave_one_set_out(base, base_raw, pairs, pair_raw, sizes, not args.as_read)
    # the ratio on all pairs: HoVer dev's and the all-pairs head's (a held-out set's head never uses it)
    needed = not args.as_read and (not args.no_dev or args.heads)
    ratio = chosen_ratio(base, base_raw, pairs, pair_raw)[0] if needed else None
    if not args.heads_only:
        dev = None if args.no_dev else hover_dev(base, base_raw, pair_raw, pairs, ratio)
        args.out.mkdir(parents=True, exist_ok=True)
        write_text(args.out / "loso.json", json.dumps({"pairs": str(args.pairs), "probe": args.probe, "rows": rows,
                                                       "hover_dev": dev}, indent=1) + "\n")
        write_text(args.out / "loso.md", markdown(rows, dev, args.pairs, pairs))
        plot(rows, args.out / "loso.png")
        print(markdown(rows, dev, args.pairs, pairs))
    real, real_raw = real_items(args.real_claims, args.real_root, rule) if args.real_claims else ([], pair_raw[:0])
    if args.real_claims:
        real_raw = raw_features(real_raw, rows_out)
    if args.heads and args.three_ways:  # the bundled head with a contradiction part: what the part alone changes
        for held in [*sorted({i["set"] for i in pairs}), None]:
            name = f"bundled-contradiction-without-{held}" if held else "bundled-contradiction-all"
            bundled_with_part(args.heads / f"{name}.npz", contradiction_part(args.three_ways, held))
            print(f"wrote {args.heads / name}.npz")
    if args.heads:
        counts = Counter(i["set"] for i in pairs)
        for held in [*sorted(counts), None]:
            keep = np.array([i["set"] != held for i in pairs])
            kept = [p for p, k in zip(pairs, keep) if k]
            # the ratio the left-out set's row chose inside this very mix (its largest size)
            row_ratio = next((v["ratio"] for r in rows if r["set"] == held for k, v in reversed(r.items())
                              if k.startswith("+") and " w" in k and int(k[1:].split()[0]) == len(kept)), None)
            if row_ratio is None and not args.as_read:
                # no row weighed this very mix: choose inside it (a ratio chosen with `held`'s pairs would leak)
                row_ratio = chosen_ratio(base, base_raw, kept, pair_raw[keep])[0] if held else ratio
            seen = np.array([i["set"] != held for i in real], dtype=bool)  # real claims weigh as base items do
            known = [*base, *(r for r, k in zip(real, seen) if k)]
            heads = Heads(np.vstack([base_raw, real_raw[seen], pair_raw[keep]]), [*known, *kept],
                          weights=pair_weights(len(known), kept, row_ratio) if row_ratio else None)
            name = f"pairs-without-{held}" if held else "pairs-all"
            write_head(args.heads / f"{name}.npz", heads, rows_out, {
                "shipped head's items": len(base), "pairs": {s: n for s, n in counts.items() if s != held},
                **({"real claims (benchmarks.real_claims, role train)": {
                    "file": str(args.real_claims), "by_set": dict(Counter(r["set"] for r, k in zip(real, seen) if k))}}
                   if real else {}),
                "pairs weigh (times the shipped head's items)": row_ratio,
                "pairs folder": str(args.pairs), "sets": "benchmarks.pair_sets (licences and provenance there)"},
                rule, contradiction_part(args.three_ways, held) if args.three_ways else None)
            print(f"wrote {args.heads / name}.npz")


if __name__ == "__main__":
    main()
