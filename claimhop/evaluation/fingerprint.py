"""What a results file's rows are keyed by, per system, so a resumed run never mixes two configurations.

claimhop's rows are keyed by every setting, the optimised program and all the code. A peer (bm25, hybrid,
langProBe's HoverMultiHop) is keyed only by what decides its own results: the settings it reads and the code it
runs. So a change to claimhop's graph or defaults leaves the peers' rows valid, and "the peer in every run" costs
its model time once per sample, not once per claimhop change (HoverMultiHop takes over a minute a claim here)."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

from claimhop.program.fingerprint import (
    ROOT,
    _python_files,
    code_digest,
    engine_options,
    verdict_fingerprint,
)

if TYPE_CHECKING:
    from state.context import Context

__all__ = ["PEERS", "ROOT", "_python_files", "code_digest", "run_fingerprint", "system_fingerprint"]

SEARCH_SETTINGS = ("corpus_path", "index_dir", "retriever", "bm25_weight", "dense_weight", "rrf_k", "fusion_depth")
# The code a one-query search runs: the engine, its factory (claimhop/program/built.py), the bundled data's
# loaders, the base helpers, the systems and the metric.
SEARCH_CODE = ("claimhop/retrieval", "claimhop/data", "claimhop/atomic.py", "claimhop/cache_root.py",
               "claimhop/sentences.py", "claimhop/program/built.py", "claimhop/evaluation/systems.py",
               "claimhop/evaluation/metric.py")
# A DSPy peer program adds the model (its settings, the engine, the adapter) and its own module.
PROGRAM_SETTINGS = (*SEARCH_SETTINGS, "model", "top_k")
PROGRAM_CODE = (*SEARCH_CODE, "claimhop/lm", "claimhop/evaluation/baselines")
PEERS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "bm25": (SEARCH_SETTINGS, SEARCH_CODE),
    "dense": (SEARCH_SETTINGS, SEARCH_CODE),
    "hybrid": (SEARCH_SETTINGS, SEARCH_CODE),
    "hovermultihop": (PROGRAM_SETTINGS, PROGRAM_CODE),
    "diverse-coverage": (PROGRAM_SETTINGS, PROGRAM_CODE),
}


def run_fingerprint(ctx: Context) -> str:
    """claimhop's key: what decides a verdict (`claimhop.program.fingerprint`: every setting as the run resolves it,
    so CLAIMHOP_* variables count as much as --set, the engine's options, the model file, the optimised program, the
    passage verifier's head, the corpus and index, and the code), the same key its checkpoint threads carry."""
    return verdict_fingerprint(ctx)


def system_fingerprint(system: str, ctx: Context, recall_only: bool = False) -> str:
    """The key of one system's rows: a peer's own settings and code, or claimhop's whole configuration (a
    recall-only claimhop row has no verdict, so it is never resumed as, or mixed with, a full run's row)."""
    if system not in PEERS:
        return run_fingerprint(ctx) + ("-recall" if recall_only else "")
    names, code = PEERS[system]
    values = {name: ctx.value(name) for name in names}
    settings = json.dumps([system, values, engine_options(ctx) if "model" in names else {}], sort_keys=True, default=str)
    return f"{system}-" + hashlib.sha256(settings.encode() + code_digest(code)).hexdigest()[:12]
