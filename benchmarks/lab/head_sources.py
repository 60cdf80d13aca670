"""The passage verifier's head by reading and by training source, on the 169 HoVer dev claims, cross-fitted.

For each reading (rule and layer, claimhop.program.verify.reading.READINGS) whose features `claimhop train-verifier`
has saved, heads are trained on the synthetic claims, on the dev claims, or on both, and every dev figure comes from
a head that never saw the claim (5 folds by a hash of its uid, both evidence kinds of a claim in one fold; synthetic
claims are never held out). Each row is compared claim by claim with the shipped head's own cross-fitted rows
(`claimhop eval-verify --systems passages`, committed in docs/results/verifier/dev-169-passages.jsonl): exact
McNemar on the claims one gets right and the other wrong. No model call: the states are read from the feature cache; a row whose features
are not all read says so.

    python -m benchmarks.lab.head_sources --readings chain-order-1@28 chain-order-2@21 --out docs/results/verifier/head-sources
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from benchmarks.feature_archive import parse_reading
from claimhop.atomic import atomic_path, write_text
from claimhop.evaluation.report import macro_f1, mcnemar_exact
from claimhop.evaluation.train_verifier import (
    SYNTHETIC_CLAIMS,
    answer_rows,
    fit_logistic,
    head_inputs,
)
from claimhop.evaluation.verifier_data import DEV_RETRIEVED, dev_items, synthetic_items
from claimhop.evaluation.verifier_features import (
    documents_for,
    features_dir,
    load_features,
    state_path,
)
from claimhop.evaluation.verifier_report import auc, held_out
from claimhop.program.verify.reading import ReadingRule

SOURCES = ("synthetic + dev", "dev only", "synthetic only")
KINDS = ("retrieved", "gold")
BASELINE_ROWS = Path("docs/results/verifier/dev-169-passages.jsonl")


def baseline_probabilities(path: Path, kind: str, items: list[dict]) -> np.ndarray:
    """P(supported) of each item as the shipped head gave it (cross-fitted) in its eval-verify rows."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    by_uid = {r["uid"]: r["probs"]["supported"] for r in rows if r["system"] == f"passages@{kind}"}
    missing = [i["group"] for i in items if i["group"] not in by_uid]
    if missing:
        raise SystemExit(f"{path}: no passages@{kind} row for {len(missing)} dev claims, e.g. {missing[0]}")
    return np.array([by_uid[i["group"]] for i in items])


def read_all(items: list[dict], corpus, rule: ReadingRule) -> bool:
    folder = features_dir(rule)
    return all(state_path(folder, i["claim"], documents_for(corpus, i["titles"]), rule).is_file() for i in items)


def predictions(rule: ReadingRule, synthetic: list[dict], dev: dict[str, list[dict]], corpus,
                rows: np.ndarray) -> tuple[dict, list[str], int]:
    """Per training source, P(supported) for every dev item read (by kind), each from a head that never saw its
    claim; None where the source's features are not read. Then the dev kinds read (and trained on), and how many
    synthetic claims were read (and trained on)."""
    kinds = [kind for kind in KINDS if read_all(dev[kind], corpus, rule)]
    synthetic = [item for item in synthetic if read_all([item], corpus, rule)]  # a stopped read: those it read
    have_synthetic = bool(synthetic)
    if not kinds:
        return {source: None for source in SOURCES}, kinds, 0
    dev_read = [item for kind in kinds for item in dev[kind]]
    items = [*synthetic, *dev_read]
    states = load_features(items, corpus, rule=rule)
    x, _, _ = head_inputs(states, rows)
    y = np.array([i["label"] == "SUPPORTED" for i in items], dtype=int)
    groups = [i["group"] for i in items]
    is_synthetic = np.array([i["source"] == "synthetic" for i in items])
    out: dict[str, dict[str, np.ndarray] | None] = {}
    for source in SOURCES:
        if "synthetic" in source and not have_synthetic:
            out[source] = None
            continue
        mask = {"synthetic + dev": np.ones(len(items), bool), "dev only": ~is_synthetic,
                "synthetic only": is_synthetic}[source]
        _, c = fit_logistic(x[mask], y[mask], [g for g, m in zip(groups, mask) if m], balanced=True)
        p = held_out(x, y, groups, mask, ~is_synthetic, c)
        p_dev, starts = p[~is_synthetic], np.cumsum([0, *(len(dev[kind]) for kind in kinds)])
        out[source] = {kind: p_dev[starts[k]:starts[k + 1]] for k, kind in enumerate(kinds)}
    return out, kinds, len(synthetic)


