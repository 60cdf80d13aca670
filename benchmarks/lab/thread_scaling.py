"""Does one model process leave cores for a second? The same work (the passage verifier's ~700-token reading pass,
then a reply of up to 60 tokens) timed in one process with every core, in one process with one core, and in one process per
core at once, in one run. If the last gives little over the first, the machine's cores are already busy with one
worker and no arrangement of workers or slots (claimhop serve-model --parallel, more Ray actors per node) can raise
throughput much: the work is compute-bound.

    .venv/bin/python -m benchmarks.lab.thread_scaling [--passes 4] [--out docs/results/throughput/thread-scaling.json]

Run it on an idle machine; it starts its own processes (each loads the bundled model).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from claimhop.atomic import write_json, write_text

ROOT = Path(__file__).resolve().parents[2]
REPLY_TOKENS = 60


def measure(passes: int, offset: int) -> dict:
    """In this process: seconds per reading pass and per reply (the engine's thread count from the environment)."""
    from claimhop.lm.provider import local_engine
    from claimhop.program.verify.reading import passage_messages
    from claimhop.retrieval.corpus import load_corpus

    corpus = load_corpus()
    engine = local_engine()
    docs = [corpus.document(i) for i in range(1000 + offset, 1006 + offset)]
    passages = [{"title": d["title"], "text": d["text"][:450]} for d in docs]
    engine.last_hidden_state(passage_messages("warm up", passages[:1]))
    started = time.perf_counter()
    for k in range(passes):
        engine.last_hidden_state(passage_messages(f"Claim {k}: {docs[k % len(docs)]['title']} is notable.", passages))
    reading = (time.perf_counter() - started) / passes
    started = time.perf_counter()
    engine.chat({"messages": [{"role": "user", "content": "Write a 60-word story about a lighthouse."}],
                 "max_tokens": REPLY_TOKENS, "temperature": 0})
    return {"reading_seconds": round(reading, 2), "reply_seconds": round(time.perf_counter() - started, 2)}


def run_processes(count: int, threads: int, passes: int) -> list[dict]:
    """`count` processes at once, each with `threads` threads; their measurements."""
    procs = [subprocess.Popen([sys.executable, "-m", "benchmarks.lab.thread_scaling", "--child", str(i), "--passes",
                               str(passes)], env={**os.environ, "CLAIMHOP_LLM_THREADS": str(threads)},
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
             for i in range(count)]
    results = []
    for proc in procs:
        out, _ = proc.communicate()
        if proc.returncode != 0:
            raise RuntimeError("a measuring process failed")
        results.append(json.loads(out.strip().splitlines()[-1]))
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passes", type=int, default=4)
    parser.add_argument("--out", default="docs/results/throughput/thread-scaling.json")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(measure(args.passes, 10 * args.child)))
        return 0
    cores = len(os.sched_getaffinity(0))
    setups = {f"1 process, {cores} threads": (1, cores), "1 process, 1 thread": (1, 1),
              f"{cores} processes at once, 1 thread each": (cores, 1)}
    rows = []
    base = None
    for name, (count, threads) in setups.items():
        results = run_processes(count, threads, args.passes)
        reading = sum(r["reading_seconds"] for r in results) / count
        reply = sum(r["reply_seconds"] for r in results) / count
        # work finished per second by all processes together, relative to the first setup
        rate = (count / reading, count / reply)
        base = base or rate
        rows.append({"setup": name, "processes": count, "threads": threads, "reading_seconds": round(reading, 2),
                     "reply_seconds": round(reply, 2), "reading_throughput": round(rate[0] / base[0], 2),
                     "reply_throughput": round(rate[1] / base[1], 2)})
        print(f"{name}: reading pass {reading:.2f} s, reply (up to {REPLY_TOKENS} tokens) {reply:.2f} s", flush=True)
    table = ["| setup | seconds a reading pass (~700 tokens) | seconds a reply (up to 60 tokens) | reading throughput | "
             "reply throughput |", "|---|---|---|---|---|"]
    table += [f"| {r['setup']} | {r['reading_seconds']} | {r['reply_seconds']} | {r['reading_throughput']}x | "
              f"{r['reply_throughput']}x |" for r in rows]
    print("\n".join(table))
    out = Path(args.out)
    write_json(out, {"cores": cores, "passes": args.passes, "rows": rows})
    write_text(out.with_suffix(".md"), "\n".join(table) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
