"""Load on a real `langgraph dev`: N runs in all, C at a time, each a different HoVer dev claim on its own
thread, streamed as the chat page streams them. Prints throughput, latency p50/p95, the server's peak memory
and how often it loaded the model, checks every run's result belongs to its own claim, and plots the run.

Table: the load run in docs/reliability.md (throughput, latency, peak memory).

    .venv/bin/python -m benchmarks.load --runs 50 --concurrency 8

The server gets an empty DSPy cache, so every model call is real (pass --url to load a running server, which
must serve at least --concurrency runs at once: `langgraph dev --n-jobs-per-worker 8`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

import httpx
from langgraph_sdk import get_client

from benchmarks.launch import dev_server
from claimhop.atomic import write_json
from claimhop.evaluation.data import load_claims
from claimhop.evaluation.figures import pyplot, save_png
from claimhop.evaluation.metric import all_gold_in

VERDICTS = {"SUPPORTED", "CONTRADICTED", "INSUFFICIENT_INFO"}


def problems_with(row: dict, state: dict, top_k: int) -> list[str]:
    """What is wrong with one run's final state, if anything: it must be this claim's complete, own result."""
    problems = []
    if state.get("claim") != row["claim"]:
        problems.append(f"state holds another claim: {str(state.get('claim'))[:60]!r}")
    humans = [m for m in state.get("messages", []) if m.get("type") == "human"]
    if [m.get("content") for m in humans] != [row["claim"]]:
        problems.append("thread's human messages are not exactly this claim")
    if state.get("verdict") not in VERDICTS:
        problems.append(f"no verdict ({state.get('verdict')!r})")
    if not str(state.get("answer", "")).startswith("Verdict: "):
        problems.append("no final answer")
    if len(state.get("selected", [])) != top_k:
        problems.append(f"{len(state.get('selected', []))} documents selected, not {top_k}")
    titles = {d["title"] for d in state.get("selected", [])}
    if any(e["title"] not in titles for e in state.get("evidence", [])):
        problems.append("evidence cites a document outside this run's selection")
    return problems


async def one_run(url: str, row: dict, context: dict, top_k: int) -> dict:
    client = get_client(url=url, timeout=httpx.Timeout(None, connect=10))
    thread = await client.threads.create(metadata={"benchmark": "load", "uid": row["uid"]})
    start = time.perf_counter()
    errors = []
    first_event_at = None  # when the server first reported a node of this run: it is running there, not queued
    async for part in client.runs.stream(thread["thread_id"], "claimhop", input={"messages": [
            {"role": "human", "content": row["claim"]}]}, context=context, stream_mode=["custom"]):
        if part.event == "custom" and first_event_at is None:
            first_event_at = time.time()
        if part.event == "error":
            errors.append(str(part.data)[:200])
    latency = time.perf_counter() - start
    state = (await client.threads.get_state(thread["thread_id"]))["values"]
    selected = [d["title"] for d in state.get("selected", [])]
    return {
        "uid": row["uid"], "num_hops": row.get("num_hops"), "latency_s": round(latency, 2),
        "first_event_at": first_event_at, "finished_at": time.time(), "verdict": state.get("verdict"),
        "all_gold_in_21": all_gold_in(selected, row["supporting_titles"]),
        "degraded": state.get("degraded", []), "problems": errors + problems_with(row, state, top_k),
    }


async def sample_health(url: str, samples: list[dict], stop: asyncio.Event, every_s: float = 1.0) -> None:
    """The server's memory and model counters once a second, until `stop` is set."""
    async with httpx.AsyncClient(timeout=10) as http:
        while not stop.is_set():
            try:
                report = (await http.get(f"{url}/claimhop/health")).json()
                samples.append({"t": time.time(), **report})
            except httpx.HTTPError:
                pass
            try:
                await asyncio.wait_for(stop.wait(), every_s)
            except TimeoutError:
                pass


async def run_load(url: str, claims: list[dict], concurrency: int, context: dict, top_k: int = 21,
                   on_row=None) -> tuple[list[dict], list[dict], float]:
    """Every claim once, at most `concurrency` at a time. Returns the runs, the health samples and the wall time."""
    gate = asyncio.Semaphore(concurrency)
    samples: list[dict] = []
    stop = asyncio.Event()
    sampler = asyncio.create_task(sample_health(url, samples, stop))

    async def gated(row: dict) -> dict:
        async with gate:
            result = await one_run(url, row, context, top_k)
        if on_row:
            on_row(result)
        return result

    start = time.perf_counter()
    rows = await asyncio.gather(*(gated(row) for row in claims))
    wall = time.perf_counter() - start
    stop.set()
    await sampler
    return list(rows), samples, wall


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return statistics.quantiles(ordered, n=100, method="inclusive")[q - 1] if len(ordered) > 1 else ordered[0]


