"""How long a user waits: `claimhop check` on a claim in a fresh process with an empty DSPy cache, timed from
the printed thread id (the run has started) to the first documents shown and to the answer.

    python -m benchmarks.check_time                  # README's claim
    python -m benchmarks.check_time "CLAIM" --repeat 3

Each line the command prints is timestamped as it arrives; the table gives seconds from the thread id line to
the first documents (`[search_claim]`), to the verdict (`Verdict:`) and to the end of the answer. Run it alone
on the machine.
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


def one_check(claim: str, settings: list[str]) -> dict[str, float]:
    """Seconds from the thread id to the first documents, the verdict and the end, in a fresh process."""
    command = [sys.executable, "-u", "-m", "claimhop.cli.main", "check", claim, *[a for s in settings for a in ("--set", s)]]
    env = {**os.environ, "DSPY_CACHEDIR": tempfile.mkdtemp(prefix="claimhop-check-time-")}
    marks: dict[str, float] = {}
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env) as proc:
        for line in proc.stdout:
            now = time.perf_counter()
            if line.startswith("thread "):
                marks.setdefault("thread", now)
            elif line.startswith("[search_claim]"):
                marks.setdefault("documents", now)
            elif line.startswith("Verdict:"):
                marks.setdefault("verdict", now)
            marks["end"] = now
    if proc.returncode != 0 or "thread" not in marks or "verdict" not in marks:
        raise SystemExit(f"claimhop check failed (exit {proc.returncode}): {' '.join(command)}")
    start = marks["thread"]
    return {key: round(marks[key] - start, 1) for key in ("documents", "verdict", "end")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("claim", nargs="?", default=README_CLAIM)
    parser.add_argument("--repeat", type=int, default=1, help="fresh processes, one after the other")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a run setting")
    args = parser.parse_args(argv)
    runs = []
    for i in range(args.repeat):
        runs.append(one_check(args.claim, args.set))
        print(f"run {i + 1}: {runs[-1]}", file=sys.stderr, flush=True)
    print("| | first documents | verdict | answer printed |")
    print("|---|---|---|---|")
    for i, run in enumerate(runs, start=1):
        print(f"| run {i} | {run['documents']} s | {run['verdict']} s | {run['end']} s |")
    if len(runs) > 1:
        print(f"| median | {statistics.median(r['documents'] for r in runs)} s | "
              f"{statistics.median(r['verdict'] for r in runs)} s | {statistics.median(r['end'] for r in runs)} s |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
