"""Which layer the passage verifier should read: the model cut after k blocks, swept on synthetic claims only.

For each k, every synthetic claim (made from HotpotQA questions, never a HoVer dev claim) is read once by the model cut
to its first k blocks (claimhop.lm.cut_model), and a logistic head over that state is measured by grouped 5-fold
cross-validation (claims of one question share a fold): ROC AUC and macro-F1 of SUPPORTED vs not at P >= 0.5 with
balanced classes, as `claimhop train-verifier` fits the shipped head. Seconds and prompt tokens per pass come from the
same reads (empty feature cache; a state already saved is not timed).

    python -m benchmarks.lab.layer_sweep --blocks 16 20 24 28 [--groups 60]

Writes docs/results/verifier/layer-sweep.{jsonl,md,png}.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np

OUT = Path("docs/results/verifier/layer-sweep")


def chosen_items(groups: int | None) -> list[dict]:
    """The synthetic claims, or those of the first `groups` questions in a fixed hash order."""
    import hashlib

    from claimhop.evaluation.train_verifier import SYNTHETIC_CLAIMS
    from claimhop.evaluation.verifier_data import synthetic_items

    items = synthetic_items(SYNTHETIC_CLAIMS)
    if groups:
        order = sorted({i["group"] for i in items}, key=lambda g: hashlib.sha256(g.encode()).hexdigest())[:groups]
        items = [i for i in items if i["group"] in set(order)]
    return items


def cross_validated(x: np.ndarray, y: np.ndarray, groups: list[str]) -> np.ndarray:
    """Out-of-fold P(supported): each item predicted by a head fitted without its question's claims."""
    from sklearn.model_selection import GroupKFold

    from claimhop.evaluation.train_verifier import fit_logistic

    predicted = np.zeros(len(y))
    for train, test in GroupKFold(n_splits=5).split(x, y, groups):
        head, _ = fit_logistic(x[train], y[train], [groups[i] for i in train], balanced=True)
        predicted[test] = [head.probability(row) for row in x[test]]
    return predicted


def measure(blocks: int, items: list[dict], corpus, answers: np.ndarray) -> dict:
    """One layer's row; `answers`: the output layer's answer rows (read from the GGUF once, not per layer)."""
    from sklearn.metrics import f1_score, roc_auc_score

    from claimhop.evaluation.train_verifier import head_inputs
    from claimhop.evaluation.verifier_features import (
        documents_for,
        extract_features,
        features_dir,
        load_features,
        state_path,
    )
    from claimhop.lm.cut_model import cut_path
    from claimhop.lm.weights import gguf_path
    from claimhop.program.verify.reading import MODEL_BLOCKS, RULE_BUDGET, reading_rule

    rule = reading_rule(blocks=blocks, budget=RULE_BUDGET)  # the sweep's budget
    folder = features_dir(rule)
    unread = sum(not state_path(folder, i["claim"], documents_for(corpus, i["titles"]), rule).is_file() for i in items)
    started = time.perf_counter()
    extract_features(items, corpus, desc=f"{blocks} blocks", rule=rule)
    seconds = time.perf_counter() - started
    states = load_features(items, corpus, rule=rule)
    model = gguf_path() if blocks == MODEL_BLOCKS else cut_path(blocks)
    x, _, _ = head_inputs(states, answers)
    y = np.array([i["label"] == "SUPPORTED" for i in items], dtype=int)
    groups = [i["group"] for i in items]
    p = cross_validated(x, y, groups)
    yes_only = x[:, -1]  # standardised: the same order, so the same AUC
    return {"blocks": blocks, "items": len(items), "supported": int(y.sum()),
            "auc": round(float(roc_auc_score(y, p)), 4),
            "macro_f1": round(100 * float(f1_score(y, p >= 0.5, average="macro")), 1),
            "yes_logit_auc": round(float(roc_auc_score(y, yes_only)), 4),
            "seconds_per_pass": round(seconds / unread, 2) if unread else None, "passes_timed": unread,
            "model_bytes": model.stat().st_size}


def table(rows: list[dict]) -> list[str]:
    full = next((r for r in rows if r["blocks"] == 28), None)
    lines = ["| blocks read | AUC (head) | macro-F1 (head, P>=0.5) | AUC (model's own yes-logit at that layer) | "
             "s per pass | vs 28 blocks | model file |", "|---|---|---|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: r["blocks"]):
        ratio = (f"{r['seconds_per_pass'] / full['seconds_per_pass']:.2f}x"
                 if full and full["seconds_per_pass"] and r["seconds_per_pass"] else "–")
        lines.append(f"| {r['blocks']} | {r['auc']:.3f} | {r['macro_f1']:.1f} | {r['yes_logit_auc']:.3f} | "
                     f"{r['seconds_per_pass'] or '–'} | {ratio} | {r['model_bytes'] / 1e6:.0f} MB |")
    return lines


def plot(rows: list[dict], path: Path) -> None:
    from claimhop.evaluation.figures import pyplot, save_png

    plt = pyplot()
    rows = sorted(rows, key=lambda r: r["blocks"])
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot([r["blocks"] for r in rows], [r["auc"] for r in rows], "o-", label="head AUC")
    ax.plot([r["blocks"] for r in rows], [r["yes_logit_auc"] for r in rows], "s--", label="yes-logit AUC")
    ax.set_xlabel("transformer blocks read (of 28)")
    ax.set_ylabel("ROC AUC, synthetic claims (grouped 5-fold)")
    timed = [r for r in rows if r["seconds_per_pass"]]
    if timed:
        twin = ax.twinx()
        twin.bar([r["blocks"] for r in timed], [r["seconds_per_pass"] for r in timed], alpha=0.2, color="grey")
        twin.set_ylabel("seconds per pass (bars)")
    ax.legend(loc="lower right")
    fig.tight_layout()
    save_png(fig, path)


def main() -> None:
    from claimhop.evaluation.train_verifier import answer_rows
    from claimhop.lm.weights import gguf_path
    from claimhop.retrieval.corpus import load_corpus

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--blocks", type=int, nargs="+", default=[16, 20, 24, 28])
    parser.add_argument("--groups", type=int, default=None, help="only this many questions' claims (default: all)")
    args = parser.parse_args()
    items = chosen_items(args.groups)
    corpus = load_corpus()
    answers = answer_rows(gguf_path())  # parsing the GGUF takes ~12 s: once, not per layer
    OUT.parent.mkdir(parents=True, exist_ok=True)
    results = []
    for blocks in args.blocks:
        row = measure(blocks, items, corpus, answers)
        results.append(row)
        print(json.dumps(row), flush=True)
    from claimhop.atomic import write_text

    recorded = OUT.with_suffix(".jsonl")
    earlier = recorded.read_text(encoding="utf-8") if recorded.is_file() else ""
    write_text(recorded, earlier + "".join(json.dumps(row) + "\n" for row in results))
    lines = table(results)
    write_text(OUT.with_suffix(".md"), "\n".join(lines) + "\n")
    plot(results, OUT.with_suffix(".png"))
    print("\n".join(lines))
    print(f"median passes timed: {statistics.median(r['passes_timed'] for r in results)}")


if __name__ == "__main__":
    main()
