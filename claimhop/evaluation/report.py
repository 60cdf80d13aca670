"""Summaries people read: a table per system and hop count with 95% intervals, ratios to BM25, and a plot."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping
from pathlib import Path

from claimhop.evaluation.figures import pyplot, save_png
from claimhop.evaluation.metric import KS, label_of


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a proportion (sound for small n and for 0 or 1)."""
    if n == 0:
        return (0.0, 0.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p: of the claims exactly one system gets right, could the split be a fair coin's?"""
    n = only_a + only_b
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(only_a, only_b) + 1)) / 2**n
    return min(1.0, 2 * tail)


def paired_counts(a: Mapping[str, bool], b: Mapping[str, bool]) -> tuple[int, int, float]:
    """On the claims both have (by uid): how many only `a` gets right, how many only `b`, and the exact McNemar p,
    because two rates with overlapping intervals can still differ reliably on the same claims (and vice versa)."""
    shared = [uid for uid in a if uid in b]
    only_a = sum(a[uid] and not b[uid] for uid in shared)
    only_b = sum(b[uid] and not a[uid] for uid in shared)
    return only_a, only_b, mcnemar_exact(only_a, only_b)


def paired(a: Mapping[str, dict], b: Mapping[str, dict], right: Callable[[dict], bool]) -> tuple[int, int, float]:
    """`paired_counts` of two runs' rows (by uid), a row judged right by `right` (`all_gold`, `verdict_right`)."""
    shared = [uid for uid in a if uid in b]
    return paired_counts({uid: right(a[uid]) for uid in shared}, {uid: right(b[uid]) for uid in shared})


def all_gold(row: dict) -> bool:
    """The benchmark's hit: every gold title among the 21 retrieved."""
    return row["recall@21"] == 1


def verdict_right(row: dict) -> bool:
    """The verdict on HoVer's two labels equals the gold label; a row without a verdict counts as NOT_SUPPORTED."""
    return (label_of(row.get("verdict")) or "NOT_SUPPORTED") == row["label"]


def paired_comparison(correct: dict[str, dict[str, bool]], reference: str, what: str = "right") -> list[str]:
    """One line per other system: on the claims both finished, `paired_counts` against the reference."""
    if reference not in correct:
        return []
    lines = []
    for system, theirs in correct.items():
        shared = [uid for uid in correct[reference] if uid in theirs]
        if system == reference or not shared:
            continue
        ours_only, theirs_only, p = paired_counts(correct[reference], theirs)
        lines.append(f"{reference} vs {system} on the same {len(shared)} claims: {what} only for {reference} "
                     f"{ours_only}, only for {system} {theirs_only} (exact McNemar p = {p:.3g})")
    return lines


def recall_comparison(rows: list[dict]) -> list[str]:
    """claimhop against each other system, claim by claim (all gold titles in the 21 or not)."""
    correct: dict[str, dict[str, bool]] = defaultdict(dict)
    for row in rows:
        correct[row["system"]][row["uid"]] = row["recall@21"] == 1
    return paired_comparison(correct, "claimhop", "all gold titles found")


def run_comparison(rows: list[dict], earlier: list[dict], earlier_name: str) -> list[str]:
    """Each system of this run against the same system in an earlier run, claim by claim: whether a change (a
    setting, an optimised program, new code) found all gold titles for more claims, or only moved them around."""
    def by_claim(which: list[dict], system: str, right) -> dict[str, bool]:
        return {r["uid"]: right(r) for r in which if r["system"] == system and right(r) is not None}

    def verdict_right(row: dict) -> bool | None:
        return label_of(row["verdict"]) == row["label"] if row.get("verdict") and row.get("label") else None

    lines = []
    for system in dict.fromkeys(row["system"] for row in rows):
        for what, right in (("all gold titles found", lambda r: r["recall@21"] == 1), ("verdict right", verdict_right)):
            correct = {"this run": by_claim(rows, system, right), earlier_name: by_claim(earlier, system, right)}
            lines += [f"{system}: {line}" for line in paired_comparison(correct, "this run", what)]
    return lines


def _mean(values: list[float]) -> float | None:
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def macro_f1(pairs: list[tuple[str, str]]) -> float | None:
    if not pairs:
        return None
    scores = []
    for label in ("SUPPORTED", "NOT_SUPPORTED"):
        tp = sum(1 for g, p in pairs if g == label and p == label)
        fp = sum(1 for g, p in pairs if g != label and p == label)
        fn = sum(1 for g, p in pairs if g == label and p != label)
        scores.append(2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0)
    return sum(scores) / len(scores)


