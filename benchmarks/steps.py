"""What each model step costs and what it is worth: one table from one command.

    python -m benchmarks.steps                     # the committed 40-claim dev sample, the previous defaults
    python -m benchmarks.steps --recall-only       # retrieval steps only: no verdicts are paid for

Cost comes from the baseline run (the previous defaults, every model step on, a fresh DSPy cache): each step's
calls, prompt and output tokens and model seconds per claim. Worth comes from re-running the same claims with
one step replaced by its deterministic fallback (`model_steps_off`; for the fact judgements, one judgement per
fact instead of three): recall@21 (overall, 3-hop) and verdict macro-F1, with the paired count of claims
that lose or gain every gold title. The baseline is the speed benchmark's "previous" run when its rows are in the same folder. The ablation runs
reuse the baseline's cache, so the model calls before the
ablated step (same prompts) are replayed and only what changes is paid for; their times are not reported.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks.runs import (
    PREVIOUS,
    Config,
    all_gold,
    cache_for,
    claimhop_rows,
    figures,
    paired,
    run_config,
    sample_file,
    verdict_right,
)

VERIFY_STEPS = {"claim split", "fact judgements"}
# (row label, cost steps in the rows' `steps`, the ablation's extra settings)
STEPS = [
    ("decompose", ["decompose"], {"model_steps_off": "decompose"}),
    ("early gap", ["early_gap"], {"model_steps_off": "early_gap"}),
    ("bridge pick", ["bridge"], {"bridge_pick": "ranking"}),
    ("gap loop", ["gap_loop"], {"max_iterations": 0}),
    ("claim split", ["claim_split"], {"model_steps_off": "claim_split"}),
    ("fact judgements", ["fact_judgements"], {"fact_evidence": 1}),
]


def cost_of(rows: list[dict], steps: list[str]) -> dict[str, float]:
    totals = dict.fromkeys(("calls", "prompt_tokens", "output_tokens", "seconds"), 0.0)
    for row in rows:
        for step in steps:
            for key in totals:
                totals[key] += row.get("steps", {}).get(step, {}).get(key, 0)
    return {key: value / max(1, len(rows)) for key, value in totals.items()}


def fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", help="claims JSONL (default: the committed 40-claim dev sample)")
    parser.add_argument("--out", default="docs/results/speed/sample-40",
                        help="folder for rows and the table (the speed benchmark's, to share its baseline)")
    parser.add_argument("--recall-only", action="store_true", help="stop after selection (no verify ablations)")
    args = parser.parse_args(argv)
    claims = Path(args.claims) if args.claims else sample_file()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    # the baseline is the speed benchmark's "previous" run when it is there: same rows, same (fresh) cache
    baseline = out / ("previous-recall.jsonl" if args.recall_only else "previous.jsonl")
    cache = cache_for(baseline)
    base = claimhop_rows(run_config(PREVIOUS, claims, baseline, cache, args.recall_only), claims)
    base_fig = figures(list(base.values()))
    lines = [
        (f"Baseline: the previous defaults on {len(base)} claims ({claims}); recall@21 {fmt(base_fig['recall'])}, "
         f"3-hop {fmt(base_fig['recall_3hop'])}, macro-F1 {fmt(base_fig['macro_f1'])}, median "
         f"{base_fig['median_s']:.1f} s/claim, DSPy cache hits {base_fig['cache_hits']}."),
        "",
        ("| step | calls/claim | prompt tokens | output tokens | model s/claim | recall@21 without | 3-hop without | "
         "macro-F1 without | claims lost / gained without it (p): every gold title, or verdict for verify steps |"),
        "|---|---|---|---|---|---|---|---|---|",
    ]
    skipped = VERIFY_STEPS if args.recall_only else set()
    for label, steps, extra in STEPS:
        cost = cost_of(list(base.values()), steps)
        cells = [label, fmt(cost["calls"], 2), fmt(cost["prompt_tokens"], 0), fmt(cost["output_tokens"], 0),
                 fmt(cost["seconds"], 1)]
        if label in skipped:
            lines.append("| " + " | ".join(cells + ["(recall-only run)"] * 4) + " |")
            continue
        name = "no-" + label.replace(" ", "-")
        config = Config(name, {**PREVIOUS.settings, **extra}, PREVIOUS.env)
        suffix = "-recall" if args.recall_only else ""
        rows = claimhop_rows(run_config(config, claims, out / f"{name}{suffix}.jsonl", cache, args.recall_only),
                             claims)
        fig = figures(list(rows.values()))
        # what a verify step is worth shows in verdicts (retrieval is the same), a retrieval step's in gold titles
        lost, gained, p = paired(base, rows, verdict_right if label in VERIFY_STEPS else all_gold)
        lines.append("| " + " | ".join(cells + [fmt(fig["recall"]), fmt(fig["recall_3hop"]), fmt(fig["macro_f1"]),
                                               f"{lost} / {gained} ({p:.2g})"]) + " |")
    text = "\n".join(lines)
    print(text)
    from retrieval.atomic import write_text

    write_text(out / f"steps{'-recall' if args.recall_only else ''}.md", text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
