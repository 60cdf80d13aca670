"""8 runs at once on one `langgraph dev`, real model: the server runs all 8 at the same moment (each from its first
node's event to its end), each ends with its own claim's complete result, the model is loaded once and shared, and
no call times out while queued (the figures for 50 runs: benchmarks/load.py)."""

from __future__ import annotations

import asyncio

from benchmarks.launch import CONCURRENT_RUNS
from benchmarks.load import run_load, summarise
from claimhop.evaluation.data import load_claims

# Fewer steps than the defaults keep this test to a few minutes; the benchmark uses the defaults.
QUICK = {"max_iterations": 0, "max_sub_questions": 2, "max_gap_queries": 2, "max_bridge_entities": 3}


def test_eight_concurrent_runs_finish_with_their_own_results_on_one_shared_model(server):
    claims = load_claims(limit=CONCURRENT_RUNS, seed=5)
    rows, samples, wall = asyncio.run(run_load(server, claims, CONCURRENT_RUNS, QUICK))
    summary = summarise(rows, samples, wall, CONCURRENT_RUNS)
    assert summary["most_runs_at_once"] == CONCURRENT_RUNS, rows  # they overlapped, not one after another
    assert [r["problems"] for r in rows] == [[]] * CONCURRENT_RUNS
    assert not [d for r in rows for d in r["degraded"] if "ModelTimeout" in d]
    assert summary["model_loads"] == {"local": 1}
    assert summary["recall_at_21"] >= 0.5  # mixed-up states would not find their own claims' gold documents
