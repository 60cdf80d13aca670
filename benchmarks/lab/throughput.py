"""One model server, many graph workers: the same claims through 1, 2 and 4 concurrent workers (separate
processes, `claimhop check --file` on their share of the claims, `--model openai/claimhop-local`) against one
`claimhop serve-model --parallel N` with as many slots as workers, in one run. Prints claims per minute, median
seconds a claim, the ratio to one worker, and paired counts of verdicts and recall against one worker; saves
the rows, a table and a plot.

    .venv/bin/python -m benchmarks.lab.throughput [--claims benchmarks/samples/dev-40-seed0.jsonl] [--workers 1,2,4]

Every worker has an empty DSPy cache, so every model call is real. Run it on an idle machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from benchmarks.launch import free_port
from claimhop.atomic import write_json, write_text
from claimhop.evaluation.figures import pyplot, save_png
from claimhop.evaluation.metric import all_gold_in
from claimhop.evaluation.runner import json_objects

ROOT = Path(__file__).resolve().parents[2]


def start_server(slots: int, log: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    out = open(log, "w")  # noqa: SIM115 - closed with the process
    proc = subprocess.Popen([sys.executable, "-m", "claimhop.cli.main", "serve-model", "--port", str(port),
                             "--parallel", str(slots)], stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.time() + 300
    while True:
        try:
            with urllib.request.urlopen(f"{base}/models", timeout=2):
                return proc, base
        except OSError:
            if proc.poll() is not None or time.time() > deadline:
                raise RuntimeError(f"the model server did not start: {log.read_text()[-2000:]}") from None
            time.sleep(1)


def run_workers(claims: list[dict], workers: int, base: str, folder: Path) -> tuple[list[dict], float]:
    """The claims dealt round-robin to `workers` processes; (result rows, wall seconds for all of them)."""
    procs = []
    started = time.perf_counter()
    for w in range(workers):
        part = folder / f"claims-{w}.jsonl"
        write_text(part, "".join(json.dumps({"id": c["uid"], "claim": c["claim"]}) + "\n" for c in claims[w::workers]))
        env = {**os.environ, "OPENAI_API_BASE": base, "OPENAI_API_KEY": "none",
               "DSPY_CACHEDIR": str(folder / f"dspy-{w}"), "CLAIMHOP_CHECKPOINTS": str(folder / f"checkpoints-{w}.sqlite")}
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "claimhop.cli.main", "check", "--file", str(part), "--out",
             str(folder / f"results-{w}.jsonl"), "--model", "openai/claimhop-local"],
            env=env, stdout=subprocess.DEVNULL, stderr=open(folder / f"worker-{w}.log", "w"), cwd=ROOT))  # noqa: SIM115
    for proc in procs:
        if proc.wait() != 0:
            raise RuntimeError(f"a worker failed: see {folder}/worker-*.log")
    seconds = time.perf_counter() - started
    rows = [row for w in range(workers) for row in json_objects(folder / f"results-{w}.jsonl")]
    return rows, seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", default="benchmarks/samples/dev-40-seed0.jsonl")
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--out", default="docs/results/throughput/throughput.json")
    args = parser.parse_args()
    claims = [json.loads(line) for line in Path(args.claims).read_text().splitlines() if line.strip()]
    gold = {c["uid"]: c["supporting_titles"] for c in claims}
    results: dict[int, dict] = {}
    for workers in [int(n) for n in args.workers.split(",")]:
        folder = Path(tempfile.mkdtemp(prefix=f"claimhop-throughput-{workers}-"))
        server, base = start_server(workers, folder / "serve-model.log")
        try:
            rows, seconds = run_workers(claims, workers, base, folder)
        finally:
            server.terminate()
            server.wait(timeout=30)
        by_id = {row["id"]: row for row in rows}
        results[workers] = {
            "workers": workers, "slots": workers, "claims": len(rows), "wall_seconds": round(seconds, 1),
            "claims_per_minute": round(60 * len(rows) / seconds, 2),
            "median_seconds": round(statistics.median(row["seconds"] for row in rows), 1),
            "verdicts": {uid: by_id[uid]["verdict"] for uid in by_id},
            "recall": {uid: all_gold_in(by_id[uid]["documents"], gold[uid]) for uid in by_id},
        }
        print(f"{workers} workers: {results[workers]['claims_per_minute']} claims/min, median "
              f"{results[workers]['median_seconds']} s a claim ({folder})", flush=True)
    base_row = results[min(results)]
    table = ["| workers (= server slots) | claims | wall s | claims/min | ratio to 1 worker | median s a claim | "
             "verdicts differing from 1 worker | recall@21 (all gold in) differing |", "|---|---|---|---|---|---|---|---|"]
    for workers, row in results.items():
        differ = sum(row["verdicts"][u] != base_row["verdicts"].get(u) for u in row["verdicts"])
        recall_differ = sum(row["recall"][u] != base_row["recall"].get(u) for u in row["recall"])
        row["ratio"] = round(row["claims_per_minute"] / base_row["claims_per_minute"], 2)
        table.append(f"| {workers} | {row['claims']} | {row['wall_seconds']} | {row['claims_per_minute']} | "
                     f"{row['ratio']}x | {row['median_seconds']} | {differ} | {recall_differ} |")
    print("\n".join(table))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_json(out, {"claims_file": args.claims, "results": list(results.values())})
    write_text(out.with_suffix(".md"), "\n".join(table) + "\n")
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5, 3.2))
    ax.bar([str(w) for w in results], [r["claims_per_minute"] for r in results.values()], color="#4c72b0")
    ax.set_xlabel("graph workers (= server slots)")
    ax.set_ylabel("claims per minute")
    ax.set_title("one claimhop serve-model, 2 cores")
    save_png(fig, out.with_suffix(".png"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
