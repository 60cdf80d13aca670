"""How soon a chat client sees claimhop working: time to the first streamed event, the first hop's titles and
the verdict, per claim, streamed from a real `langgraph dev` exactly as the chat page streams it.

    .venv/bin/python -m benchmarks.lab.chat_latency --claims 3

The server gets an empty DSPy cache, so every model call is real (pass --url to measure a running server).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from langgraph_sdk import get_client

from benchmarks.launch import dev_server
from claimhop.atomic import write_json
from claimhop.evaluation.data import load_claims

STREAM_MODES = ["values", "messages-tuple", "custom", "updates"]


async def time_one(url: str, claim: str, context: dict) -> dict:
    client = get_client(url=url)
    thread = await client.threads.create()
    start = time.perf_counter()
    marks: dict[str, float] = {}
    verdict = None
    async for part in client.runs.stream(thread["thread_id"], "claimhop", input={"messages": [
            {"role": "human", "content": claim}]}, context=context, stream_mode=STREAM_MODES):
        now = time.perf_counter() - start
        marks.setdefault("first_event", now)
        if part.event == "custom":
            marks.setdefault("first_progress", now)
            if part.data.get("event") == "hop":
                marks.setdefault("first_hop", now)
            if part.data.get("event") == "answer":
                marks["answer"] = now
                verdict = part.data.get("verdict")
    marks["end"] = time.perf_counter() - start
    return {"claim": claim, "verdict": verdict, **{k: round(v, 2) for k, v in marks.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", type=int, default=3, help="how many dev claims (seeded sample)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--max-iterations", type=int, default=2)
    parser.add_argument("--url", help="measure this running server instead of starting one")
    parser.add_argument("--out", type=Path, help="also write the rows as JSON here")
    args = parser.parse_args()
    claims = load_claims(limit=args.claims, seed=args.seed)
    context = {"max_iterations": args.max_iterations}

    async def run_all(url: str) -> list[dict]:
        rows = []
        for claim in claims:
            row = await time_one(url, claim["claim"], context)
            rows.append(row)
            print(f"first event {row['first_event']:6.2f} s | first progress {row.get('first_progress', -1):6.2f} s"
                  f" | first hop {row.get('first_hop', -1):7.2f} s | verdict {row.get('answer', -1):7.2f} s"
                  f" ({row['verdict']}) | {claim['uid'][:8]} {claim.get('num_hops')}-hop", flush=True)
        return rows

    if args.url:
        rows = asyncio.run(run_all(args.url))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp) / "langgraph-dev.log"
            with dev_server(log, env={"DSPY_CACHEDIR": str(Path(tmp) / "dspy")}) as url:
                rows = asyncio.run(run_all(url))
    if args.out:
        write_json(args.out, rows)


if __name__ == "__main__":
    main()
