"""Would pseudo-relevance feedback make the claim's own search better than plain hybrid on every genre (issue 70)?

Another kind of technique than re-ordering the same candidates (rules, a learned ranking) or asking the model
(benchmarks.lab.lm_rerank): change the claim search itself, as classic retrieval does, with what its own first
documents say. No model call. Two arms, each a variant of the hybrid search claimhop and the baseline share:
- `terms`: RM3-style query expansion (claimhop.retrieval.feedback). The t words that weigh most in the first m
  documents (term frequency share times the collection's inverse document frequency, BM25's stemmer and stop words)
  are appended to the claim, and the expanded query's hybrid ranking is fused with the claim's own (reciprocal
  rank, equal weights).
- `plain 5, then terms`: the plain search's first 5 in place, then `terms`' order of the rest (the first few,
  which the verifier reads, are what one search gives; the feedback only reaches deeper);
- `rocchio`: the dense side's query vector moved towards the mean of the first m documents' vectors (q + b * mean,
  unit length), BM25 on the claim as it is, fused as hybrid fuses.
Parameters (m, t or b) are chosen for each set on the other four (leave one set out, by claims found at 5 plus at
21): the question is whether a setting travels. Claims with their gold among the first 5 and 21: every gold
article on HoVer dev and HotpotQA, any evidence document (by the passage titled as the document) on the samples.

    python -m benchmarks.lab.feedback_search --root /work/ood --out docs/results/every-set/feedback-search
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from benchmarks.lab import show_table
from claimhop.evaluation.data import load_claims
from claimhop.evaluation.metric import all_gold_in, evidence_in
from claimhop.evaluation.report import mcnemar_exact
from claimhop.retrieval.feedback import KEEP, with_feedback
from claimhop.retrieval.fusion import DEFAULT_FUSION
from claimhop.retrieval.service import Hit, fuse

DEPTH = 50
WIKIPEDIA = {"hover-dev": "claimhop/data/claims_dev.jsonl", "hotpotqa-200": "benchmarks/samples/hotpotqa-200-seed0.jsonl"}
SAMPLES = ("healthver", "climate-fever", "check-covid")
GRID = {"terms": [(m, t) for m in (3, 5) for t in (5, 10, 20)], "rocchio": [(m, b) for m in (3, 5) for b in (0.3, 1.0)]}
GRID["plain 5, then terms"] = GRID["terms"]  # the product's `claim_feedback`: the plain search's first 5 stay
ARMS = tuple(GRID)


class Feedback:
    """One corpus's search (as a run sees it, through TunedSearch) and its documents' vectors, read once."""

    def __init__(self, corpus: str | None):
        from claimhop.retrieval.encoders import encoder_for
        from claimhop.retrieval.factory import search_engine
        from claimhop.retrieval.tuned_search import TunedSearch

        self.index = search_engine(corpus)
        self.engine = TunedSearch(self.index)
        dense = self.index.indexes.dense
        self.vectors = dense.index.reconstruct_n(0, dense.index.ntotal)
        self.encode = encoder_for(dense.encoder)

    def plain(self, claim: str) -> list[Hit]:
        return self.engine.search_fused(claim, DEPTH)

    def terms(self, claim: str, first: list[Hit], m: int, t: int, keep: int) -> list[int]:
        """The product's feedback (claimhop.retrieval.feedback), with m feedback documents and t words."""
        return [h.doc_id for h in with_feedback(self.engine, claim, first, t, first_k=m, keep=keep)]

    def rocchio(self, claim: str, first: list[Hit], m: int, b: float) -> list[int]:
        q = self.encode([claim])[0] + b * self.vectors[[h.doc_id for h in first[:m]]].mean(axis=0)
        q = q / np.linalg.norm(q)
        scores = self.vectors @ q
        dense = [[(int(i), float(scores[i])) for i in np.argsort(-scores)[: DEFAULT_FUSION.depth]]]
        lexical = self.index.lexical([claim], DEFAULT_FUSION.depth)
        return [i for i, _ in fuse(lexical, dense, DEPTH, DEFAULT_FUSION)[0]][:DEPTH]


