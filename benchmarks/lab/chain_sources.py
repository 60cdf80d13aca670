"""Which claims the passage verifier's head should learn from, chosen on claims it may be tuned on: the
three-document synthetic claims (claimhop.evaluation.synthetic_chains), not the dev claims.

Every figure comes from a head that never saw the item's question or claim: a source the head is trained on is
held out 5-fold by a hash of the group (claimhop.evaluation.train_verifier.fold_of), a source it is not trained
on is scored whole. C is chosen per head by grouped inner cross-validation on its own training items.

Rule, fixed before any three-document state was read: the shipped recipe (synthetic + dev) is replaced only by a
source whose macro-F1 on the three-document claims is at least 2 points higher, whose AUC there is not lower, and
whose macro-F1 on the two-document synthetic claims is at most 1 point lower; among those, the highest macro-F1 on
the three-document claims. The dev rows (169 claims, retrieved and gold documents, cross-fitted) are reported after
the choice, with paired counts against the shipped recipe, and do not take part in it. No model call: states come
from the feature cache (`claimhop train-verifier --chains` reads them).

    python -m benchmarks.lab.chain_sources --out docs/results/verifier/chain-sources
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from claimhop.atomic import write_text
from claimhop.evaluation.report import macro_f1, mcnemar_exact
from claimhop.evaluation.synthetic_chains import CHAIN_CLAIMS
from claimhop.evaluation.train_verifier import (
    SYNTHETIC_CLAIMS,
    answer_rows,
    fit_logistic,
    head_inputs,
)
from claimhop.evaluation.verifier_data import DEV_RETRIEVED, dev_items, synthetic_items
from claimhop.evaluation.verifier_features import load_features
from claimhop.evaluation.verifier_report import auc, held_out
from claimhop.program.verify.head import load_head

SHIPPED = "synthetic + dev"
CANDIDATES = {SHIPPED: ("synthetic", "dev-gold", "dev-retrieved"),
              "dev only": ("dev-gold", "dev-retrieved"),
              "synthetic only": ("synthetic",),
              "synthetic + chains": ("synthetic", "chains"),
              "synthetic + chains + dev": ("synthetic", "chains", "dev-gold", "dev-retrieved")}
MIN_GAIN, MAX_LOSS = 2.0, 1.0  # macro-F1 points on the three-document / two-document synthetic claims


def scored(items: list[dict], p: np.ndarray) -> dict:
    pairs = [(i["label"], "SUPPORTED" if v >= 0.5 else "NOT_SUPPORTED") for i, v in zip(items, p)]
    row = {"macro_f1": 100 * (macro_f1(pairs) or 0), "n": len(items),
           "auc": auc(np.array([i["label"] == "SUPPORTED" for i in items], dtype=int), p),
           "right": {i["key"]: a == b for i, (a, b) in zip(items, pairs)}}
    for hops in (2, 3, 4):
        chosen = [pair for pair, i in zip(pairs, items) if i.get("num_hops") == hops]
        row[f"{hops}-hop"] = 100 * (macro_f1(chosen) or 0) if chosen else None
    return row


def labelled_sets(synthetic: Path = SYNTHETIC_CLAIMS, chains: Path = CHAIN_CLAIMS,
                  retrieved_from: Path = DEV_RETRIEVED) -> dict[str, list[dict]]:
    """The labelled sets a head is trained and measured on, by name: the two- and three-document synthetic claims on
    their own evidence, and the dev claims on gold and on retrieved documents."""
    return {"synthetic": synthetic_items(synthetic),
            "chains": [{**item, "source": "chains"} for item in synthetic_items(chains)],
            "dev-gold": dev_items("gold", retrieved_from), "dev-retrieved": dev_items("retrieved", retrieved_from)}


def set_inputs(sets: dict[str, list[dict]], corpus, rule) -> tuple[list[dict], np.ndarray, np.ndarray, np.ndarray]:
    """(items, the set each comes from, the head's inputs from the cached states, 1 where SUPPORTED)."""
    from claimhop.lm.weights import gguf_path

    items = [item for part in sets.values() for item in part]
    where = np.array([name for name, part in sets.items() for _ in part])
    x, _, _ = head_inputs(load_features(items, corpus, rule=rule), answer_rows(gguf_path()))
    return items, where, x, np.array([item["label"] == "SUPPORTED" for item in items], dtype=int)


def source_rows(x: np.ndarray, y: np.ndarray, items: list[dict], where: np.ndarray, parts: list[str],
                candidates: dict[str, tuple[str, ...]]) -> dict[str, dict]:
    """For each candidate training source (the sets it trains on), its C (grouped inner cross-validation on its own
    items) and its scores on every set, each item from a head that never saw the item's group."""
    groups = [item["group"] for item in items]
    rows: dict[str, dict] = {}
    for name, sources in candidates.items():
        train = np.isin(where, sources)
        _, c = fit_logistic(x[train], y[train], [g for g, m in zip(groups, train) if m], balanced=True)
        rows[name] = {"C": c}
        for part in parts:
            mask = where == part
            p = held_out(x, y, groups, train, mask, c)
            rows[name][part] = scored([i for i, m in zip(items, mask) if m], p[mask])
    return rows


def choose(rows: dict[str, dict]) -> str:
    """The rule above, on the synthetic rows only."""
    base = rows[SHIPPED]
    passing = [name for name, row in rows.items() if name != SHIPPED
               and row["chains"]["macro_f1"] >= base["chains"]["macro_f1"] + MIN_GAIN
               and row["chains"]["auc"] >= base["chains"]["auc"]
               and row["synthetic"]["macro_f1"] >= base["synthetic"]["macro_f1"] - MAX_LOSS]
    return max(passing, key=lambda name: rows[name]["chains"]["macro_f1"]) if passing else SHIPPED


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chains", type=Path, default=CHAIN_CLAIMS)
    parser.add_argument("--synthetic", type=Path, default=SYNTHETIC_CLAIMS)
    parser.add_argument("--retrieved-from", type=Path, default=DEV_RETRIEVED)
    parser.add_argument("--make", type=int, metavar="N", help="first make N three-document claims when --chains is "
                        "missing (questions the two-document set did not use), and read every state not read yet "
                        "(model time: about a minute a claim on 2 cores)")
    parser.add_argument("--out", type=Path, default=Path("docs/results/verifier/chain-sources"),
                        help="path stem: writes <stem>.md and <stem>.jsonl")
    args = parser.parse_args()
    from claimhop.retrieval.corpus import load_corpus

    corpus = load_corpus()
    rule = load_head().reading  # as the shipped head reads
    if args.make:
        from claimhop.evaluation.synthetic_chains import make_chains, used_questions
        from claimhop.evaluation.verifier_features import extract_features

        if not args.chains.is_file():
            make_chains(args.make, args.chains, rule.budget, exclude=used_questions(args.synthetic))
        extract_features(synthetic_items(args.chains), corpus, desc="three-document claims", rule=rule)
    sets = labelled_sets(args.synthetic, args.chains, args.retrieved_from)
    chains = sets["chains"]
    items, where, x, y = set_inputs(sets, corpus, rule)
    rows = source_rows(x, y, items, where, list(sets), CANDIDATES)
    chosen = choose(rows)
    about = (f"`python -m benchmarks.lab.chain_sources` ({len(sets['chains'])} three-document items from "
             f"{len({i['group'] for i in chains})} questions, {len(sets['synthetic'])} two-document items; every "
             "figure from a head that never saw the item's question or claim)")
    lines = ["# Training source chosen on three-document synthetic claims", "", about, "",
             "| head trained on | 3-document macro-F1 | AUC | 2-document macro-F1 | AUC | C |", "|---|---|---|---|---|---|"]
    for name, row in rows.items():
        lines.append(f"| {name}{' (shipped)' if name == SHIPPED else ''} | {row['chains']['macro_f1']:.1f} | "
                     f"{row['chains']['auc']:.3f} | {row['synthetic']['macro_f1']:.1f} | {row['synthetic']['auc']:.3f} | "
                     f"{row['C']:g} |")
    rule = (f"Rule (fixed before the states were read): +{MIN_GAIN:g} macro-F1 on the three-document claims, AUC "
            f"not lower, at most -{MAX_LOSS:g} on the two-document ones. **Chosen: {chosen}.**")
    lines += ["", rule, "",
              "## Reported after the choice: 169 dev claims, cross-fitted", "",
              "| head trained on | documents | macro-F1 | 2-hop | 3-hop | 4-hop | AUC | gained / lost vs shipped (McNemar) |",
              "|---|---|---|---|---|---|---|---|"]
    lines += dev_lines(rows, SHIPPED)
    text = "\n".join(lines) + "\n"
    write_text(args.out.with_suffix(".md"), text)
    write_rows(rows, chosen, args.out.with_suffix(".jsonl"))
    plot(rows, args.out.with_suffix(".png"))
    print(text)


def dev_lines(rows: dict[str, dict], shipped: str) -> list[str]:
    """Table rows for the dev claims (retrieved, then gold documents), each source paired with the shipped one."""
    lines = []
    for kind in ("dev-retrieved", "dev-gold"):
        base = rows[shipped][kind]["right"]
        for name, row in rows.items():
            r = row[kind]
            gained = sum(v and not base[k] for k, v in r["right"].items())
            lost = sum(base[k] and not v for k, v in r["right"].items())
            hops = " | ".join(f"{r[f'{h}-hop']:.1f}" for h in (2, 3, 4))
            versus = "baseline" if name == shipped else f"{gained} / {lost}, p = {mcnemar_exact(lost, gained):.2f}"
            lines.append(f"| {name} | {kind[4:]} | {r['macro_f1']:.1f} | {hops} | {r['auc']:.3f} | {versus} |")
    return lines


def write_rows(rows: dict[str, dict], chosen: str, path: Path) -> None:
    write_text(path, "".join(
        json.dumps({"source": name, "C": row["C"], "chosen": name == chosen,
                    **{part: {k: v for k, v in r.items() if k != "right"} for part, r in row.items() if part != "C"}})
        + "\n" for name, row in rows.items()))


def plot(rows: dict[str, dict], path: Path) -> None:
    """Macro-F1 by training source: the two synthetic sets it is chosen on, then dev (reported after)."""
    from claimhop.evaluation.figures import pyplot, save_png

    plt = pyplot()
    shown = [("chains", "3-document synthetic", "macro_f1"), ("synthetic", "2-document synthetic", "macro_f1"),
             ("dev-retrieved", "dev retrieved (after)", "macro_f1"), ("dev-retrieved", "dev retrieved 3-hop (after)", "3-hop")]
    fig, ax = plt.subplots(figsize=(9, 4))
    width = 0.8 / len(rows)
    for k, (name, row) in enumerate(rows.items()):
        ax.bar(np.arange(len(shown)) + k * width, [row[part][key] or 0 for part, _, key in shown], width, label=name)
    ax.set_xticks(np.arange(len(shown)) + 0.4 - width / 2, [label for _, label, _ in shown])
    ax.set_ylim(40, 80)
    ax.set_ylabel("macro-F1 (%), held out")
    ax.set_title("Passage verifier head by training source (chosen on the synthetic sets only)")
    ax.legend(fontsize=7)
    save_png(fig, path)


if __name__ == "__main__":
    main()
