"""Before and after: the same dev claims with the previous defaults and the new ones, in one invocation.

Tables: README's speed row and docs/speed.md's before/after tables (docs/results/speed/).

    python -m benchmarks.speed                               # the committed 40-claim sample
    python -m benchmarks.speed --claims claimhop/data/claims_dev.jsonl --out docs/results/speed/dev-169
    python -m benchmarks.speed --reuse previous               # the previous defaults' recorded rows, not re-run

Each configuration runs in its own process with a fresh, empty DSPy cache that this command creates (so every
model call is made and timed; the table reports the cache hits, which must be 0), one after the other: never
run it beside another model job. Prints median and p90 seconds per claim, model calls, prompt and output
tokens, recall@21 (overall and 3-hop), verdict macro-F1 and the ratio new/previous of each, with paired counts
(exact McNemar) for recall and verdicts; writes the table (.md) and a plot (.png) beside the rows.

The committed dev sample, the configurations and one configuration's run in a fresh process (its own DSPy cache,
its own engine options) live here too; benchmarks.lab.steps and .speculative use them. Each runs as `claimhop eval
--systems claimhop` in a subprocess, so its rows are ordinary, resumable eval rows; the figures of a run's rows and
the paired counts are the library's (claimhop.evaluation.run_summary, .report), which README's table uses too.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from claimhop.evaluation.data import DEV_CLAIMS, load_claims
from claimhop.evaluation.report import all_gold, paired, verdict_right
from claimhop.evaluation.run_summary import figures
from claimhop.evaluation.runner import recorded_run

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "benchmarks" / "samples" / "dev-40-seed0.jsonl"


@dataclass(frozen=True)
class Config:
    """A named way to run the graph: run settings (`--set`) and engine options (environment variables)."""

    name: str
    settings: dict[str, object] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)


# The defaults before the speed work (commit 8ecb944): two planning calls, the model's bridge pick, the gap loop
# entered every time, the model naming each fact's names, pretty-printed JSON replies, llama.cpp on 2 threads.
PREVIOUS = Config("previous", {"planner": "two_calls", "bridge_pick": "lm", "gap_loop_when": "always",
                               "fact_names": "asked"},
                  {"CLAIMHOP_LLM_THREADS": "2", "CLAIMHOP_LLM_COMPACT_JSON": "0"})
NEW = Config("new")
# The verifier's pass on the chat instance itself (before issue 41): it evicts the plan's cached prompt.
ONE_INSTANCE = Config("one-instance", {}, {"CLAIMHOP_LLM_SHARED_READER": "1"})
# The plan's instruction alone (before issue 41's worked examples): the model writes facts as long as the claim.
LONG_PLAN = Config("long-plan", {"plan_examples": "none"})
# Replies pretty-printed as the server's response_format path lets the model write them (before issue 58 item 2):
# a line break and indentation before every key and list item.
PRETTY_JSON = Config("pretty-json", {}, {"CLAIMHOP_LLM_COMPACT_JSON": "0"})
BASELINES = {config.name: config for config in (PREVIOUS, ONE_INSTANCE, LONG_PLAN, PRETTY_JSON)}


def stratified_sample(n: int = 40, seed: int = 0, path: Path = DEV_CLAIMS) -> list[dict]:
    """`n` dev claims, seeded, with each hop count in proportion to its share of the dev set (at least one each)."""
    claims = load_claims(path)
    by_hops: dict[int, list[dict]] = defaultdict(list)
    for claim in claims:
        by_hops[claim["num_hops"]].append(claim)
    rng = random.Random(seed)
    quota = {h: max(1, round(n * len(group) / len(claims))) for h, group in by_hops.items()}
    while sum(quota.values()) > n:
        quota[max(quota, key=quota.get)] -= 1
    keep = {c["uid"] for h, group in sorted(by_hops.items()) for c in rng.sample(group, quota[h])}
    return [c for c in claims if c["uid"] in keep]


def sample_file(n: int = 40, seed: int = 0) -> Path:
    """The committed sample (written once; the file, not the code, is what later runs are compared on)."""
    path = SAMPLE if (n, seed) == (40, 0) else ROOT / "benchmarks" / "samples" / f"dev-{n}-seed{seed}.jsonl"
    if not path.is_file():
        from claimhop.atomic import write_text

        path.parent.mkdir(parents=True, exist_ok=True)
        write_text(path, "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in stratified_sample(n, seed)))
    return path


def cache_for(out: Path) -> Path:
    """The DSPy cache of the run whose rows are `out`, outside git: CLAIMHOP_HOME/bench-caches/<folder>/<rows>-<code>.
    Created empty with the run, kept with it: a resumed run adds to it (other claims' prompts, so no claim of
    the run is answered from it), and a later run can replay from it what it would ask again. Keyed by the code
    too: a run of changed code re-asks the same claims, which a cache filled by the old code would answer."""
    from claimhop.cache_root import cache_root
    from claimhop.evaluation.fingerprint import code_digest

    path = cache_root() / "bench-caches" / out.resolve().parent.name / f"{out.stem}-{code_digest().hex()[:8]}"
    path.mkdir(parents=True, exist_ok=True)
    return path


def run_config(config: Config, claims: Path, out: Path, cache_dir: Path | None = None,
               recall_only: bool = False) -> Path:
    """Run (or resume) `config` on `claims`; rows go to `out`. Without `cache_dir`, the run's own cache
    (`cache_for`), empty when the run starts, so every model call is really made and timed."""
    cache = cache_dir or cache_for(out)
    command = [sys.executable, "-m", "claimhop.cli.main", "eval", "--systems", "claimhop", "--claims", str(claims),
               "--out", str(out)]
    for name, value in config.settings.items():
        command += ["--set", f"{name}={value}"]
    if recall_only:
        command.append("--recall-only")
    env = {**os.environ, "DSPY_CACHEDIR": str(cache), **config.env}
    print(f"== {config.name}: {' '.join(command[2:])}  (DSPY_CACHEDIR={cache})", file=sys.stderr, flush=True)
    subprocess.run(command, env=env, cwd=ROOT, check=True)
    return out


def claimhop_rows(path: Path, claims: Path) -> dict[str, dict]:
    """The claimhop rows of the run recorded in `path` (its most common fingerprint: never rows of older code or
    other settings) for the claims of `claims`, by claim uid."""
    rows, _ = recorded_run(path, load_claims(claims), ["claimhop"], "python -m benchmarks.speed")
    return {row["uid"]: row for row in rows}


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
