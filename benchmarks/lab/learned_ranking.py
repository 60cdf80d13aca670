"""Would a learned ranking of selection's candidates travel across sets better than today's hand-set score (issue 70)?

Selection orders candidates by a hand-weighted score (fused retrieval score, the claim's and the looked-up names a
document mentions, a bonus for both, chains), with the claim's own first results kept and, for a claim that names
no document, the claim search's order. Those weights were set on HotpotQA. Here a pointwise logistic ranker learns
them instead, from the same inputs (benchmarks.lab.selection `record` files, one per set: the candidates, the names,
the claim's own hybrid ranking; recorded with the eval run's DSPy cache, so no model call), and each set is ranked
by a ranker trained on the other sets only (leave one set out: the question is whether the weights travel).
`--ranker boosted` fits gradient-boosted trees instead (depth 3), which can learn interactions the linear one
cannot (a looked-up name that is a title only counts for a claim that names documents, say).

Per set, claims with their gold among the first 5 and the 21: the claim's hybrid search alone, today's selection (as
recorded) and the learned ranking, with paired counts against hybrid. Wikipedia sets count every gold article,
the others any evidence document (by the passage titled as the document), as benchmarks.every_set counts.

    python -m benchmarks.lab.learned_ranking --records /work/ltr --out docs/results/every-set/learned-ranking
    python -m benchmarks.lab.learned_ranking --records /work/ltr --ranker boosted --out .../learned-ranking/boosted
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from claimhop.atomic import write_text
from claimhop.evaluation.metric import all_gold_in, evidence_in
from claimhop.evaluation.runner import json_objects

WIKIPEDIA = ("hover-dev", "hotpotqa-200")
CORPORA = {"healthver": "healthver", "climate-fever": "climate-fever", "check-covid": "check-covid"}
C_GRID = {"logistic": (0.01, 0.1, 1.0), "boosted": (0.1, 0.3)}  # C, or the boosted trees' learning rate
FEATURES = ("retrieval score", "claim rank 1/r", "claim top 5", "claim top 10", "claim top 21", "claim names",
            "claim name is title", "looked-up names", "looked-up name is title", "both", "found by gap loop",
            "found by links", "unnamed x claim rank 1/r", "unnamed x retrieval score")


def corpus_for(name: str, ood: Path):
    from claimhop.retrieval.factory import search_engine

    return search_engine(str(ood / CORPORA[name] / "documents") if name in CORPORA else None).corpus


def claim_features(row: dict, titles: list[str], texts: list[str]) -> tuple[list[str], np.ndarray]:
    """Every candidate selection could keep (the hops' and the claim's own first 21) and its features."""
    from claimhop.entities.matching import is_about, mentions, names_no_title
    from claimhop.entities.ner import unique
    from claimhop.retrieval.titles import normalize_title

    pool = {c["title"]: c for c in row["candidates"]}
    rank = {titles[i]: r for r, i in enumerate(row["claim_ranking"], start=1)}
    for i in row["claim_ranking"][:21]:
        pool.setdefault(titles[i], {"doc_id": i, "title": titles[i], "retrieval_score": 0.0, "found_by": ["claim"]})
    top = max((c["retrieval_score"] for c in pool.values()), default=1.0) or 1.0
    claim_names = unique(row["claim_entities"])
    looked_up = [e for e in unique(row["looked_up"]) if e.casefold() not in {c.casefold() for c in claim_names}]
    unnamed = float(names_no_title(list(pool), claim_names, row["claim"]))
    names, rows = [], []
    for title, cand in pool.items():
        text = normalize_title(f"{title} {texts[cand['doc_id']]}")
        r = rank.get(title)
        score = cand["retrieval_score"] / top
        claim_hits = [e for e in claim_names if is_about(e, title) or mentions(e, text)]
        looked_hits = [e for e in looked_up if is_about(e, title) or mentions(e, text)]
        steps = " ".join(cand["found_by"])
        recip = 1.0 / r if r else 0.0
        rows.append([score, recip, float(bool(r and r <= 5)), float(bool(r and r <= 10)), float(bool(r and r <= 21)),
                     len(claim_hits), float(any(is_about(e, title) for e in claim_names)), len(looked_hits),
                     float(any(is_about(e, title) for e in looked_up)), float(bool(claim_hits and looked_hits)),
                     float("gap_loop" in steps), float("links" in steps), unnamed * recip, unnamed * score])
        names.append(title)
    return names, np.array(rows, dtype=np.float64)


def load_set(name: str, records: Path, ood: Path) -> list[dict]:
    corpus = corpus_for(name, ood)
    titles, texts = corpus.titles, corpus.texts
    claims = []
    for row in json_objects(records / f"{name}.jsonl"):
        if "uid" not in row or not row.get("gold"):
            continue
        candidates, x = claim_features(row, titles, texts)
        gold = set(row["gold"])
        claims.append({"set": name, "uid": row["uid"], "gold": row["gold"], "candidates": candidates, "x": x,
                       "y": np.array([t in gold for t in candidates], dtype=int),
                       "hybrid": [titles[i] for i in row["claim_ranking"]], "selected": row["selected"]})
    return claims


def found(name: str, ranking: list[str], gold: list[str], k: int) -> bool:
    return all_gold_in(ranking, gold, k) if name in WIKIPEDIA else evidence_in(ranking, gold, k, "passage")


def fit(claims: list[dict], c: float, ranker: str = "logistic"):
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    x = np.vstack([cl["x"] for cl in claims])
    y = np.concatenate([cl["y"] for cl in claims])
    if ranker == "boosted":
        return HistGradientBoostingClassifier(max_depth=3, learning_rate=c, max_iter=200, class_weight="balanced",
                                              random_state=0).fit(x, y)
    return make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=2000, class_weight="balanced")).fit(x, y)


def ranked(model, claim: dict) -> list[str]:
    scores = model.predict_proba(claim["x"])[:, 1]
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], claim["candidates"][i]))
    return [claim["candidates"][i] for i in order]


def hits_at(claims: list[dict], model, k: int) -> int:
    return sum(found(cl["set"], ranked(model, cl), cl["gold"], k) for cl in claims)


def chosen_c(claims: list[dict], ranker: str = "logistic") -> float:
    """C (or the learning rate) by leave-one-set-out inside the training sets (nested: the held-out set has no
    say): the most claims found at 5 and 21 together."""
    sets = sorted({cl["set"] for cl in claims})
    score = {}
    for c in C_GRID[ranker]:
        total = 0
        for inner in sets:
            model = fit([cl for cl in claims if cl["set"] != inner], c, ranker)
            held = [cl for cl in claims if cl["set"] == inner]
            total += hits_at(held, model, 5) + hits_at(held, model, 21)
        score[c] = total
    return max(C_GRID[ranker], key=lambda c: (score[c], -c))


def weights_of(model) -> dict[str, float]:
    """The linear ranker's weights (on standardised features); trees have none to show."""
    if hasattr(model, "named_steps"):
        return dict(zip(FEATURES, np.round(model[-1].coef_[0], 2).tolist()))
    return {}