def summarize(rows: list[dict]) -> dict[str, dict]:
    """Per system: overall and per-hop recall@21 with n and CI, recall@k, partial credit, cost, verdicts."""
    by_system: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_system[row["system"]].append(row)
    summary = {}
    for system, items in by_system.items():
        groups = {"all": items}
        for row in items:
            groups.setdefault(f"{row['num_hops']}-hop", []).append(row)
        stats = {}
        for name, group in groups.items():
            hits = sum(r["recall@21"] for r in group)
            stats[name] = {"n": len(group), "recall@21": hits / len(group), "ci95": wilson(hits, len(group))}
        verdicts = [(r["label"], label_of(r.get("verdict"))) for r in items if r.get("verdict") and r.get("label")]
        summary[system] = {
            "groups": stats,
            **{f"recall@{k}": _mean([r.get(f"recall@{k}") for r in items]) for k in KS},
            "gold_fraction@21": _mean([r["gold_fraction@21"] for r in items]),
            "lm_calls": _mean([r.get("lm_calls", 0) for r in items]),
            "tokens": _mean([r.get("tokens", 0) for r in items]),
            "seconds": _mean([r.get("seconds", 0.0) for r in items]),
            "accuracy": _mean([float(g == p) for g, p in verdicts]) if verdicts else None,
            "macro_f1": macro_f1(verdicts),
        }
    return summary


def _fmt(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def render_table(summary: dict[str, dict]) -> str:
    """A Markdown table: recall@21 overall and per hop (n, 95% CI), other recalls, ratio to bm25, cost."""
    hop_names = sorted({g for s in summary.values() for g in s["groups"] if g != "all"})
    base = summary.get("bm25", {}).get("groups", {}).get("all", {}).get("recall@21")
    head = ["system", "recall@21 all (n, 95% CI)", *[f"{h} (n)" for h in hop_names], "R@5", "R@10", "R@50",
            "gold frac@21", "vs bm25", "LM calls", "tokens", "s/claim", "verdict acc", "macro-F1"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for system, s in summary.items():
        overall = s["groups"]["all"]
        cells = [system, f"{overall['recall@21']:.3f} ({overall['n']}, {overall['ci95'][0]:.2f}-{overall['ci95'][1]:.2f})"]
        for hop in hop_names:
            g = s["groups"].get(hop)
            cells.append(f"{g['recall@21']:.3f} ({g['n']})" if g else "-")
        ratio = overall["recall@21"] / base if base else None
        cells += [_fmt(s["recall@5"]), _fmt(s["recall@10"]), _fmt(s["recall@50"]), _fmt(s["gold_fraction@21"]),
                  _fmt(ratio, 2) + ("x" if ratio else ""), _fmt(s["lm_calls"], 1), _fmt(s["tokens"], 0),
                  _fmt(s["seconds"], 1), _fmt(s["accuracy"]), _fmt(s["macro_f1"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(summary: dict[str, dict], path: Path) -> Path:
    """Grouped bars: recall@21 per hop count (and overall) per system, with 95% intervals."""
    plt = pyplot()

    groups = ["all", *sorted({g for s in summary.values() for g in s["groups"] if g != "all"})]
    systems = list(summary)
    width = 0.8 / max(1, len(systems))
    fig, ax = plt.subplots(figsize=(1.6 + 1.5 * len(groups), 4))
    for i, system in enumerate(systems):
        xs, ys, low, high = [], [], [], []
        for j, group in enumerate(groups):
            g = summary[system]["groups"].get(group)
            if g:
                xs.append(j + i * width)
                ys.append(g["recall@21"])
                low.append(max(0.0, g["recall@21"] - g["ci95"][0]))  # rounding can put a bound a hair inside
                high.append(max(0.0, g["ci95"][1] - g["recall@21"]))
        ax.bar(xs, ys, width, yerr=[low, high], capsize=3, label=system)
    ax.set_xticks([j + width * (len(systems) - 1) / 2 for j in range(len(groups))])
    ax.set_xticklabels([f"{g}\n(n={summary[systems[0]]['groups'].get(g, {}).get('n', 0)})" for g in groups])
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("recall@21 (all gold titles in top 21)")
    ax.set_title("HoVer dev claims: recall@21 by hop count (95% CI)")
    ax.legend(loc="lower left", fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    save_png(fig, path, dpi=120)
    return path
