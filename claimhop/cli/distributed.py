"""`claimhop check --file CLAIMS --ray ADDRESS`: a batch over a Ray cluster.

One actor per node (each asks for all of its node's CPUs, so a node runs one graph at a time, as llama.cpp on a
CPU wants) loads the model, the indexes and the link table once; claims are handed out one at a time to
whichever actor is free. Only this process writes the output file, one fsynced line per finished claim, so every
claim has exactly one line however the cluster behaves. A claim whose actor or node died goes back to the queue
and is checked by another actor (the dead actor's node gets no new one; a node that joined later does); with
CLAIMHOP_CHECKPOINTS on a shared PostgreSQL, the retry resumes from the claim's last finished node. The progress bar counts finished
claims across the cluster. Ray's usage statistics and dashboard are off.
"""

from __future__ import annotations

import os
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any

from tqdm import tqdm

from claimhop.cli.batch import claim_thread, finished_ids, result_row
from claimhop.evaluation.runner import append_row

RAY_ENV = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_DISABLE_DOCKER_CPU_WARNING": "1"}


class ClaimWorker:
    """Holds what a graph run needs, once per actor; `check` runs one claim on its checkpoint thread."""

    def __init__(self, settings: dict[str, Any]):
        from claimhop.cli.durable import DurableChecks
        from claimhop.steps.common import get_lm, retriever_for
        from state.context import Context

        self.settings = settings
        self.ctx = Context.from_any(settings)
        get_lm(self.ctx.model), retriever_for(self.ctx)  # loaded here, not in the first claim's time
        self.checks = DurableChecks()

    def node(self) -> str:
        import ray

        return ray.get_runtime_context().get_node_id()

    def check(self, item: dict[str, str]) -> dict[str, Any]:
        started = time.perf_counter()
        thread_id = self.checks.start(self.settings, claim_thread(item["id"], item["claim"], self.settings))
        final = self.checks.run(item["claim"], thread_id, self.ctx)
        row = result_row(item, final, round(time.perf_counter() - started, 2))
        row["node"] = self.node()
        return row


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


def start_workers(settings: dict[str, Any], running: dict[str, Any]) -> dict[str, Any]:
    """A ClaimWorker on every alive node that has none in `running` (node id -> actor), holding the node's CPUs."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    remote = ray.remote(ClaimWorker)
    started = {}
    for node in ray.nodes():
        if not node.get("Alive") or not node["Resources"].get("CPU") or node["NodeID"] in running:
            continue
        strategy = NodeAffinitySchedulingStrategy(node["NodeID"], soft=False)
        started[node["NodeID"]] = remote.options(num_cpus=node["Resources"]["CPU"], scheduling_strategy=strategy,
                                                 max_restarts=0, max_concurrency=1).remote(settings)
    return started


def check_on_ray(claims: list[dict[str, str]], out: Path, settings: dict[str, Any], address: str,
                 retries: int = 3) -> dict[str, Any]:
    """Check every claim not yet in `out` on the cluster; one line each in `out`, written here only."""
    import ray

    from state.validation import validate_claim

    connect(address)
    done = finished_ids(out)
    queue: deque[dict[str, str]] = deque()
    counts: dict[str, Any] = {"claims": len(claims), "already done": 0, "checked": 0, "refused": 0, "retried": 0}
    for item in claims:
        if item["id"] in done:
            counts["already done"] += 1
            continue
        try:
            queue.append({**item, "claim": validate_claim(item["claim"])})
        except ValueError as err:
            append_row(out, {"id": item["id"], "claim": item["claim"], "verdict": None, "error": str(err)})
            counts["refused"] += 1
    workers = start_workers(settings, {})  # node id -> its worker
    if not workers:
        raise ValueError("the Ray cluster has no node with CPUs to run claims on")
    counts["workers"] = len(workers)
    running: dict[Any, tuple[str, dict[str, str]]] = {}  # a claim's pending result -> (node, claim)
    failures: dict[str, int] = {}
    nodes: dict[str, int] = {}
    idle = list(workers)
    with tqdm(total=len(queue), desc=f"check on {len(workers)} Ray workers", unit="claim", file=sys.stderr) as bar:
        while queue or running:
            while queue and idle:
                node, item = idle.pop(), queue.popleft()
                running[workers[node].check.remote(item)] = (node, item)
            if not running:
                raise RuntimeError("every Ray worker died and no alive node can take a new one")
            ready, _ = ray.wait(list(running), num_returns=1)
            node, item = running.pop(ready[0])
            try:
                row = ray.get(ready[0])
            except (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError,
                    ray.exceptions.NodeDiedError, ray.exceptions.ObjectLostError) as err:
                failures[item["id"]] = failures.get(item["id"], 0) + 1
                if failures[item["id"]] > retries:
                    raise RuntimeError(f"claim {item['id']} failed on {retries + 1} workers: {err}") from None
                queue.appendleft(item)  # the next free worker takes it
                counts["retried"] += 1
                workers.pop(node, None)  # its node may be gone (and still listed alive for a while): no new
                fresh = start_workers(settings, {**workers, node: None})  # worker there; nodes that joined get one
                workers.update(fresh)
                idle.extend(fresh)
                continue
            append_row(out, row)
            counts["checked"] += 1
            nodes[row["node"]] = nodes.get(row["node"], 0) + 1
            idle.append(node)
            bar.update(1)
    counts["claims per node"] = {node[:12]: n for node, n in nodes.items()}
    return counts
