"""Does a second reading of each pair tell contradiction apart better than the support question's state (issue 69)?
The second reading is the three-way question's state (`--three-ways`) or the support question's state for the
claim's opposite as the verify stage writes it (`--opposite`: the stage's opposite rule compares two numbers from
those two states; a head on both states side by side, or on their difference, may see more).

The verify stage reads one state, at the answer of "Is the claim supported by the documents?", and its heads learn
from it; held out by set, its kind head tells contradicted from not-enough-info pairs with an AUC of 0.40-0.77. The
same pairs read with the three-way question a served model is asked (`benchmarks.read_pairs --prompt three-ways`:
the same passages, a prompt that names what makes a claim false) give a second state. Heads on the pairs alone
(no Wikipedia items: those were read with the support question only), each set scored by heads trained on the
other sets (leave one set out, C chosen by leave-one-set-out inside the training sets): the support question's
state, the three-way one, and both side by side.

Table (`--out`, markdown and json): per held-out set and pooled, 3-class macro-F1 and contradicted recognised of a
3-way head, AUC of a kind head (contradicted against not-enough-info, among the pairs not supported) and of a
support head. No model call: it reads the two packed archives.

    python -m benchmarks.lab.three_way_reading \\
        --support docs/results/verifier/pairs/9730b8b7e840-cc324af070c2-ctx600 \\
        --three-ways docs/results/verifier/pairs/9730b8b7e840-cc324af070c2-ctx600-three-ways \\
        --out docs/results/verifier/pairs/three-ways
    python -m benchmarks.lab.three_way_reading \\
        --support docs/results/verifier/pairs/9730b8b7e840-cc324af070c2-ctx600 \\
        --opposite docs/results/verifier/pairs/9730b8b7e840-cc324af070c2-ctx600-opposite \\
        --out docs/results/verifier/pairs/opposite
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from benchmarks.pair_heads import macro3
from benchmarks.pair_sets import CONTRADICTED, INSUFFICIENT, LABELS, SUPPORTED
from benchmarks.read_pairs import packed_states, read_manifest
from claimhop.atomic import write_text
from claimhop.evaluation.verifier_report import auc

C_GRID = (1e-3, 1e-2, 1e-1)
# the heads compared, by the second reading: each a name and how its features are made from the two states
FEATURES = {
    "three-ways": {"support question": lambda s, t: s, "three-way question": lambda s, t: t,
                   "both": lambda s, t: np.hstack([s, t])},
    "opposite": {"claim": lambda s, t: s, "opposite": lambda s, t: t, "both": lambda s, t: np.hstack([s, t]),
                 "claim - opposite": lambda s, t: s - t},
}


def paired_pairs(support: Path, second: Path, kind: str = "three-ways") -> tuple[list[dict], dict[str, np.ndarray]]:
    """The pairs read both ways, with each head's features (rows in the same order)."""
    one, two = packed_states(support), packed_states(second)
    rows = [r for r in read_manifest(second) if r["id"] in one and r["id"] in two]
    s = np.stack([one[r["id"]] for r in rows]).astype(np.float64)
    t = np.stack([two[r["id"]] for r in rows]).astype(np.float64)
    return rows, {name: make(s, t) for name, make in FEATURES[kind].items()}


def fitted(x: np.ndarray, y: np.ndarray, c: float):
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=3000, class_weight="balanced")).fit(x, y)


def chosen_c(x: np.ndarray, y: np.ndarray, sets: np.ndarray) -> float:
    """C by leave-one-set-out log-loss inside the training sets (nested: the held-out set has no say)."""
    from sklearn.metrics import log_loss

    labels = sorted(set(y))
    losses = {}
    for c in C_GRID:
        loss = []
        for inner in sorted(set(sets)):
            train, test = sets != inner, sets == inner
            if len(set(y[train])) < len(labels):
                continue
            model = fitted(x[train], y[train], c)
            loss.append(log_loss(y[test], model.predict_proba(x[test]), labels=model.classes_))
        losses[c] = float(np.mean(loss)) if loss else np.inf
    return min(losses, key=losses.get)


def verdict_row(rows: list[dict], test: np.ndarray, gold: np.ndarray, verdicts: list[str]) -> dict:
    """A held-out set's verdicts by pair id, their 3-class macro-F1 and the contradicted pairs recognised."""
    held = gold[test]
    return {"pairs": int(test.sum()), "verdicts": dict(zip([r["id"] for r, t in zip(rows, test) if t], verdicts)),
            "macro_f1": round(macro3(list(held), verdicts), 1),
            "contradicted": f"{sum(v == CONTRADICTED for v, g in zip(verdicts, held) if g == CONTRADICTED)}"
                            f"/{int(sum(held == CONTRADICTED))}"}


def held_out(rows: list[dict], x: np.ndarray) -> dict[str, dict]:
    """Per held-out set: a 3-way head's verdicts, a kind head's AUC and a support head's AUC, each trained on the
    other sets' pairs."""
    sets = np.array([r["set"] for r in rows])
    gold = np.array([r["label"] for r in rows])
    out = {}
    for held in sorted(set(sets)):
        train, test = sets != held, sets == held
        three = fitted(x[train], gold[train], chosen_c(x[train], gold[train], sets[train]))
        row = verdict_row(rows, test, gold, list(three.predict(x[test])))
        support = (gold == SUPPORTED).astype(int)
        head = fitted(x[train], support[train], chosen_c(x[train], support[train], sets[train]))
        row["support_auc"] = round(auc(support[test], head.predict_proba(x[test])[:, 1]), 3)
        kind = gold != SUPPORTED
        kind_y = (gold == CONTRADICTED).astype(int)
        train_k, test_k = train & kind, test & kind
        if len(set(kind_y[test_k])) == 2 and len(set(kind_y[train_k])) == 2:
            head = fitted(x[train_k], kind_y[train_k], chosen_c(x[train_k], kind_y[train_k], sets[train_k]))
            row["kind_auc"] = round(auc(kind_y[test_k], head.predict_proba(x[test_k])[:, 1]), 3)
        out[held] = row
        print(held, {k: v for k, v in row.items() if k != "verdicts"}, flush=True)
    return out