def most_at_once(rows: list[dict]) -> int:
    """The most runs the server was running at one moment: each from its first node's event to its end (a run
    the server queued instead reports its first node only after another ended)."""
    edges = sorted([(r["first_event_at"], 1) for r in rows if r.get("first_event_at") is not None]
                   + [(r["finished_at"], -1) for r in rows if r.get("first_event_at") is not None])
    running = most = 0
    for _, step in edges:
        running += step
        most = max(most, running)
    return most


def summarise(rows: list[dict], samples: list[dict], wall: float, concurrency: int) -> dict:
    latencies = [r["latency_s"] for r in rows]
    last = samples[-1] if samples else {}
    return {
        "runs": len(rows), "concurrency": concurrency, "most_runs_at_once": most_at_once(rows), "wall_s": round(wall, 1),
        "throughput_runs_per_min": round(60 * len(rows) / wall, 2),
        "latency_p50_s": round(percentile(latencies, 50), 1), "latency_p95_s": round(percentile(latencies, 95), 1),
        "latency_max_s": round(max(latencies), 1),
        "runs_with_problems": sum(bool(r["problems"]) for r in rows),
        "runs_degraded": sum(bool(r["degraded"]) for r in rows),
        "recall_at_21": round(sum(r["all_gold_in_21"] for r in rows) / len(rows), 3),
        "server_peak_rss_mib": max((s["peak_rss_mib"] for s in samples), default=None),
        "model_loads": last.get("model_loads"), "model_calls": (last.get("local_model") or {}).get("calls"),
    }


def plot(rows: list[dict], samples: list[dict], started: float, concurrency: int, path: Path) -> None:
    plt = pyplot()

    fig, (memory, done) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    memory.plot([(s["t"] - started) / 60 for s in samples], [s["rss_mib"] for s in samples])
    memory.set_ylabel("server RSS (MiB)")
    memory.set_title(f"{len(rows)} claims, {concurrency} at a time, on one langgraph dev")
    finished = sorted((r["finished_at"] - started) / 60 for r in rows)
    done.step(finished, range(1, len(finished) + 1), where="post")
    done.set_ylabel("runs finished")
    done.set_xlabel("minutes since start")
    fig.tight_layout()
    save_png(fig, path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="a run setting for every run, e.g. max_iterations=0 (default: the defaults)")
    parser.add_argument("--url", help="load this running server instead of starting one")
    parser.add_argument("--out", type=Path, default=Path("docs/results/load"), help="folder for rows, summary, plot")
    args = parser.parse_args()
    claims = load_claims(limit=args.runs, seed=args.seed)
    from claimhop.cli.main import _settings

    context = _settings(argparse.Namespace(set=args.set, model=None, corpus=None))
    args.out.mkdir(parents=True, exist_ok=True)
    rows_path = args.out / "runs.jsonl"
    rows_path.unlink(missing_ok=True)

    def on_row(row: dict) -> None:
        with open(rows_path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(row) + "\n")
        print(f"{row['latency_s']:7.1f} s  {row['verdict'] or '-':17}  gold in 21: {row['all_gold_in_21']!s:5}  "
              f"{'OK' if not row['problems'] else 'PROBLEMS ' + '; '.join(row['problems'])}", flush=True)

    started = time.time()
    if args.url:
        rows, samples, wall = asyncio.run(run_load(args.url, claims, args.concurrency, context,
                                                   top_k=int(context.get("top_k", 21)), on_row=on_row))
    else:
        with tempfile.TemporaryDirectory() as tmp, dev_server(
                Path(tmp) / "langgraph-dev.log", env={"DSPY_CACHEDIR": str(Path(tmp) / "dspy")}, jobs=args.concurrency
        ) as url:
            rows, samples, wall = asyncio.run(run_load(url, claims, args.concurrency, context,
                                                       top_k=int(context.get("top_k", 21)), on_row=on_row))
    summary = {**summarise(rows, samples, wall, args.concurrency), "settings": context}
    write_json(args.out / "summary.json", summary)
    plot(rows, samples, started, args.concurrency, args.out / "load.png")
    for key, value in summary.items():
        print(f"{key:28} {value}")


if __name__ == "__main__":
    main()
