"""What each model step costs and what it is worth: one table from one command.

    python -m benchmarks.lab.steps                     # the committed 40-claim dev sample, against the defaults
    python -m benchmarks.lab.steps --recall-only       # retrieval only: no verdicts are paid for
    python -m benchmarks.lab.steps --cost-only "two calls"   # that step's cost columns only (its change not run)

Every model step of the design is a row. Its cost (calls, prompt and output tokens, model seconds per claim)
comes from a timed run in which the step runs: the speed benchmark's "new" rows (the defaults) for the steps the
defaults run, its "previous" rows (every step of the design on) for the steps the defaults leave out. Its worth
comes from re-running the same claims with the defaults changed at that one step (the step turned off or
replaced by its deterministic fallback, or, for a step the defaults leave out, turned back on): recall@21
(overall, 3-hop), verdict macro-F1, and the paired count of claims that lose or gain (every gold title, or the
right verdict for verify steps) against the defaults, with the exact McNemar p.

The defaults' rows are the speed benchmark's "new" rows as recorded (run `python -m benchmarks.speed` first). A
change that a timed run of the speed benchmark already is (`planner=one_call`: the `one-call` rows, when the
folder has them) is read from those rows instead of being run again.
Each change runs in its own process on a copy of the defaults' DSPy cache, so the model calls it shares with
the defaults (same prompt) are replayed and only what the change alters is paid for; so its times are not
reported, and its cost is read from the timed runs.
"""

from __future__ import annotations

import argparse
import shutil
from dataclasses import dataclass
from pathlib import Path

from benchmarks.speed import (
    NEW,
    PREVIOUS,
    Config,
    claimhop_rows,
    run_config,
    sample_file,
)
from claimhop.cache_root import cache_root
from claimhop.evaluation.report import all_gold, paired, verdict_right
from claimhop.evaluation.run_summary import figures


@dataclass(frozen=True)
class Step:
    """One model step: where its cost is measured, and the change to the defaults that measures its worth."""

    label: str
    cost_steps: tuple[str, ...]  # names in the rows' `steps` ledger
    cost_from: str  # "new" (the defaults run it) or "previous" (only the full design runs it)
    change: str  # what the ablation does, in words
    settings: dict[str, object]
    verify_step: bool = False  # worth shows in verdicts (retrieval is the same), not in gold titles
    worth_from: str = ""  # a timed run that already is the change (its rows are read, nothing is run)


STEPS = [
    Step("plan (atomic facts + entities, one call)", ("plan",), "new", "off: the claim is its one fact and query",
         {"model_steps_off": "plan"}),
    Step("decompose + early gap (two calls) and claim split", ("decompose", "early_gap", "claim_split"), "previous",
         "on: planner=two_calls", {"planner": "two_calls"}),
    Step("plan (sub-questions + entities) and claim split", ("plan", "claim_split"), "one-call",
         "on: planner=one_call", {"planner": "one_call"}, worth_from="one-call"),
    Step("bridge pick", ("bridge",), "previous", "on: bridge_pick=lm", {"bridge_pick": "lm"}),
    Step("gap loop, entered when a claim name or fact has no document", ("gap_loop",), "new",
         "off: max_iterations=0", {"max_iterations": 0}),
    Step("gap loop, entered every time", ("gap_loop",), "previous", "on: gap_loop_when=always",
         {"gap_loop_when": "always"}),
    Step("fact judgements (3 evidence sentences per fact)", ("fact_judgements",), "new",
         "fewer: fact_evidence=1", {"fact_evidence": 1}, verify_step=True),
]


def cost_of(rows: list[dict], steps: tuple[str, ...]) -> dict[str, float]:
    totals = dict.fromkeys(("calls", "prompt_tokens", "output_tokens", "seconds"), 0.0)
    for row in rows:
        for step in steps:
            for key in totals:
                totals[key] += row.get("steps", {}).get(step, {}).get(key, 0)
    return {key: value / max(1, len(rows)) for key, value in totals.items()}


def fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def newest_cache(rows_file: Path) -> Path:
    """The DSPy cache the speed benchmark filled for `rows_file` (its newest code's, when there are several)."""
    folder = cache_root() / "bench-caches" / rows_file.resolve().parent.name
    found = sorted(folder.glob(f"{rows_file.stem}-*"), key=lambda p: p.stat().st_mtime)
    if not found:
        raise SystemExit(f"no DSPy cache of {rows_file} under {folder}: run `python -m benchmarks.speed` first")
    return found[-1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", help="claims JSONL (default: the committed 40-claim dev sample)")
    parser.add_argument("--out", default="docs/results/speed/sample-40",
                        help="the speed benchmark's folder: its rows are the timed runs; the changes' rows go beside")
    parser.add_argument("--recall-only", action="store_true", help="stop after selection (no verify ablations)")
    parser.add_argument("--only", action="append", default=[], help="run only the steps whose label contains this")
    parser.add_argument("--cost-only", action="append", default=[],
                        help="for the steps whose label contains this, only the cost columns (their change is not run)")
    args = parser.parse_args(argv)
    claims = Path(args.claims) if args.claims else sample_file()
    out = Path(args.out)
    timed = {name: claimhop_rows(out / f"{name}.jsonl", claims) for name in (NEW.name, PREVIOUS.name, "one-call")
             if (out / f"{name}.jsonl").is_file()}
    if NEW.name not in timed:
        raise SystemExit(f"no rows of the defaults in {out}: run `python -m benchmarks.speed` first")
    base = timed[NEW.name]
    base_fig = figures(list(base.values()))
    cache = newest_cache(out / f"{NEW.name}.jsonl")
    suffix = "-recall" if args.recall_only else ""
    lines = [
        (f"Defaults: {len(base)} claims ({claims}); recall@21 {fmt(base_fig['recall'])}, 3-hop "
         f"{fmt(base_fig['recall_3hop'])}, macro-F1 {fmt(base_fig['macro_f1'])}, median {base_fig['median_s']:.1f} "
         f"s/claim. Cost columns: per claim, from the timed run named in 'cost from'."),
        "",
        ("| model step | cost from | calls | prompt tokens | output tokens | model s | change to the defaults | "
         "recall@21 | 3-hop | macro-F1 | claims lost / gained against the defaults (p) |"),
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for step in STEPS:
        if args.only and not any(word in step.label for word in args.only):
            continue
        rows_from = timed.get(step.cost_from, {})
        cost = cost_of(list(rows_from.values()), step.cost_steps)
        cells = [step.label, step.cost_from, fmt(cost["calls"], 2), fmt(cost["prompt_tokens"], 0),
                 fmt(cost["output_tokens"], 0), fmt(cost["seconds"], 1), step.change]
        if args.recall_only and step.verify_step:
            lines.append("| " + " | ".join(cells + ["(recall-only run)"] * 4) + " |")
            continue
        if any(word in step.label for word in args.cost_only):
            lines.append("| " + " | ".join(cells + ["(not run)"] * 4) + " |")
            continue
        if step.worth_from and step.worth_from in timed:
            rows = timed[step.worth_from]
        else:
            name = "change-" + "-".join(f"{k}={v}" for k, v in step.settings.items()).replace("_", "-")
            rows_file = out / f"{name}{suffix}.jsonl"
            own_cache = cache.parent / f"{name}{suffix}"
            if not own_cache.exists():  # the defaults' answers to replay; what the change asks anew is added here
                shutil.copytree(cache, own_cache)
            config = Config(name, {**NEW.settings, **step.settings}, NEW.env)
            rows = claimhop_rows(run_config(config, claims, rows_file, own_cache, args.recall_only), claims)
        fig = figures(list(rows.values()))
        lost, gained, p = paired(base, rows, verdict_right if step.verify_step else all_gold)
        lines.append("| " + " | ".join(cells + [fmt(fig["recall"]), fmt(fig["recall_3hop"]), fmt(fig["macro_f1"]),
                                               f"{lost} / {gained} ({p:.2g})"]) + " |")
    text = "\n".join(lines)
    print(text)
    from claimhop.atomic import write_text

    write_text(out / f"steps{suffix}.md", text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