def opposite_rule(rows: list[dict], claim: np.ndarray, opposite: np.ndarray) -> dict[str, dict]:
    """The verify stage's rule on the same folds: a support head (trained on the other sets' claim states) reads
    the claim and its opposite; SUPPORTED when the claim's P is at least one half, else CONTRADICTED when the
    opposite's P is above the claim's, else not-enough-info. Its kind AUC ranks the pairs not supported by the
    opposite's lead (P(opposite) - P(claim))."""
    sets = np.array([r["set"] for r in rows])
    gold = np.array([r["label"] for r in rows])
    support = (gold == SUPPORTED).astype(int)
    out = {}
    for held in sorted(set(sets)):
        train, test = sets != held, sets == held
        head = fitted(claim[train], support[train], chosen_c(claim[train], support[train], sets[train]))
        p_claim, p_opposite = head.predict_proba(claim[test])[:, 1], head.predict_proba(opposite[test])[:, 1]
        verdicts = [SUPPORTED if a >= 0.5 else CONTRADICTED if b > a else INSUFFICIENT
                    for a, b in zip(p_claim, p_opposite)]
        row = {**verdict_row(rows, test, gold, verdicts), "support_auc": round(auc(support[test], p_claim), 3)}
        kind = gold[test] != SUPPORTED
        kind_y = (gold[test][kind] == CONTRADICTED).astype(int)
        if len(set(kind_y)) == 2:
            row["kind_auc"] = round(auc(kind_y, (p_opposite - p_claim)[kind]), 3)
        out[held] = row
        print(held, "opposite rule", {k: v for k, v in row.items() if k != "verdicts"}, flush=True)
    return out


def pooled(rows: list[dict], by_set: dict[str, dict]) -> dict:
    gold = {r["id"]: r["label"] for r in rows}
    verdicts = {k: v for row in by_set.values() for k, v in row["verdicts"].items()}
    keys = sorted(verdicts)
    contradicted = [k for k in keys if gold[k] == CONTRADICTED]
    return {"pairs": len(keys), "macro_f1": round(macro3([gold[k] for k in keys], [verdicts[k] for k in keys]), 1),
            "contradicted": f"{sum(verdicts[k] == CONTRADICTED for k in contradicted)}/{len(contradicted)}"}


def markdown(results: dict[str, dict], rows: list[dict], kind: str = "three-ways") -> str:
    sets = sorted({r["set"] for r in rows})
    features = [name for name in results if name in FEATURES[kind] or name == "opposite rule"]
    second = {"three-ways": "the three-way question's", "opposite": "the opposite's"}[kind]
    lines = [f"# The support question's state against {second} (pairs alone, leave one set out)", "",
             f"{len(rows)} pairs read both ways (`python -m benchmarks.lab.three_way_reading`). Cells: 3-class "
             "macro-F1 / contradicted recognised of a 3-way head / AUC of a kind head (contradicted against "
             f"{INSUFFICIENT}, pairs not supported) / AUC of a support head; each set scored by heads trained on "
             "the other sets' pairs.", "",
             "| held-out set | pairs | " + " | ".join(features) + " |", "|---|---|" + "---|" * len(features)]
    for held in sets:
        cells = []
        for name in features:
            row = results[name]["sets"][held]
            cells.append(f"{row['macro_f1']} / {row['contradicted']} / {row.get('kind_auc', '-')} / "
                         f"{row['support_auc']}")
        lines.append(f"| {held} | {results[features[0]]['sets'][held]['pairs']} | " + " | ".join(cells) + " |")
    lines.append(f"| **pooled** | {len(rows)} | " + " | ".join(
        f"{results[name]['pooled']['macro_f1']} / {results[name]['pooled']['contradicted']}" for name in features)
                 + " |")
    labels = {label: sum(r["label"] == label for r in rows) for label in LABELS}
    lines += ["", "Labels: " + ", ".join(f"{k} {v}" for k, v in labels.items())]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--support", type=Path, required=True, help="the pairs read with the support question")
    second = parser.add_mutually_exclusive_group(required=True)
    second.add_argument("--three-ways", type=Path, help="the same pairs read with the three-way question")
    second.add_argument("--opposite", type=Path, help="the same pairs read as their opposites (read_pairs --prompt "
                        "opposite)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    kind, other = ("three-ways", args.three_ways) if args.three_ways else ("opposite", args.opposite)
    for folder in (args.support, other):
        if not folder.is_dir():
            parser.error(f"{folder}: no such folder (read pairs with `python -m benchmarks.read_pairs`)")
    rows, features = paired_pairs(args.support, other, kind)
    if not rows:
        parser.error("no pair is read both ways")
    results = {}
    if kind == "opposite":  # the stage's own rule on these states first: what a head must beat
        by_set = opposite_rule(rows, features["claim"], features["opposite"])
        results["opposite rule"] = {"sets": by_set, "pooled": pooled(rows, by_set)}
    for name, x in features.items():
        by_set = held_out(rows, x)
        results[name] = {"sets": by_set, "pooled": pooled(rows, by_set)}
    args.out.mkdir(parents=True, exist_ok=True)
    write_text(args.out / f"{kind}.json", json.dumps(results, indent=1) + "\n")
    write_text(args.out / f"{kind}.md", markdown(results, rows, kind))
    print(markdown(results, rows, kind))


if __name__ == "__main__":
    main()