def leave_one_set_out(claims: list[dict], ranker: str = "logistic") -> dict[str, dict]:
    out = {}
    for held in sorted({cl["set"] for cl in claims}, key=lambda s: (s not in WIKIPEDIA, s)):
        train = [cl for cl in claims if cl["set"] != held]
        c = chosen_c(train, ranker)
        model = fit(train, c, ranker)
        rows = {}
        for cl in (cl for cl in claims if cl["set"] == held):
            learned = ranked(model, cl)[:21]
            rows[cl["uid"]] = {f"{system}@{k}": found(held, ranking, cl["gold"], k)
                               for system, ranking in (("hybrid", cl["hybrid"]), ("current", cl["selected"]),
                                                       ("learned", learned)) for k in (5, 21)}
        out[held] = {"c": c, "claims": rows, "weights": weights_of(model)}
        print(held, c, {key: sum(r[key] for r in rows.values()) for key in next(iter(rows.values()))}, flush=True)
    return out


def paired(rows: dict[str, dict], a: str, b: str) -> str:
    """Claims only arm `a` finds / only `b` finds, exact McNemar (benchmarks.every_set.paired)."""
    from benchmarks.every_set import paired as count

    return "{} / {} (p = {:.2g})".format(*count({u: r[a] for u, r in rows.items()}, {u: r[b] for u, r in rows.items()}))


