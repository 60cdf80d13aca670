"""How long a user waits: `claimhop check` on a claim in a fresh process with an empty DSPy cache, timed from
the printed thread id (the run has started) to the first documents shown, the plan, the verdict and the answer.

Table: the times to first documents and to the answer for README's claim in docs/speed.md.

    python -m benchmarks.check_time                  # README's claim
    python -m benchmarks.check_time "CLAIM" --repeat 3
    python -m benchmarks.check_time --repeat 3 --arm before:CLAIMHOP_LLM_PROMPT_STATES=0 --arm now

Each line the command prints is timestamped as it arrives; the table gives seconds from the thread id line to
the first documents (`[search_claim]`), to the plan's facts (`[decompose]`), to the verdict (`Verdict:`) and to the
end of the answer, and the plan's and verify step's own seconds (from the line before each to its first line).
With `--arm NAME:VAR=VALUE,...` (environment variables; NAME alone for none) the arms take turns, run by run, so
the machine's slower minutes fall on all of them alike; the last table gives each arm's medians and their ratio to
the first arm's. Run it alone on the machine, after `claimhop setup`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

README_CLAIM = ("The Runaways' lead singer, who also starred in the film sharing the name of its musical score, "
                "Foxes (soundtrack), and Steve Augeri were both American musician.")
# the line that starts each mark, first occurrence (the process prints each step's lines as it ends)
MARKS = {"thread": "thread ", "documents": "[search_claim]", "plan": "[decompose]", "selected": "[select_documents]",
         "verdict": "Verdict:"}
COLUMNS = ("documents", "plan done", "verdict", "end", "plan step", "verify step", "process")


def one_check(claim: str, settings: list[str], env: dict[str, str] | None = None) -> dict[str, float]:
    """Seconds from the thread id to each mark, and the plan's and verify step's own, in a fresh process."""
    command = [sys.executable, "-u", "-m", "claimhop.cli.main", "check", claim, *[a for s in settings for a in ("--set", s)]]
    env = {**os.environ, **(env or {}), "DSPY_CACHEDIR": tempfile.mkdtemp(prefix="claimhop-check-time-")}
    marks: dict[str, float] = {}
    launched = time.perf_counter()
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env) as proc:
        for line in proc.stdout:
            now = time.perf_counter()
            for mark, start in MARKS.items():
                if line.startswith(start):
                    marks.setdefault(mark, now)
            marks["end"] = now
    if proc.returncode != 0 or not {"thread", "documents", "plan", "selected", "verdict"} <= set(marks):
        raise SystemExit(f"claimhop check failed (exit {proc.returncode}): {' '.join(command)}")
    start = marks["thread"]
    return {"documents": round(marks["documents"] - start, 1), "plan done": round(marks["plan"] - start, 1),
            "verdict": round(marks["verdict"] - start, 1), "end": round(marks["end"] - start, 1),
            "plan step": round(marks["plan"] - marks["documents"], 1),
            "verify step": round(marks["verdict"] - marks["selected"], 1),
            "process": round(marks["end"] - launched, 1)}


def parse_arm(text: str) -> tuple[str, dict[str, str]]:
    """`NAME:VAR=VALUE,VAR=VALUE` (or NAME alone) -> the arm's name and environment."""
    name, _, assignments = text.partition(":")
    env: dict[str, str] = {}
    for item in filter(None, assignments.split(",")):
        if "=" not in item:
            raise SystemExit(f"--arm {text!r}: expected NAME:VAR=VALUE,...")
        key, value = item.split("=", 1)
        env[key.strip()] = value
    return name.strip() or "arm", env


def table(rows: list[tuple[str, dict[str, float]]]) -> list[str]:
    lines = ["| run | " + " | ".join(COLUMNS) + " |", "|---" * (len(COLUMNS) + 1) + "|"]
    for label, run in rows:
        lines.append(f"| {label} | " + " | ".join(f"{run[c]} s" for c in COLUMNS) + " |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("claim", nargs="?", default=README_CLAIM)
    parser.add_argument("--repeat", type=int, default=1, help="fresh processes per arm, the arms taking turns")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a run setting")
    parser.add_argument("--arm", action="append", default=[], metavar="NAME:VAR=VALUE,...",
                        help="an arm: environment variables for its processes (the first arm is the baseline)")
    args = parser.parse_args(argv)
    arms = [parse_arm(a) for a in args.arm] or [("now", {})]
    runs: dict[str, list[dict[str, float]]] = {name: [] for name, _ in arms}
    rows: list[tuple[str, dict[str, float]]] = []
    for i in range(args.repeat):
        for name, env in arms:
            runs[name].append(one_check(args.claim, args.set, env))
            rows.append((f"{name} {i + 1}", runs[name][-1]))
            print(f"{name} run {i + 1}: {runs[name][-1]}", file=sys.stderr, flush=True)
    print("\n".join(table(rows)))
    medians = {name: {c: round(statistics.median(r[c] for r in done), 1) for c in COLUMNS} for name, done in runs.items()}
    print()
    print("\n".join(table([(f"{name} (median of {len(runs[name])})", m) for name, m in medians.items()])))
    if len(arms) > 1:
        base = medians[arms[0][0]]
        for name, m in list(medians.items())[1:]:
            ratios = ", ".join(f"{c} {m[c] / base[c]:.2f}" for c in COLUMNS if base[c])
            print(f"\n{name} / {arms[0][0]}: {ratios}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
