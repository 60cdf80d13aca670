"""Which fusion settings suit the claim-as-one-query search? recall@21 of hybrid search for a grid of BM25/dense
weights and RRF k, beside BM25 and dense alone, all in one run (no LM). Settings are chosen on the HotpotQA
questions (disjoint from the dev claims) and then reported on the HoVer dev claims, so the choice is not
tuned to the claims it is reported on.

    .venv/bin/python -m benchmarks.lab.fusion --out docs/results/fusion

Each claim's BM25 and dense top-`depth` lists are computed once and fused for every setting, so the grid costs
seconds. The graph's hops use the same fusion, with the run settings bm25_weight, dense_weight, rrf_k and
fusion_depth.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from claimhop.atomic import write_json, write_text
from claimhop.evaluation.data import load_claims
from claimhop.evaluation.figures import pyplot, save_png
from claimhop.evaluation.metric import all_gold_in
from claimhop.evaluation.optimize import training_examples
from claimhop.evaluation.report import wilson
from claimhop.retrieval.fusion import reciprocal_rank_fusion
from claimhop.retrieval.service import index_search

BM25_WEIGHTS = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0)
RRF_KS = (5, 20, 60, 200)


def tuning_questions() -> list[dict]:
    """The HotpotQA questions (disjoint from the dev claims, see claimhop/data/PROVENANCE.md), as claims."""
    return [{"claim": e.claim, "supporting_titles": e.supporting_titles}
            for e in training_examples(limit=10**6, seed=0)]


def recall(ranked_titles: list[list[str]], claims: list[dict], hops: int | None = None, k: int = 21) -> tuple[float, int]:
    picked = [(t, c) for t, c in zip(ranked_titles, claims) if hops is None or c.get("num_hops") == hops]
    hits = sum(all_gold_in(t, c["supporting_titles"], k) for t, c in picked)
    return (hits / len(picked) if picked else 0.0), len(picked)


def settings_grid(texts: list[str], depth: int) -> list[dict]:
    """Each setting's top-21 titles for every text: BM25 alone, dense alone, then hybrid over the grid."""
    retriever = index_search()
    lexical = [[i for i, _ in r] for r in retriever.indexes.bm25.search(texts, depth)]
    dense = [[i for i, _ in r] for r in retriever.indexes.dense.search(texts, depth)]
    titles = retriever.corpus.titles

    def titled(rankings: list[list[int]]) -> list[list[str]]:
        return [[titles[i] for i in r[:21]] for r in rankings]

    rows = [{"system": "bm25 alone", "bm25_weight": None, "rrf_k": None, "rankings": titled(lexical)},
            {"system": "dense alone", "bm25_weight": None, "rrf_k": None, "rankings": titled(dense)}]
    for k in RRF_KS:
        for weight in BM25_WEIGHTS:
            fused = [[i for i, _ in reciprocal_rank_fusion([lex, den], [weight, 1.0], k)]
                     for lex, den in zip(lexical, dense)]
            rows.append({"system": "hybrid", "bm25_weight": weight, "rrf_k": k, "rankings": titled(fused)})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=100, help="documents read from BM25 and dense before fusing")
    parser.add_argument("--out", default="docs/results/fusion", help="folder for the table, figures and plot")
    args = parser.parse_args(argv)
    claims = load_claims()
    tuning = tuning_questions()
    dev_rows = settings_grid([c["claim"] for c in claims], args.depth)
    tune_rows = settings_grid([q["claim"] for q in tuning], args.depth)
    hop_counts = sorted({c.get("num_hops") for c in claims})
    table = ["| system | bm25_weight (dense 1) | rrf_k | HotpotQA recall@10 / @21 (tuning) | HoVer dev recall@21 (95% CI) | "
             + " | ".join(f"{h}-hop" for h in hop_counts) + " |",
             "|---|---|---|---|---|" + "---|" * len(hop_counts)]
    results = []
    for row, tune in zip(dev_rows, tune_rows):
        overall, n = recall(row["rankings"], claims)
        low, high = wilson(overall * n, n)
        per_hop = {h: recall(row["rankings"], claims, h) for h in hop_counts}
        tune10, _ = recall(tune["rankings"], tuning, k=10)
        tune21, _ = recall(tune["rankings"], tuning)
        results.append({k: v for k, v in row.items() if k != "rankings"}
                       | {"recall@21": overall, "n": n, "per_hop": {str(h): r for h, (r, _) in per_hop.items()},
                          "tuning_recall@10": tune10, "tuning_recall@21": tune21, "tuning_n": len(tuning)})
        table.append(f"| {row['system']} | {row['bm25_weight'] or '-'} | {row['rrf_k'] or '-'} | "
                     f"{tune10:.3f} / {tune21:.3f} | {overall:.3f} ({low:.2f}-{high:.2f}) | "
                     + " | ".join(f"{r:.3f} (n={m})" for r, m in per_hop.values()) + " |")
    best = max((r for r in results if r["system"] == "hybrid"),
               key=lambda r: (r["tuning_recall@21"], r["tuning_recall@10"]))
    verdict = (f"Best on the {len(tuning)} HotpotQA tuning questions: bm25_weight={best['bm25_weight']}, "
               f"rrf_k={best['rrf_k']} (HoVer dev recall@21 {best['recall@21']:.3f}).")
    text = "\n".join(table)
    print(text)
    print(verdict)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    write_text(out / "fusion.md", f"The claim (or question) as one query, top 21; {len(claims)} HoVer dev claims, "
               f"{len(tuning)} HotpotQA questions.\n\n{text}\n\n{verdict}\n")
    write_json(out / "fusion.json", results)
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=False)
    for ax, key, title in ((axes[0], "tuning_recall@21", f"HotpotQA tuning ({len(tuning)} questions)"),
                           (axes[1], "recall@21", f"HoVer dev ({len(claims)} claims)")):
        for k in RRF_KS:
            points = [r for r in results if r["rrf_k"] == k]
            ax.plot([r["bm25_weight"] for r in points], [r[key] for r in points], marker="o", label=f"RRF k={k}")
        for r, style in zip(results[:2], ("--", ":")):
            ax.axhline(r[key], linestyle=style, color="grey", label=r["system"])
        ax.set_xticks(BM25_WEIGHTS)
        ax.set_xlabel("BM25 weight (dense weight 1)")
        ax.set_ylabel("recall@21")
        ax.set_title(title)
    axes[1].legend(fontsize=8)
    fig.suptitle("Hybrid fusion settings, the claim as one query")
    print(f"plot: {save_png(fig, out / 'fusion.png')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