def cells(rows: dict[str, dict]) -> list[str]:
    """Claims found at 5 / 21 by hybrid, today's selection and the learned ranking, then the learned one paired with
    hybrid and with today's at 5 and at 21."""
    found = [f"{sum(r[f'{s}@5'] for r in rows.values())} / {sum(r[f'{s}@21'] for r in rows.values())}"
             for s in ("hybrid", "current", "learned")]
    return found + [paired(rows, f"learned@{k}", f"{other}@{k}") for other in ("hybrid", "current") for k in (5, 21)]


def markdown(results: dict[str, dict], ranker: str = "logistic") -> str:
    lines = [f"# A learned ranking ({ranker}) of selection's candidates, each set ranked by a ranker that never saw it",
             "", f"`python -m benchmarks.lab.learned_ranking --ranker {ranker}` (no model call). Cells: claims with "
             "their gold among the first 5 / 21; the pairs: claims only the learned ranking finds / only the other "
             "finds (exact McNemar).", "", "| held-out set (claims) | hybrid | today's selection | learned | learned vs "
             "hybrid @5 | @21 | learned vs today @5 | @21 | "
             f"{'C' if ranker == 'logistic' else 'learning rate'} |", "|---|---|---|---|---|---|---|---|---|"]
    pooled: dict[str, dict] = {}
    for held, result in results.items():
        lines.append(f"| {held} ({len(result['claims'])}) | " + " | ".join(cells(result["claims"])) + f" | {result['c']} |")
        if held not in WIKIPEDIA:
            pooled.update({f"{held}:{u}": r for u, r in result["claims"].items()})
    if pooled:
        lines.append(f"| out-of-domain pooled ({len(pooled)}) | " + " | ".join(cells(pooled)) + " | |")
    if ranker == "logistic":
        lines += ["", "Weights of each held-out set's ranker (standardised features):", "",
                  "| feature | " + " | ".join(results) + " |", "|---|" + "---|" * len(results)]
        for feature in FEATURES:
            lines.append(f"| {feature} | " + " | ".join(str(r["weights"][feature]) for r in results.values()) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=Path, required=True, help="a folder of SET.jsonl made by "
                        "`benchmarks.lab.selection record`")
    parser.add_argument("--ood", type=Path, default=Path("/work/ood"), help="the out-of-domain sets' folders")
    parser.add_argument("--sets", default="hover-dev,hotpotqa-200,healthver,climate-fever,check-covid")
    parser.add_argument("--ranker", choices=sorted(C_GRID), default="logistic")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    sets = [s for s in args.sets.split(",") if s]
    missing = [s for s in sets if not (args.records / f"{s}.jsonl").is_file()]
    if missing:
        parser.error(f"no records for {', '.join(missing)} in {args.records} (benchmarks.lab.selection record)")
    claims = [cl for name in sets for cl in load_set(name, args.records, args.ood)]
    results = leave_one_set_out(claims, args.ranker)
    args.out.mkdir(parents=True, exist_ok=True)
    write_text(args.out / "learned-ranking.json", json.dumps(results, indent=1) + "\n")
    write_text(args.out / "learned-ranking.md", markdown(results, args.ranker))
    print(markdown(results, args.ranker))


if __name__ == "__main__":
    main()
