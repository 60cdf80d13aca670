"""Does the local model, judging the claim search's first documents one by one, put more evidence among the first
5 than the plain search outside Wikipedia (issue 70)? A different signal from the orderings of the same retrieval
scores tried before (leads, floors, rank fusion, a learned ranking): the model reads each passage with the claim.

Rows: `claimhop eval --recall-only --systems hybrid,hybrid-rerank --set rerank_depth=N` on each sample (OUT/SET/
eval.jsonl): `hybrid-rerank` is the same hybrid search with the first N documents re-ordered by the model's P(yes)
that the passage is relevant to the claim (claimhop.retrieval.rerank.LMReranker; the rest keep their place). From
the two orders this scores, per set and pooled, claims with any evidence document among the first k (by the passage
titled as the document, as benchmarks.every_set counts outside Wikipedia):
- `hybrid`: the plain search;
- `model`: the model's order of the first N;
- `fused w`: a weighted reciprocal-rank fusion of the two orders (1 / (RRF_K + hybrid rank) + w / (RRF_K +
  model rank)), w chosen for each set on the other sets only (leave one set out: the question is whether it travels).
Paired against hybrid claim by claim (exact McNemar). No model call: it reads the rows.

    python -m benchmarks.lab.lm_rerank --rows /work/rerank --out docs/results/every-set/lm-rerank
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks import every_set
from benchmarks.lab import show_table
from claimhop.evaluation.metric import evidence_in
from claimhop.evaluation.runner import rows_in

SETS = ("healthver", "climate-fever", "check-covid")
KS = (1, 3, 5)
RRF_K = 20  # the fusion's own k (state/tuning.py), so a rank means what it means there
WEIGHTS = (0.5, 1.0, 2.0, 4.0)


def load(rows_dir: Path, name: str) -> dict[str, dict]:
    """uid -> {"gold", "hybrid", "model"}: the two orders of the claim's search (the last row of each wins)."""
    claims: dict[str, dict] = {}
    for row in rows_in(rows_dir / name / "eval.jsonl"):
        if row.get("system") in ("hybrid", "hybrid-rerank") and row.get("gold"):
            key = "model" if row["system"] == "hybrid-rerank" else "hybrid"
            claims.setdefault(row["uid"], {"gold": row["gold"]})[key] = row.get("titles") or []
    return {uid: c for uid, c in claims.items() if "hybrid" in c and "model" in c}


def fused(claim: dict, weight: float, depth: int) -> list[str]:
    """The first `depth` by weighted reciprocal-rank fusion of the two orders; the rest in the search's order."""
    top = claim["hybrid"][:depth]
    model_rank = {t: r for r, t in enumerate(claim["model"][:depth], start=1)}
    score = {t: 1 / (RRF_K + r) + weight / (RRF_K + model_rank.get(t, depth)) for r, t in enumerate(top, start=1)}
    return sorted(top, key=lambda t: -score[t]) + claim["hybrid"][depth:]


def order(claim: dict, arm: str, depth: int) -> list[str]:
    if arm in ("hybrid", "model"):
        return claim[arm]
    return fused(claim, float(arm.split()[-1]), depth)


def hits(claims: dict[str, dict], arm: str, k: int, depth: int) -> dict[str, bool]:
    return {uid: evidence_in(order(c, arm, depth), c["gold"], k) for uid, c in claims.items()}


def chosen_weight(train: dict[str, dict], depth: int) -> float:
    """The fusion weight that finds most claims' evidence among the first 5 on `train` (ties: the smaller)."""
    return max(WEIGHTS, key=lambda w: (sum(hits(train, f"fused {w}", 5, depth).values()), -w))


def paired(a: dict[str, bool], b: dict[str, bool]) -> str:
    return "{} / {} (p = {:.2g})".format(*every_set.paired(a, b))


def table(by_set: dict[str, dict[str, dict]], depth: int) -> list[str]:
    """Per set and pooled: claims with evidence among the first 1, 3, 5 for each arm, and each against hybrid at 5."""
    arms = {}
    for name in by_set:
        train = {f"{s}:{u}": c for s, claims in by_set.items() if s != name for u, c in claims.items()}
        arms[name] = ("hybrid", "model", f"fused {chosen_weight(train, depth)}")
    lines = ["| set (claims) | arm | evidence @1 | @3 | @5 | against hybrid @5: gained / lost (p) |",
             "|---|---|---|---|---|---|"]
    pooled: dict[str, dict[int, dict[str, bool]]] = {a: {k: {} for k in KS} for a in ("hybrid", "model", "fused")}
    for name, claims in by_set.items():
        base = hits(claims, "hybrid", 5, depth)
        for arm in arms[name]:
            found = {k: hits(claims, arm, k, depth) for k in KS}
            for k in KS:
                pooled[arm.split()[0]][k].update({f"{name}:{u}": v for u, v in found[k].items()})
            counts = " | ".join(str(sum(found[k].values())) for k in KS)
            versus = "" if arm == "hybrid" else paired(found[5], base)
            lines.append(f"| {name} ({len(claims)}) | {arm} | {counts} | {versus} |")
    size = len(pooled["hybrid"][5])
    for arm, found in pooled.items():
        counts = " | ".join(str(sum(found[k].values())) for k in KS)
        versus = "" if arm == "hybrid" else paired(found[5], pooled["hybrid"][5])
        label = "fused (weight chosen on the other sets)" if arm == "fused" else arm
        lines.append(f"| pooled ({size}) | {label} | {counts} | {versus} |")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=Path, required=True, help="a folder of SET/eval.jsonl from claimhop eval")
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--depth", type=int, default=10, help="the rerank_depth the rows were made with")
    parser.add_argument("--out", type=Path, help="write OUT/lm-rerank.md too")
    args = parser.parse_args(argv)
    by_set = {name: load(args.rows, name) for name in args.sets.split(",") if (args.rows / name / "eval.jsonl").exists()}
    if not by_set:
        raise SystemExit(f"no SET/eval.jsonl under {args.rows}")
    text = "\n".join(table(by_set, args.depth)) + "\n"
    show_table(text, args.out, "lm-rerank.md")


if __name__ == "__main__":
    main()
