"""claimhop as one of `claimhop eval`'s systems: the compiled graph run on a claim. It lives with the graph, not in
claimhop.evaluation, so that the evaluation imports no graph: the console commands (claimhop/cli), the one entry
point above the graph, hand `claimhop_system` to `make_systems`."""

from __future__ import annotations

from typing import Any

from claimhop.evaluation.systems import SystemFn, lm_use
from claimhop.lm.provider import local_engine_stats
from claimhop.lm.usage import LEDGER, usage_between


def run_graph(claim: str, ctx: Any, recall_only: bool = False) -> dict[str, Any]:
    """The graph's final state; with `recall_only`, the state as soon as selection has run (no verdict is paid
    for: leaving the stream stops the run)."""
    import dataclasses
    import os

    from graph import graph
    from graph.durable import CHECKPOINTS_ENV, shared_checks, until_written

    if os.environ.get(CHECKPOINTS_ENV):  # checkpointed: a killed eval resumes its claim mid-way, anywhere
        settings = dataclasses.asdict(ctx) if dataclasses.is_dataclass(ctx) else dict(ctx)
        return shared_checks().run_claim("eval-recall" if recall_only else "eval", claim, settings, ctx,
                                         until="selected" if recall_only else None)
    if not recall_only:
        return graph.invoke({"claim": claim}, context=ctx)
    return until_written(graph.stream({"claim": claim}, context=ctx, stream_mode=["updates", "values"]), "selected")


def claimhop_system(settings: dict[str, Any], recall_only: bool = False) -> SystemFn:
    """The graph as an eval system: per claim its selected titles, verdict and model use, step by step."""
    from claimhop.program import stages_for
    from claimhop.program.runtime import get_lm  # the nodes' own loader
    from state.context import Context

    ctx = Context.from_any(settings)
    get_lm(ctx.model), stages_for(ctx).built.engine  # loaded once here, so no claim's time includes loading them

    def run(claim: str) -> dict[str, Any]:
        before, ledger = local_engine_stats(), LEDGER.snapshot()
        state = run_graph(claim, ctx, recall_only)
        steps = usage_between(ledger, LEDGER.snapshot())
        return {
            "titles": [d["title"] for d in state["selected"]],
            "verdict": state.get("verdict"),
            **lm_use(before, local_engine_stats()),
            "steps": steps,
            # served by DSPy's cache rather than the model (only the local engine reports what it served)
            "cache_hits": sum(s["asked"] - s["calls"] for s in steps.values()) if ctx.model == "local" else None,
            "lm_steps": state.get("lm_calls", 0),
            "candidate_titles": list(dict.fromkeys(t for hop in state.get("hops", []) for t in hop["titles"])),
            "hops": state.get("hops", []),
            "degraded": state.get("degraded", []),
        }

    return run
