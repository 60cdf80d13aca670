"""Two figures of the out-of-domain pages recomputed from the committed verdict rows, no model call (issue 71):

- `auc`: how well the head's kind (P(contradicted | not supported)) and the opposite's lead over the claim
  (P(supported) of the opposite minus the claim's) tell CONTRADICTED claims from the rest, ROC AUC over the claims
  whose opposite was read (docs/results/out-of-domain/opposite/SET/verdicts.jsonl, the `always` rows);
- `yes`: the best 3-class macro-F1 two thresholds on the model's yes-logit reach when fitted to the sample's own
  labels (SUPPORTED above the upper, CONTRADICTED below the lower, else INSUFFICIENT_INFO), over the claims whose
  rows record P(yes) (docs/results/out-of-domain/SET/verdicts.jsonl, the `before` rows): a bound, not a result.

    python -m benchmarks.lab.recorded_signals
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
from pathlib import Path

RESULTS = Path("docs/results/out-of-domain")
SETS = ("healthver", "climate-fever")
LABELS = ("SUPPORTED", "CONTRADICTED", "INSUFFICIENT_INFO")


def rows(path: Path, head: str) -> list[dict]:
    return [r for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
            for r in [json.loads(line)] if r["head"] == head]


def auc(positive: list[float], negative: list[float]) -> float:
    """ROC AUC: the chance a positive scores above a negative (ties count half)."""
    pairs = [(p > q) + 0.5 * (p == q) for p in positive for q in negative]
    return sum(pairs) / len(pairs)


def macro_f1(pairs: list[tuple[str, str]]) -> float:
    scores = []
    for label in LABELS:
        tp = sum(g == label == p for g, p in pairs)
        wrong = sum((g == label) != (p == label) for g, p in pairs)
        scores.append(2 * tp / (2 * tp + wrong) if tp else 0.0)
    return 100 * sum(scores) / len(scores)


def signal_aucs(items: list[dict]) -> tuple[int, float, float]:
    """(claims, AUC of the kind, AUC of the opposite's lead) for CONTRADICTED against the rest."""
    read = [r for r in items if "opposite" in r["probabilities"]]
    kind = {r["uid"]: r["probabilities"]["contradicted_if_not"] for r in read}
    lead = {r["uid"]: r["probabilities"]["opposite"] - r["probabilities"]["supported"] for r in read}
    pos = [r["uid"] for r in read if r["label"] == "CONTRADICTED"]
    neg = [r["uid"] for r in read if r["label"] != "CONTRADICTED"]
    return len(read), auc([kind[u] for u in pos], [kind[u] for u in neg]), auc([lead[u] for u in pos],
                                                                               [lead[u] for u in neg])


def yes_bound(items: list[dict]) -> tuple[int, float]:
    """(claims, best macro-F1) of two thresholds on the yes-logit, fitted on the same claims."""
    logits = [(r["label"], math.log(p) - math.log1p(-min(p, 1 - 1e-12)))
              for r in items for p in [r["probabilities"].get("yes")] if p is not None]
    cuts = sorted({y for _, y in logits})
    cuts = [c - 1e-9 for c in cuts] + [cuts[-1] + 1.0]
    best = 0.0
    for low, high in itertools.combinations_with_replacement(cuts, 2):
        said = ["SUPPORTED" if y >= high else "CONTRADICTED" if y < low else "INSUFFICIENT_INFO" for _, y in logits]
        best = max(best, macro_f1([(g, p) for (g, _), p in zip(logits, said)]))
    return len(logits), best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=Path, default=RESULTS)
    args = parser.parse_args()
    for name in SETS:
        n, kind, lead = signal_aucs(rows(args.results / "opposite" / name / "verdicts.jsonl",
                                         "bundled+opposite_check=always"))
        m, bound = yes_bound(rows(args.results / name / "verdicts.jsonl", "before"))
        print(f"{name}: CONTRADICTED against the rest on the {n} claims whose opposite was read: AUC of the kind "
              f"{kind:.2f}, of the opposite's lead {lead:.2f}; two yes-logit thresholds fitted to the {m} claims "
              f"recording P(yes): macro-F1 {bound:.1f}")


if __name__ == "__main__":
    main()
