"""Shared by the speed and step benchmarks: the committed dev sample and one configuration's run in a fresh
process (its own DSPy cache, its own engine options). The figures of a run's rows and the paired counts are the
library's (claimhop.evaluation.run_summary, claimhop.evaluation.report), which README's table uses too.

Each configuration runs as `claimhop eval --systems claimhop` in a subprocess, so its rows are ordinary eval
rows (resumable: a killed benchmark picks up where it stopped) and the engine options, which are per process,
can differ between configurations."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from claimhop.evaluation.data import DEV_CLAIMS, load_claims
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
