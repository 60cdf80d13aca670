"""The systems compared: the claim as one query (BM25, dense, hybrid) and the claimhop graph."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from retrieval.service import get_retriever

SINGLE_QUERY_DEPTH = 50
SystemFn = Callable[[str], dict[str, Any]]


def single_query(mode: str, corpus_path: str | None, index_dir: str | None = None) -> SystemFn:
    def run(claim: str) -> dict[str, Any]:
        hits = get_retriever(corpus_path, index_dir=index_dir).search(claim, SINGLE_QUERY_DEPTH, mode)
        return {"titles": [h.title for h in hits], "lm_calls": 0}

    return run


def lm_use(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    """LM calls and tokens the local model served between two readings (cache hits cost nothing)."""
    return {
        "lm_calls": after["calls"] - before["calls"],
        "tokens": (after["prompt_tokens"] + after["completion_tokens"])
        - (before["prompt_tokens"] + before["completion_tokens"]),
    }


def claimhop_system(settings: dict[str, Any]) -> SystemFn:
    from graph import graph
    from lm.provider import local_engine_stats
    from state.context import Context

    ctx = Context.from_any(settings)

    def run(claim: str) -> dict[str, Any]:
        before = local_engine_stats()
        state = graph.invoke({"claim": claim}, context=ctx)
        return {
            "titles": [d["title"] for d in state["selected"]],
            "verdict": state.get("verdict"),
            **lm_use(before, local_engine_stats()),
            "lm_steps": state.get("lm_calls", 0),
            "candidate_titles": list(dict.fromkeys(t for hop in state.get("hops", []) for t in hop["titles"])),
            "hops": state.get("hops", []),
            "degraded": state.get("degraded", []),
        }

    return run


def diverse_coverage_system(settings: dict[str, Any]) -> SystemFn:
    import dspy

    from evaluation.baselines.diverse_coverage import DiverseCoverage
    from lm.provider import get_lm, local_engine_stats
    from state.context import Context

    ctx = Context.from_any(settings)
    module = DiverseCoverage(get_retriever(ctx.corpus_path or None, index_dir=ctx.index_dir or None), k=ctx.top_k)

    def run(claim: str) -> dict[str, Any]:
        before = local_engine_stats()
        with dspy.context(lm=get_lm(ctx.model), adapter=dspy.JSONAdapter()):
            out = module(claim=claim)
        return {
            "titles": out.titles,
            **lm_use(before, local_engine_stats()),
            "lm_steps": out.lm_calls,
            "queries": out.queries,
        }

    return run


def make_systems(names: list[str], settings: dict[str, Any]) -> dict[str, SystemFn]:
    corpus, index_dir = settings.get("corpus_path") or None, settings.get("index_dir") or None
    known: dict[str, Callable[[], SystemFn]] = {
        "bm25": lambda: single_query("bm25", corpus, index_dir),
        "dense": lambda: single_query("dense", corpus, index_dir),
        "hybrid": lambda: single_query("hybrid", corpus, index_dir),
        "diverse-coverage": lambda: diverse_coverage_system(settings),
        "claimhop": lambda: claimhop_system(settings),
    }
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown system(s): {', '.join(unknown)}; choose from {', '.join(known)}")
    return {name: known[name]() for name in names}


def timed(fn: SystemFn, claim: str) -> dict[str, Any]:
    started = time.perf_counter()
    row = fn(claim)
    row["seconds"] = round(time.perf_counter() - started, 3)
    return row
