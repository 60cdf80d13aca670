"""What one run's claimhop rows come to (seconds, model calls, tokens, recall, macro-F1): the figures the speed
benchmarks print and README's speed row shows, in the library so both compute them the same way."""

from __future__ import annotations

import statistics

from claimhop.evaluation.metric import label_of
from claimhop.evaluation.report import macro_f1


def percentile(values: list[float], q: float) -> float:
    """The value at fraction `q` (0..1) of the sorted values, the nearest rank (no interpolation between runs)."""
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def figures(rows: list[dict]) -> dict[str, float | None]:
    """A run's figures: median and p90 seconds a claim, model calls and tokens a claim, recall@21 (overall and on
    3-hop claims), claims with every gold title, and the verdict macro-F1 on HoVer's two labels."""
    if not rows:
        raise ValueError("no rows to summarise")
    seconds = [r["seconds"] for r in rows]
    steps = [r.get("steps", {}) for r in rows]

    def per_claim(field_name: str) -> float:
        return statistics.mean(sum(s.get(field_name, 0) for s in step.values()) for step in steps)

    three = [r for r in rows if r["num_hops"] == 3]
    verdicts = [(r["label"], label_of(r["verdict"])) for r in rows if r.get("verdict")]
    return {
        "claims": len(rows),
        "median_s": statistics.median(seconds), "p90_s": percentile(seconds, 0.9),
        "calls": per_claim("calls"), "prompt_tokens": per_claim("prompt_tokens"),
        "output_tokens": per_claim("output_tokens"), "cached_tokens": per_claim("cached_tokens"),
        "cache_hits": sum(r.get("cache_hits", 0) for r in rows),
        "recall": statistics.mean(r["recall@21"] for r in rows),
        "recall_3hop": statistics.mean(r["recall@21"] for r in three) if three else None,
        "found_all": sum(r["recall@21"] == 1 for r in rows),
        "macro_f1": macro_f1(verdicts) if verdicts else None,
    }
