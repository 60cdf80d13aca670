"""What a results file's rows are keyed by, per system, so a resumed run never mixes two configurations.

claimhop's rows are keyed by every setting, the optimised program and all the code. A peer (bm25, hybrid,
langProBe's HoverMultiHop) is keyed only by what decides its own results: the settings it reads and the code it
runs. So a change to claimhop's graph or defaults leaves the peers' rows valid, and "the peer in every run" costs
its model time once per sample, not once per claimhop change (HoverMultiHop takes over a minute a claim here)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from state.context import Context

ROOT = Path(__file__).resolve().parents[2]
EVERY_PACKAGE = ("graph", "nodes", "state", "claimhop")
# The interfaces (CLI, server) decide no result.
NOT_RESULTS = {"claimhop/cli", "claimhop/server"}

SEARCH_SETTINGS = ("corpus_path", "index_dir", "retriever", "bm25_weight", "dense_weight", "rrf_k", "fusion_depth")
# The code a one-query search runs: the engine, its factory (steps/common.retriever_for), the bundled data's
# loaders, the base helpers, the systems and the metric.
SEARCH_CODE = ("claimhop/retrieval", "claimhop/data", "claimhop/atomic.py", "claimhop/cache_root.py",
               "claimhop/sentences.py", "claimhop/steps/common.py", "claimhop/evaluation/systems.py",
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


def _python_files(parts: tuple[str, ...]) -> list[Path]:
    files: list[Path] = []
    for part in parts:
        path = ROOT / part
        files += [path] if path.is_file() else sorted(path.rglob("*.py"))
    return [f for f in files if not any(f.relative_to(ROOT).as_posix().startswith(n + "/") for n in NOT_RESULTS)]


def code_digest(parts: tuple[str, ...] = EVERY_PACKAGE) -> bytes:
    """Hash of the code that decides a run's results (by default all of it, less the CLI and server)."""
    digest = hashlib.sha256()
    for path in _python_files(parts):
        digest.update(path.relative_to(ROOT).as_posix().encode() + path.read_bytes())
    return digest.digest()


def _engine(ctx: Context) -> dict:
    from claimhop.lm.local_engine import EngineOptions

    return dataclasses.asdict(EngineOptions.from_env()) if ctx.model == "local" else {}


def run_fingerprint(ctx: Context) -> str:
    """claimhop's key: every setting as the run resolves it (so CLAIMHOP_* variables count as much as --set),
    the engine's options, the optimised program, the passage verifier's head and the code."""
    from claimhop.program import program_file
    from claimhop.verification.head import HEAD_FILE

    path = program_file(ctx.use_optimized_program, ctx.program_path)
    program = path.read_bytes() if path else b""
    program += HEAD_FILE.read_bytes() if HEAD_FILE.is_file() else b""
    settings = json.dumps([dataclasses.asdict(ctx), _engine(ctx)], sort_keys=True, default=str).encode()
    return hashlib.sha256(settings + hashlib.sha256(program).digest() + code_digest()).hexdigest()[:16]


def system_fingerprint(system: str, ctx: Context, recall_only: bool = False) -> str:
    """The key of one system's rows: a peer's own settings and code, or claimhop's whole configuration (a
    recall-only claimhop row has no verdict, so it is never resumed as, or mixed with, a full run's row)."""
    if system not in PEERS:
        return run_fingerprint(ctx) + ("-recall" if recall_only else "")
    names, code = PEERS[system]
    values = {name: ctx.value(name) for name in names}
    settings = json.dumps([system, values, _engine(ctx) if "model" in names else {}], sort_keys=True, default=str)
    return f"{system}-" + hashlib.sha256(settings.encode() + code_digest(code)).hexdigest()[:12]
