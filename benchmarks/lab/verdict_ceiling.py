"""How high the recorded verdict signals could take the 3-class macro-F1 on an out-of-domain sample (issue 55): an
upper bound for every head, not a result.

For each set and head of the committed verdict rows (benchmarks.out_of_domain writes them: P(supported), the kind
head's P(contradicted | not supported), and P(supported) of the claim's opposite where it was read), two figures
that use the sample's own labels, which no user has:

- `rule fitted on the sample`: the verify stage's own rule (SUPPORTED at P(supported) >= s; else, where the
  opposite was read, CONTRADICTED when its lead over the claim is >= d, and elsewhere when the kind is >= k) with
  s, k and d chosen on a grid for the best macro-F1 on the very claims it is scored on;
- `head fitted on the sample, each claim left out`: a logistic regression on the same signals, trained on the
  sample's other claims (leave-one-out): what a head could learn from labelled claims of the collection.

If neither reaches a target, no threshold or head on these signals does: the reader has to change.

    python -m benchmarks.lab.verdict_ceiling --out docs/results/out-of-domain/ceiling   # ~30 s, no model
"""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path

import numpy as np

from benchmarks.out_of_domain import HEADS, LABELS, macro_f1, verdicts_in
from claimhop.atomic import atomic_path, write_text

ROWS = Path("docs/results/out-of-domain")
SETS = ("healthver", "climate-fever")
GRID = np.round(np.arange(0.0, 1.001, 0.025), 3)  # support and kind thresholds tried
LEADS = np.round(np.arange(-0.5, 0.501, 0.05), 2)  # the opposite's lead over the claim that calls CONTRADICTED
EPS = 1e-4


def signals(rows: list[dict]) -> dict[str, np.ndarray]:
    """The recorded signals of each claim: P(supported), the kind, the opposite's P (NaN where it was not read), and
    whether anything was read at all (a claim with no passages is INSUFFICIENT_INFO whatever the rule)."""
    probs = [row.get("probabilities") or {} for row in rows]
    return {"support": np.array([p.get("supported", np.nan) for p in probs], dtype=float),
            "kind": np.array([p.get("contradicted_if_not", np.nan) for p in probs], dtype=float),
            "opposite": np.array([p.get("opposite", np.nan) for p in probs], dtype=float),
            "read": np.array(["supported" in p for p in probs])}


def stage_rule(sig: dict[str, np.ndarray], support: float, kind: float, lead: float) -> list[str]:
    """The verify stage's decision (claimhop/program/verify/stage.py) at these three cut-offs."""
    said = []
    for p, k, o, read in zip(sig["support"], sig["kind"], sig["opposite"], sig["read"]):
        if not read:
            said.append("INSUFFICIENT_INFO")
        elif p >= support:
            said.append("SUPPORTED")
        elif not np.isnan(o):
            said.append("CONTRADICTED" if o - p >= lead else "INSUFFICIENT_INFO")
        else:
            said.append("CONTRADICTED" if k >= kind else "INSUFFICIENT_INFO")
    return said


def fitted_rule(gold: list[str], sig: dict[str, np.ndarray]) -> tuple[float, tuple[float, float, float]]:
    """The best macro-F1 the stage's rule reaches on these claims, and its cut-offs (fitted on the claims scored)."""
    best = (-1.0, (0.5, 0.5, 0.0))
    for support, kind, lead in itertools.product(GRID, GRID, LEADS):
        score = macro_f1(list(zip(gold, stage_rule(sig, support, kind, lead))), LABELS)
        if score > best[0]:
            best = (score, (float(support) + 0.0, float(kind) + 0.0, float(lead) + 0.0))  # + 0.0: no "-0"
    return best


def features(sig: dict[str, np.ndarray]) -> np.ndarray:
    """The signals as a head's inputs: both logits, the opposite's lead (0 where not read) and whether it was."""
    def logit(p: np.ndarray) -> np.ndarray:
        p = np.clip(np.nan_to_num(p, nan=0.5), EPS, 1 - EPS)
        return np.log(p / (1 - p))

    has_opposite = ~np.isnan(sig["opposite"])
    lead = np.where(has_opposite, np.nan_to_num(sig["opposite"]) - np.nan_to_num(sig["support"]), 0.0)
    return np.column_stack([logit(sig["support"]), logit(sig["kind"]), lead, has_opposite.astype(float)])


