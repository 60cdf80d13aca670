"""Batches over a Ray cluster: `claimhop check --file CLAIMS --ray ADDRESS` and `claimhop eval ... --ray ADDRESS`.

One actor per node (each asks for all of its node's CPUs, so a node runs one graph at a time, as llama.cpp on a
CPU wants) loads the model, the indexes and the link table once; jobs (a claim to check, or a (system, claim) pair
to evaluate) are handed out one at a time to whichever actor is free. Only this process writes the output file,
one fsynced line per finished job, so every job has exactly one line however the cluster behaves. A job whose
actor or node died goes back to the queue and is run by another actor (the dead actor's node gets no new one; a
node that joined later does); with CLAIMHOP_CHECKPOINTS on a shared PostgreSQL, the retry resumes the claim from
its last finished node. The progress bar counts finished jobs across the cluster. Ray's usage statistics and
dashboard are off.
"""

from __future__ import annotations

import os
import sys
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tqdm import tqdm

from claimhop.cli.batch import finished_ids, result_row
from claimhop.evaluation.runner import append_row

RAY_ENV = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_DISABLE_DOCKER_CPU_WARNING": "1"}


def node_id() -> str:
    import ray

    return ray.get_runtime_context().get_node_id()


class ClaimWorker:
    """`check --file`: holds what a graph run needs, once per actor; runs one claim on its checkpoint thread."""

    def __init__(self, settings: dict[str, Any]):
        from claimhop.steps.common import get_lm, retriever_for
        from graph.durable import DurableChecks
        from state.context import Context

        self.settings = settings
        self.ctx = Context.from_any(settings)
        get_lm(self.ctx.model), retriever_for(self.ctx)  # loaded here, not in the first claim's time
        self.checks = DurableChecks()

    def run(self, item: dict[str, str]) -> dict[str, Any]:
        started = time.perf_counter()
        final = self.checks.run_claim(item["id"], item["claim"], self.settings, self.ctx)
        return {**result_row(item, final, round(time.perf_counter() - started, 2)), "node": node_id()}


class EvalWorker:
    """`eval`: the systems made once per actor; runs one (system, claim) pair into its result row."""

    def __init__(self, names: list[str], settings: dict[str, Any], recall_only: bool, fingerprints: dict[str, str]):
        from claimhop.evaluation.systems import make_systems

        self.systems = make_systems(names, settings, recall_only=recall_only)
        self.fingerprints = fingerprints

    def run(self, job: tuple[str, dict]) -> dict[str, Any]:
        from claimhop.evaluation.runner import eval_row

        system, claim = job
        return {**eval_row(self.systems[system], system, claim, self.fingerprints[system]), "node": node_id()}