def measure(name: str, claims_file: str, corpus: str | None) -> list[dict]:
    """Per claim: whether gold is among the first 5 and 21, plain and for every arm's every setting."""
    fb = Feedback(corpus)
    titles = fb.index.corpus.titles
    every_gold = corpus is None
    rows = []
    for claim in load_claims(claims_file):
        gold = claim.get("supporting_titles") or []
        if not gold:
            continue

        def found(ids: list[int], k: int, gold: list[str] = gold) -> bool:
            ranked = [titles[i] for i in ids]
            return all_gold_in(ranked, gold, k) if every_gold else evidence_in(ranked, gold, k)

        first = fb.plain(claim["claim"])
        plain = [h.doc_id for h in first]
        row = {"set": name, "uid": claim["uid"], "hybrid": (found(plain, 5), found(plain, 21))}
        for m, t in GRID["terms"]:
            ids = fb.terms(claim["claim"], first, m, t, keep=0)
            row[("terms", m, t)] = (found(ids, 5), found(ids, 21))
            ids = fb.terms(claim["claim"], first, m, t, keep=KEEP)
            row[("plain 5, then terms", m, t)] = (found(ids, 5), found(ids, 21))
        for m, b in GRID["rocchio"]:
            ids = fb.rocchio(claim["claim"], first, m, b)
            row[("rocchio", m, b)] = (found(ids, 5), found(ids, 21))
        rows.append(row)
    return rows


def chosen(rows: list[dict], arm: str) -> tuple:
    return max(((arm, *p) for p in GRID[arm]), key=lambda key: sum(r[key][0] + r[key][1] for r in rows))


def versus(got: list[tuple], base: list[tuple]) -> list[str]:
    """Claims gained / lost against hybrid at 5 and at 21, with exact McNemar p."""
    cells = []
    for k in (0, 1):
        gained = sum(g[k] and not h[k] for g, h in zip(got, base))
        lost = sum(h[k] and not g[k] for g, h in zip(got, base))
        cells.append(f"{gained} / {lost} (p = {mcnemar_exact(gained, lost):.2g})")
    return cells


def table(rows: list[dict]) -> list[str]:
    sets = list(dict.fromkeys(r["set"] for r in rows))
    lines = ["| held-out set (claims) | hybrid @5 / @21 | " + " | ".join(f"{arm} (setting) @5 / @21 | gained / lost @5 | @21"
                                                            for arm in ARMS) + " |", "|---" * (2 + 3 * len(ARMS)) + "|"]
    pooled: dict[str, list] = {"hybrid": [], **{arm: [] for arm in ARMS}}
    for name in sets:
        mine = [r for r in rows if r["set"] == name]
        others = [r for r in rows if r["set"] != name]
        cells = [f"{sum(r['hybrid'][0] for r in mine)} / {sum(r['hybrid'][1] for r in mine)}"]
        pooled["hybrid"] += [r["hybrid"] for r in mine] if name in SAMPLES else []
        for arm in ARMS:
            key = chosen(others, arm)
            got = [r[key] for r in mine]
            pooled[arm] += got if name in SAMPLES else []
            cells.append(f"{sum(g[0] for g in got)} / {sum(g[1] for g in got)} ({', '.join(map(str, key[1:]))})")
            cells += versus(got, [r["hybrid"] for r in mine])
        lines.append(f"| {name} ({len(mine)}) | " + " | ".join(cells) + " |")
    cells = [f"{sum(h[0] for h in pooled['hybrid'])} / {sum(h[1] for h in pooled['hybrid'])}"]
    for arm in ARMS:
        got = pooled[arm]
        cells.append(f"{sum(g[0] for g in got)} / {sum(g[1] for g in got)}")
        cells += versus(got, pooled["hybrid"])
    lines.append(f"| samples pooled ({len(pooled['hybrid'])}) | " + " | ".join(cells) + " |")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=Path("/work/ood"), help="folders made by benchmarks.claim_sets")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    rows = []
    for name, claims in WIKIPEDIA.items():
        rows += measure(name, claims, None)
    for name in SAMPLES:
        rows += measure(name, str(next((args.root / name).glob("sample-*.jsonl"))), str(args.root / name / "documents"))
    text = "\n".join(table(rows)) + "\n"
    show_table(text, args.out, "feedback-search.md")


if __name__ == "__main__":
    main()
