"""Verifiers compared on each calibration fold of an eval-verify run, with no model call.

The QA verifier's thresholds were fitted on a sample of fold 0's claims (`claimhop calibrate` folds by a hash
of the uid), so fold 1's claims were never looked at while it was built: its figures there, at the recorded
settings, are out of sample. Prints, per fold and verifier@documents: claims, verdicts right, macro-F1, the
median seconds and model calls per claim, and the exact McNemar comparison with `--against` on the same claims.

    python -m benchmarks.lab.verifier_folds docs/results/verify-qa/dev-169.jsonl --against facts@retrieved
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from claimhop.evaluation.calibration import fold_of
from claimhop.evaluation.report import macro_f1, paired_comparison
from claimhop.evaluation.runner import rows_in


def fold_table(rows: list[dict], folds: int = 2) -> list[str]:
    lines = ["| fold | verifier@documents | claims | right | macro-F1 | median s/claim | median model calls/claim |",
             "|---|---|---|---|---|---|---|"]
    for fold in ["all", *range(folds)]:
        chosen = [r for r in rows if fold == "all" or fold_of(r["uid"], folds) == fold]
        for system in dict.fromkeys(r["system"] for r in chosen):
            group = [r for r in chosen if r["system"] == system]
            pairs = [(r["label"], r["predicted"]) for r in group]
            lines.append(f"| {fold} | {system} | {len(group)} | {sum(g == p for g, p in pairs)} | "
                         f"{100 * (macro_f1(pairs) or 0):.1f} | {statistics.median(r['seconds'] for r in group):.1f} | "
                         f"{statistics.median(r.get('lm_calls', 0) for r in group):.0f} |")
    return lines


def fold_comparisons(rows: list[dict], against: str, folds: int = 2) -> list[str]:
    lines = []
    for fold in ["all", *range(folds)]:
        correct: dict[str, dict[str, bool]] = {}
        for r in rows:
            if fold == "all" or fold_of(r["uid"], folds) == fold:
                correct.setdefault(r["system"], {})[r["uid"]] = r["predicted"] == r["label"]
        lines += [f"fold {fold}: {line}" for line in paired_comparison(correct, against, "verdict right")]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", type=Path, help="an eval-verify rows file")
    parser.add_argument("--against", default="facts@retrieved", help="the verifier@documents to compare with")
    args = parser.parse_args()
    everything = rows_in(args.rows)
    newest = {r["system"]: r["fingerprint"] for r in everything}  # one run per verifier: its latest settings
    rows = list({(r["system"], r["uid"]): r for r in everything if r["fingerprint"] == newest[r["system"]]}.values())
    print("\n".join(fold_table(rows)))
    print("\n".join(fold_comparisons(rows, args.against)))


if __name__ == "__main__":
    main()