def connect(address: str) -> None:
    """Join the cluster at `address` ("auto", "HOST:PORT" or "ray://..."); a clear error when it is not there."""
    for name, value in RAY_ENV.items():
        os.environ.setdefault(name, value)
    try:
        import ray
    except ImportError:
        raise ValueError("--ray needs Ray: pip install -e \".[distributed]\"") from None
    if ray.is_initialized():
        return
    try:
        ray.init(address=address, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    except (ConnectionError, RuntimeError, ValueError) as err:
        raise ValueError(f"cannot join the Ray cluster at {address!r}: {str(err).splitlines()[0][:300]}") from None


def start_workers(worker: type, args: tuple, running: dict[str, Any]) -> dict[str, Any]:
    """A `worker(*args)` actor on every alive node that has none in `running` (node id -> actor), holding the
    node's CPUs."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    remote = ray.remote(worker)
    started = {}
    for node in ray.nodes():
        if not node.get("Alive") or not node["Resources"].get("CPU") or node["NodeID"] in running:
            continue
        strategy = NodeAffinitySchedulingStrategy(node["NodeID"], soft=False)
        started[node["NodeID"]] = remote.options(num_cpus=node["Resources"]["CPU"], scheduling_strategy=strategy,
                                                 max_restarts=0, max_concurrency=1).remote(*args)
    return started


def dispatch(jobs: list, worker: type, args: tuple, on_row: Callable[[dict], None], desc: str,
             retries: int = 3) -> dict[str, Any]:
    """Run every job on the cluster's workers; `on_row` gets each result row here, once per job."""
    import ray

    queue = deque(jobs)
    workers = start_workers(worker, args, {})  # node id -> its worker
    if not workers:
        raise ValueError("the Ray cluster has no node with CPUs to run on")
    counts: dict[str, Any] = {"workers": len(workers), "retried": 0}
    running: dict[Any, tuple[str, Any]] = {}  # a job's pending result -> (node, job)
    failures: dict[int, int] = {}
    nodes: dict[str, int] = {}
    idle = list(workers)
    with tqdm(total=len(queue), desc=f"{desc} on {len(workers)} Ray workers", unit="job", file=sys.stderr) as bar:
        while queue or running:
            while queue and idle:
                node, job = idle.pop(), queue.popleft()
                running[workers[node].run.remote(job)] = (node, job)
            if not running:
                raise RuntimeError("every Ray worker died and no alive node can take a new one")
            ready, _ = ray.wait(list(running), num_returns=1)
            node, job = running.pop(ready[0])
            try:
                row = ray.get(ready[0])
            except (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError,
                    ray.exceptions.NodeDiedError, ray.exceptions.ObjectLostError) as err:
                failures[id(job)] = failures.get(id(job), 0) + 1
                if failures[id(job)] > retries:
                    raise RuntimeError(f"a job failed on {retries + 1} workers: {err}") from None
                queue.appendleft(job)  # the next free worker takes it
                counts["retried"] += 1
                counts.setdefault("worker errors", []).append(f"{type(err).__name__}: {str(err).splitlines()[0][:200]}")
                workers.pop(node, None)  # its node may be gone (and still listed alive for a while): no new
                fresh = start_workers(worker, args, {**workers, node: None})  # worker there; new nodes get one
                workers.update(fresh)
                idle.extend(fresh)
                continue
            on_row(row)
            nodes[row["node"]] = nodes.get(row["node"], 0) + 1
            idle.append(node)
            bar.update(1)
    counts["jobs per node"] = {n[:12]: k for n, k in nodes.items()}
    return counts


def check_on_ray(claims: list[dict[str, str]], out: Path, settings: dict[str, Any], address: str) -> dict[str, Any]:
    """`check --file --ray`: every claim not yet in `out`, one line each, written here only."""
    from state.validation import validate_claim

    connect(address)
    done = finished_ids(out)
    todo: list[dict[str, str]] = []
    counts: dict[str, Any] = {"claims": len(claims), "already done": 0, "checked": 0, "refused": 0}
    for item in claims:
        if item["id"] in done:
            counts["already done"] += 1
            continue
        try:
            todo.append({**item, "claim": validate_claim(item["claim"])})
        except ValueError as err:
            append_row(out, {"id": item["id"], "claim": item["claim"], "verdict": None, "error": str(err)})
            counts["refused"] += 1

    def write(row: dict) -> None:
        append_row(out, row)
        counts["checked"] += 1

    cluster = dispatch(todo, ClaimWorker, (settings,), write, "check")
    return {**counts, **cluster}


def eval_on_ray(claims: list[dict], names: list[str], settings: dict[str, Any], recall_only: bool, out: Path,
                fingerprints: dict[str, str], address: str) -> list[dict]:
    """`eval --ray`: every (system, claim) pair not yet in `out`, as `run_eval` would run them; all rows."""
    from claimhop.evaluation.runner import todo_pairs

    connect(address)
    done, todo = todo_pairs(claims, names, out, fingerprints)

    def write(row: dict) -> None:
        append_row(out, row)
        done[(row["system"], row["uid"])] = row

    dispatch(todo, EvalWorker, (names, settings, recall_only, fingerprints), write, "eval")
    return [done[(s, c["uid"])] for c in claims for s in names]