def left_out_head(gold: list[str], sig: dict[str, np.ndarray]) -> float:
    """Macro-F1 of a logistic regression on the signals, each claim judged by a fit on all the others."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    x, y, read = features(sig), np.array(gold), sig["read"]
    said = np.array(["INSUFFICIENT_INFO"] * len(gold), dtype=object)
    for i in np.flatnonzero(read):
        train = read & (np.arange(len(gold)) != i)
        if len(set(y[train])) < 2:
            continue
        model = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=1000))
        model.fit(x[train], y[train])
        said[i] = model.predict(x[i:i + 1])[0]
    return macro_f1(list(zip(gold, said)), LABELS)


def ceiling_lines(name: str, verdicts: list[dict]) -> list[dict]:
    """One line a head of the set: its recorded macro-F1 and the two upper bounds."""
    lines = []
    for head in [h for h in HEADS if any(row["head"] == h for row in verdicts)]:
        rows = [row for row in verdicts if row["head"] == head]
        gold = [row["label"] for row in rows]
        sig = signals(rows)
        fitted, cuts = fitted_rule(gold, sig)
        lines.append({"set": name, "head": head, "claims": len(rows), "opposite_read": int((~np.isnan(sig["opposite"])).sum()),
                      "nothing_read": int((~sig["read"]).sum()),
                      "recorded": round(macro_f1([(row["label"], row["verdict"]) for row in rows], LABELS), 1),
                      "rule_fitted_on_sample": round(fitted, 1), "cut_offs": dict(zip(("support", "kind", "lead"), cuts)),
                      "head_fitted_left_out": round(left_out_head(gold, sig), 1)})
    return lines


def plot(lines: list[dict], target: float, path: Path) -> None:
    """Bars a set and head: recorded, the rule fitted on the sample, the left-out head; the issue's target."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 3.6))
    x = np.arange(len(lines))
    for i, (key, label) in enumerate((("recorded", "recorded verdicts"),
                                      ("rule_fitted_on_sample", "the stage's rule fitted on the sample (bound)"),
                                      ("head_fitted_left_out", "a head fitted on the sample, leave-one-out"))):
        ax.bar(x + (i - 1) * 0.27, [line[key] for line in lines], 0.27, label=label)
    ax.axhline(target, color="black", linestyle="--", linewidth=1, label=f"target {target:g}")
    ax.axhline(100 / 3, color="grey", linestyle=":", linewidth=1, label="chance")
    ax.set_xticks(x)
    ax.set_xticklabels([f"{line['set']}\n{line['head']}" for line in lines], fontsize=8)
    ax.set_ylabel("3-class macro-F1")
    ax.set_ylim(0, 100)
    ax.set_title("How far the recorded signals could go (45-claim samples)")
    ax.legend(fontsize=7, loc="upper left", ncol=2)
    fig.tight_layout()
    with atomic_path(path, suffix=".png") as tmp:
        fig.savefig(tmp, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=Path, default=ROWS, help="folder with SET/verdicts.jsonl (benchmarks.out_of_domain)")
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--target", type=float, default=60.0, help="the macro-F1 drawn as the target (issue 55: 60)")
    parser.add_argument("--out", type=Path, help="write ceiling.md, ceiling.json and ceiling.png here")
    args = parser.parse_args()
    lines = []
    for name in [s for s in args.sets.split(",") if s]:
        path = args.rows / name / "verdicts.jsonl"
        if not path.exists():
            parser.error(f"no verdict rows for {name!r}: {path} (benchmarks.out_of_domain writes them)")
        lines += ceiling_lines(name, verdicts_in(path))
    table = [("| set | head | claims (opposite read / nothing read) | 3-class macro-F1 recorded | the stage's rule "
              "fitted on the sample (s / k / d) | a head fitted on the sample's other claims (leave-one-out) |"),
             "|---|---|---|---|---|---|"]
    table += [f"| {x['set']} | {x['head']} | {x['claims']} ({x['opposite_read']} / {x['nothing_read']}) | {x['recorded']} "
              f"| {x['rule_fitted_on_sample']} ({x['cut_offs']['support']:g} / {x['cut_offs']['kind']:g} / "
              f"{x['cut_offs']['lead']:g}) | {x['head_fitted_left_out']} |" for x in lines]
    print("\n".join(table))
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        write_text(args.out / "ceiling.md", "\n".join(table) + "\n")
        write_text(args.out / "ceiling.json", json.dumps(lines, indent=2) + "\n")
        plot(lines, args.target, args.out / "ceiling.png")


if __name__ == "__main__":
    main()
