"""The systems compared: the claim as one query (BM25, dense, hybrid), the DSPy peers, and the claimhop graph,
which the caller hands in (`make_systems(claimhop=...)`: graph.runs.claimhop_system), so the evaluation imports no
graph."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from claimhop.lm.provider import local_engine_stats

SINGLE_QUERY_DEPTH = 50
SystemFn = Callable[[str], dict[str, Any]]
# makes claimhop's system from the run's settings and recall_only (graph.runs.claimhop_system)
SystemFactory = Callable[[dict[str, Any], bool], SystemFn]


def single_query(mode: str, settings: dict[str, Any], rerank: bool = False) -> SystemFn:
    """The claim as one query, with the run settings' fusion weights (and, with `rerank`, its re-ranker: the
    LM one unless `reranker` names another)."""
    from claimhop.program import stages_for
    from state.context import Context

    ctx = Context.from_any({**settings, "reranker": (settings.get("reranker") or "lm") if rerank else ""})

    def run(claim: str) -> dict[str, Any]:
        before = local_engine_stats()
        hits = stages_for(ctx).built.engine.search(claim, SINGLE_QUERY_DEPTH, mode)
        return {"titles": [h.title for h in hits], **lm_use(before, local_engine_stats())}

    return run


def lm_use(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    """LM calls and tokens the local model served between two readings (cache hits cost nothing)."""
    return {
        "lm_calls": after["calls"] - before["calls"],
        "tokens": (after["prompt_tokens"] + after["completion_tokens"])
        - (before["prompt_tokens"] + before["completion_tokens"]),
    }


def dspy_program_system(settings: dict[str, Any], build: Callable[[Any, Any], Any]) -> SystemFn:
    """A DSPy baseline program (`build(retriever, ctx)` makes it) on the run's model and corpus: its titles,
    queries and model use per claim."""
    import dspy

    from claimhop.lm.adapter import adapter_for
    from claimhop.lm.provider import get_lm
    from claimhop.retrieval.service import index_search
    from state.context import Context

    ctx = Context.from_any(settings)
    module = build(index_search(ctx.corpus_path or None, index_dir=ctx.index_dir or None), ctx)

    def run(claim: str) -> dict[str, Any]:
        before = local_engine_stats()
        with dspy.context(lm=get_lm(ctx.model), adapter=adapter_for(ctx.model)):
            out = module(claim=claim)
        used = lm_use(before, local_engine_stats())
        return {"titles": out.titles, **used, "lm_steps": getattr(out, "lm_calls", used["lm_calls"]),
                "queries": out.queries}

    return run


def diverse_coverage_system(settings: dict[str, Any]) -> SystemFn:
    from claimhop.evaluation.baselines.diverse_coverage import DiverseCoverage

    return dspy_program_system(settings, lambda retriever, ctx: DiverseCoverage(retriever, k=ctx.top_k))


def hover_multihop_system(settings: dict[str, Any]) -> SystemFn:
    from claimhop.evaluation.baselines.hover_multihop import HoverMultiHop

    return dspy_program_system(settings, lambda retriever, ctx: HoverMultiHop(retriever))


def make_systems(names: list[str], settings: dict[str, Any], recall_only: bool = False,
                 claimhop: SystemFactory | None = None) -> dict[str, SystemFn]:
    """Each named system, made once; "claimhop" is made by `claimhop` (graph.runs.claimhop_system), which the
    console commands pass: the graph sits above the evaluation."""
    known: dict[str, Callable[[], SystemFn]] = {
        "bm25": lambda: single_query("bm25", settings),
        "dense": lambda: single_query("dense", settings),
        "hybrid": lambda: single_query("hybrid", settings),
        "hybrid-rerank": lambda: single_query("hybrid", settings, rerank=True),
        "diverse-coverage": lambda: diverse_coverage_system(settings),
        "hovermultihop": lambda: hover_multihop_system(settings),
        "claimhop": lambda: claimhop(settings, recall_only),
    }
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown system(s): {', '.join(unknown)}; choose from {', '.join(known)}")
    if "claimhop" in names and claimhop is None:
        raise ValueError("make_systems: the claimhop system runs the graph, so its caller passes it: "
                         "make_systems(..., claimhop=graph.runs.claimhop_system)")
    return {name: known[name]() for name in names}


def timed(fn: SystemFn, claim: str) -> dict[str, Any]:
    started = time.perf_counter()
    row = fn(claim)
    row["seconds"] = round(time.perf_counter() - started, 3)
    return row