def scores(items: list[dict], p: np.ndarray) -> dict:
    right = {i["group"]: bool((p[k] >= 0.5) == (i["label"] == "SUPPORTED")) for k, i in enumerate(items)}
    pairs = [(i["label"], "SUPPORTED" if p[k] >= 0.5 else "NOT_SUPPORTED") for k, i in enumerate(items)]
    row = {"macro_f1": 100 * (macro_f1(pairs) or 0), "right": int(sum(right.values())), "n": len(items),
           "auc": auc(np.array([i["label"] == "SUPPORTED" for i in items], dtype=int), p)}
    for hops in (2, 3, 4):
        chosen = [pair for pair, i in zip(pairs, items) if i["num_hops"] == hops]
        row[f"{hops}-hop"] = 100 * (macro_f1(chosen) or 0) if chosen else None
    return row, right


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--readings", nargs="+", default=["chain-order-1@28", "chain-order-2@21"],
                        help="NAME@BLOCKS[:BUDGET] of each reading compared; the first reading's first source is "
                             "the baseline")
    parser.add_argument("--synthetic", type=Path, default=SYNTHETIC_CLAIMS)
    parser.add_argument("--retrieved-from", type=Path, default=DEV_RETRIEVED)
    parser.add_argument("--baseline-rows", type=Path, default=BASELINE_ROWS,
                        help="eval-verify rows of the head compared with (systems passages@retrieved, passages@gold); "
                             "default: the shipped head's")
    parser.add_argument("--out", type=Path, default=Path("docs/results/verifier/head-sources"),
                        help="path stem: writes <stem>.md, <stem>.jsonl and <stem>.png")
    args = parser.parse_args()
    from claimhop.lm.weights import gguf_path
    from claimhop.retrieval.corpus import load_corpus

    corpus = load_corpus()
    synthetic = synthetic_items(args.synthetic)
    dev = {kind: dev_items(kind, args.retrieved_from) for kind in KINDS}
    rows = answer_rows(gguf_path())
    table, records, baseline = [], [], {}

    def add(name: str, kind: str, probs: np.ndarray, about: dict) -> None:
        row, right = scores(dev[kind], probs)
        baseline.setdefault(kind, right)
        only_base = sum(baseline[kind][u] and not r for u, r in right.items())
        only_this = sum(r and not baseline[kind][u] for u, r in right.items())
        versus = (f"{only_this} / {only_base}, p = {mcnemar_exact(only_base, only_this):.2f}"
                  if right is not baseline[kind] else "baseline")
        hop = " | ".join(f"{row[f'{h}-hop']:.1f}" if row[f"{h}-hop"] is not None else "-" for h in (2, 3, 4))
        table.append(f"| {name} | {row['macro_f1']:.1f} | {hop} | {row['auc']:.3f} | {row['right']}/{row['n']} | "
                     f"{versus} |")
        records.append({**about, "documents": kind, **row,
                        "p": {i["group"]: round(float(v), 4) for i, v in zip(dev[kind], probs)}})

    for kind in KINDS:
        add(f"the head of `{args.baseline_rows.name}` | synthetic + dev | {kind}", kind,
            baseline_probabilities(args.baseline_rows, kind, dev[kind]),
            {"source": "baseline rows", "rows": str(args.baseline_rows)})
    for text in args.readings:
        rule = parse_reading(text)
        p, kinds, n_synthetic = predictions(rule, synthetic, dev, corpus, rows)
        trained_on = " + ".join(kinds)
        for source in SOURCES:
            for kind in KINDS:
                label = source.replace("dev", f"dev ({trained_on})") if kinds else source
                if n_synthetic and n_synthetic < len(synthetic):
                    label = label.replace("synthetic", f"synthetic ({n_synthetic} of {len(synthetic)})")
                name = f"{rule.name} @ {rule.blocks} blocks, {rule.budget:,} chars | {label} | {kind}"
                if p[source] is None or kind not in p[source]:
                    table.append(f"| {name} | not read: `claimhop train-verifier --reading {rule.name} --blocks "
                                 f"{rule.blocks} --budget {rule.budget}` | | | | | | |")
                    continue
                add(name, kind, p[source][kind], {"reading": rule.name, "blocks": rule.blocks, "budget": rule.budget,
                                                  "prompt": rule.version(), "source": label})
    header = ["| reading | head trained on | documents | macro-F1 | 2-hop | 3-hop | 4-hop | AUC | right | "
              "gained / lost vs baseline (McNemar) |", "|---|---|---|---|---|---|---|---|---|---|"]
    text = "\n".join(["# Heads by reading and training source, 169 HoVer dev claims, cross-fitted", "",
                      "`python -m benchmarks.lab.head_sources --readings " + " ".join(args.readings)
                      + (f" --baseline-rows {args.baseline_rows}" if args.baseline_rows != BASELINE_ROWS else "")
                      + "`", "",
                      *header, *table]) + "\n"
    write_text(args.out.with_suffix(".md"), text)
    write_text(args.out.with_suffix(".jsonl"), "".join(json.dumps(record) + "\n" for record in records))
    plot(records, args.out.with_suffix(".png"))
    print(text)


def plot(records: list[dict], path: Path) -> None:
    """Macro-F1 by hops, one group of bars per (reading, source), retrieved documents."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = [r for r in records if r["documents"] == "retrieved"]
    if not shown:
        return
    fig, ax = plt.subplots(figsize=(9, 4))
    width = 0.8 / len(shown)
    for k, record in enumerate(shown):
        values = [record["macro_f1"], *(record[f"{h}-hop"] or 0 for h in (2, 3, 4))]
        budget = f":{record['budget']}" if "budget" in record else ""
        name = (f"{record['reading']}@{record['blocks']}{budget}, " if "reading" in record
                else f"{Path(record['rows']).name}, ")
        ax.bar(np.arange(4) + k * width, values, width, label=name + record["source"])
    ax.set_xticks(np.arange(4) + 0.4 - width / 2, ["all", "2-hop", "3-hop", "4-hop"])
    ax.set_ylabel("macro-F1 (%)")
    ax.set_title("Passage verifier on retrieved documents, 169 dev claims, cross-fitted")
    ax.legend(fontsize=7)
    fig.tight_layout()
    with atomic_path(path, suffix=".png") as tmp:
        fig.savefig(tmp, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    main()
