"""Before and after: the same dev claims with the previous defaults and the new ones, in one invocation.

    python -m benchmarks.speed                               # the committed 40-claim sample
    python -m benchmarks.speed --claims claimhop/data/claims_dev.jsonl --out docs/results/speed/dev-169
    python -m benchmarks.speed --reuse previous               # the previous defaults' recorded rows, not re-run

Each configuration runs in its own process with a fresh, empty DSPy cache that this command creates (so every
model call is made and timed; the table reports the cache hits, which must be 0), one after the other: never
run it beside another model job. Prints median and p90 seconds per claim, model calls, prompt and output
tokens, recall@21 (overall and 3-hop), verdict macro-F1 and the ratio new/previous of each, with paired counts
(exact McNemar) for recall and verdicts; writes the table (.md) and a plot (.png) beside the rows.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchmarks.runs import (
    BASELINES,
    NEW,
    PREVIOUS,
    Config,
    claimhop_rows,
    run_config,
    sample_file,
)
from claimhop.evaluation.report import all_gold, paired, verdict_right
from claimhop.evaluation.run_summary import figures

ROWS = [("median_s", "median s/claim", 1), ("p90_s", "p90 s/claim", 1), ("calls", "model calls/claim", 1),
        ("prompt_tokens", "prompt tokens/claim", 0), ("output_tokens", "output tokens/claim", 0),
        ("cached_tokens", "prompt tokens from llama.cpp's cache/claim", 0), ("cache_hits", "DSPy cache hits", 0),
        ("recall", "recall@21", 3), ("recall_3hop", "recall@21, 3-hop", 3), ("found_all", "claims with every gold title", 0),
        ("macro_f1", "verdict macro-F1", 3)]


def fmt(value: float | None, digits: int) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def table(before: Config, after: Config, old: dict, new: dict) -> str:
    a, b = figures(list(old.values())), figures(list(new.values()))
    lines = [f"| | {before.name} | {after.name} | {after.name} / {before.name} |", "|---|---|---|---|"]
    for key, label, digits in ROWS:
        ratio = f"{b[key] / a[key]:.2f}" if a[key] not in (None, 0) and b[key] is not None else "–"
        lines.append(f"| {label} | {fmt(a[key], digits)} | {fmt(b[key], digits)} | {ratio} |")
    for what, right in (("every gold title found", all_gold), ("verdict right", verdict_right)):
        only_new, only_old, p = paired(new, old, right)
        lines.append(f"\n{what}: only {after.name} {only_new}, only {before.name} {only_old} "
                     f"(exact McNemar p = {p:.3g}, {len(new)} claims)")
    return "\n".join(lines)


def plot(before: Config, after: Config, old: dict, new: dict, path: Path) -> Path:
    """Seconds per claim of both configurations, and where the new one's model time goes by step."""
    from claimhop.evaluation.figures import pyplot, save_png

    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    left.boxplot([[r["seconds"] for r in old.values()], [r["seconds"] for r in new.values()]])
    left.set_xticks([1, 2], [before.name, after.name])
    left.set_ylabel("seconds per claim")
    left.set_title(f"whole graph, {len(new)} claims")
    names = sorted({step for rows in (old, new) for row in rows.values() for step in row.get("steps", {})})
    for config, rows, offset in ((before, old, -0.2), (after, new, 0.2)):
        seconds = [sum(row.get("steps", {}).get(n, {}).get("seconds", 0.0) for row in rows.values()) / len(rows)
                   for n in names]
        right.barh([i + offset for i in range(len(names))], seconds, height=0.4, label=config.name)
    right.set_yticks(range(len(names)), names)
    right.set_xlabel("model seconds per claim, by step")
    right.legend()
    fig.tight_layout()
    return save_png(fig, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", help="claims JSONL (default: the committed 40-claim dev sample)")
    parser.add_argument("--out", default="docs/results/speed/sample-40", help="folder for rows, table and plot")
    parser.add_argument("--report-only", action="store_true", help="table and plot from the rows already there")
    parser.add_argument("--previous", default=PREVIOUS.name, choices=sorted(BASELINES),
                        help="the configuration to compare the defaults with (default: the defaults before the speed "
                             "work; one-instance: the verifier's pass on the chat instance, as before issue 41; "
                             "long-plan: the plan without its worked examples; pretty-json: replies pretty-printed)")
    parser.add_argument("--previous-head", metavar="FILE",
                        help="instead of --previous: the defaults with this verifier head (CLAIMHOP_VERIFIER_HEAD), "
                             "e.g. the head shipped before a retrained one")
    parser.add_argument("--reuse", action="append", default=[], choices=[*BASELINES, NEW.name],
                        help="take this configuration's rows as recorded (by older code too) instead of running it: "
                             "the previous defaults take 45 minutes on the sample; say so beside the figures")
    args = parser.parse_args(argv)
    claims = Path(args.claims) if args.claims else sample_file()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    before = BASELINES[args.previous]
    if args.previous_head:
        head = Path(args.previous_head).resolve()
        if not head.is_file() or not head.with_suffix(".json").is_file():
            parser.error(f"--previous-head {head}: a head file and its .json beside it are needed")
        from claimhop.program.verify.head import reading_of

        # Named by what the head reads (its .json), so the rows file says which head made them.
        rule = reading_of(json.loads(head.with_suffix(".json").read_text(encoding="utf-8")))
        before = Config(f"head-{rule.name}-{rule.blocks}-blocks", {}, {"CLAIMHOP_VERIFIER_HEAD": str(head)})
    runs = {config.name: claimhop_rows(out / f"{config.name}.jsonl" if args.report_only or config.name in args.reuse
                                       else run_config(config, claims, out / f"{config.name}.jsonl"), claims)
            for config in (before, NEW)}
    text = table(before, NEW, runs[before.name], runs[NEW.name])
    print(text)
    from claimhop.atomic import write_text

    write_text(out / "speed.md", f"Claims: {claims}\n\n{text}\n")
    picture = plot(before, NEW, runs[before.name], runs[NEW.name], out / "speed.png")
    print(f"\ntable: {out / 'speed.md'}  plot: {picture}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
