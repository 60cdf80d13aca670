"""Batches over a Ray cluster: `claimhop check --file CLAIMS --ray ADDRESS` and `claimhop eval ... --ray ADDRESS`.

One actor per node (each asks for all of its node's CPUs, so a node runs one graph at a time, as llama.cpp on a
CPU wants) loads the model, the indexes and the link table once; jobs (a claim to check, or a (system, claim) pair
to evaluate) are handed out one at a time to whichever actor is free. Only this process writes the output file,
one fsynced line per finished job, so every job has exactly one line however the cluster behaves. A job whose
actor or node died goes back to the queue and is run by another actor (the dead actor's node gets no new one; a
node that joined later does); with CLAIMHOP_CHECKPOINTS on a shared PostgreSQL, the retry resumes the claim from
its last finished node. A claim that raises (a RayTaskError: the fault is the claim's, not the node's) is tried
again after the same wait as in a local batch (2 s, then 8 s; its worker takes other claims meanwhile) and then
written as a failed row with its error; the batch goes on. Every worker runs with the settings and
the CLAIMHOP_* environment this process checked (`shipped_env`, through Ray's `runtime_env`), whatever its own
`ray start` environment holds, but for secrets: anyone who can list the cluster's actors reads a `runtime_env`, so
no key or password is shipped (Ray's advice: give secrets through the nodes' own environment). The database URLs
go without their password, and each node gives it itself: PGPASSWORD or ~/.pgpass in the environment its `ray
start` runs in (libpq reads them for a URL without a password), or its own CLAIMHOP_PG_URL / CLAIMHOP_CHECKPOINTS
naming the same host, port, database and user with the password, which `adopt_env` puts back; API keys
(CLAIMHOP_MODEL_API_KEY, OPENAI_API_KEY, ...) are each node's own. The driver says so when it holds any. The
progress bar counts finished jobs across the cluster. Ray's usage statistics and dashboard are off.
"""

from __future__ import annotations

import heapq
import itertools
import os
import sys
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tqdm import tqdm

from claimhop.cli.batch import (
    ATTEMPTS,
    failed_row,
    finished_ids,
    forget_failures,
    result_row,
    retry_wait,
)
from claimhop.database_url import (
    database_of,
    password_of,
    with_password,
    without_password,
)
from claimhop.evaluation.runner import append_row

RAY_ENV = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_DISABLE_DOCKER_CPU_WARNING": "1"}
NODE_KEY = "claimhop_node"  # the checkpoint metadata naming the Ray node whose worker ran a step of a claim
# What decides where a worker keeps its checkpoints, what it searches and which model server it asks: the driver's
# values, or unset (empty) when the driver has none, so a node's own `ray start` environment never picks them.
SHIPPED = ("CLAIMHOP_CHECKPOINTS", "CLAIMHOP_PG_URL", "CLAIMHOP_PG_COLLECTION", "OPENAI_API_BASE")
# CLAIMHOP_* variables that name something of one machine (its cache folder) or of the server, never shipped.
MACHINE_LOCAL = {"CLAIMHOP_HOME", "CLAIMHOP_SERVER_KEY"}
# The shipped variables that may hold a database password: shipped without it, and given to the worker in its
# constructor's arguments only (not Ray's `runtime_env`, which would hide the node's own value `adopt_env` reads).
DATABASE_URLS = ("CLAIMHOP_CHECKPOINTS", "CLAIMHOP_PG_URL")
# Keys and passwords, never shipped: a worker keeps its node's own. Besides these, every CLAIMHOP_* variable whose
# name ends like a secret (SECRET_ENDINGS).
SECRETS = {"CLAIMHOP_MODEL_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"}
SECRET_ENDINGS = ("_KEY", "_TOKEN", "_PASSWORD", "_SECRET")


def is_secret(name: str) -> bool:
    return name in SECRETS or (name.startswith("CLAIMHOP_") and name.endswith(SECRET_ENDINGS))


def shipped_env() -> dict[str, str]:
    """The environment every worker runs with: the driver's CLAIMHOP_* variables (setting defaults, engine
    options, checkpoints, the PostgreSQL search) and OPENAI_API_BASE; no key, and the database URLs without their
    password (each node gives its own: `adopt_env`)."""
    env = {name: "" for name in SHIPPED}
    env.update({k: v for k, v in os.environ.items()
                if k.startswith("CLAIMHOP_") and k not in MACHINE_LOCAL and not is_secret(k)})
    env.update({k: os.environ[k] for k in SHIPPED if k in os.environ})
    env.update({k: without_password(env[k]) for k in DATABASE_URLS if k in env})
    return env


def runtime_env_vars(env: dict[str, str]) -> dict[str, str]:
    """What of `env` goes in Ray's `runtime_env` (set before the worker starts): all but the database URLs, which
    would replace the node's own values before `adopt_env` could read their password."""
    return {k: v for k, v in env.items() if k not in DATABASE_URLS}


def adopt_env(env: dict[str, str]) -> None:
    """Make this worker's CLAIMHOP_* environment exactly the driver's: Ray sets the shipped variables, and this
    drops the ones only the node's own `ray start` environment had (a setting default the driver never checked),
    keeping the node's own keys and passwords. A database URL takes the node's password when the node's own value
    of that variable names the same host, port, database and user; else libpq's PGPASSWORD or ~/.pgpass applies."""
    env = {**env, **{k: with_node_password(env[k], os.environ.get(k, "")) for k in DATABASE_URLS if k in env}}
    for name in [k for k in os.environ if k.startswith("CLAIMHOP_") and k not in MACHINE_LOCAL and not is_secret(k)
                 and k not in env]:
        del os.environ[name]
    os.environ.update(env)


def with_node_password(shipped: str, own: str) -> str:
    """The shipped URL (no password), with the password of the node's own URL when both name one database."""
    password = password_of(own)
    if not password or database_of(shipped) is None or database_of(shipped) != database_of(own):
        return shipped
    return with_password(shipped, password)


def withheld_note() -> str | None:
    """One line for the driver's user when a password or key stays here, saying how each node gives its own;
    None when there is none."""
    urls = [k for k in DATABASE_URLS if password_of(os.environ.get(k, ""))]
    keys = sorted(k for k in os.environ if is_secret(k) and k not in MACHINE_LOCAL and os.environ[k].strip())
    if not urls and not keys:
        return None
    how = []
    if urls:
        how.append(f"the password of {' and '.join(urls)} by PGPASSWORD, a ~/.pgpass line, or its own {urls[0]} "
                   "naming the same host, port, database and user with the password")
    if keys:
        how.append(f"{', '.join(keys)} as variables of its own")
    return ("note: no password or key is sent to the Ray workers (anyone who can list the cluster's actors reads "
            "what is); each node gives its own, in the environment its `ray start` runs in: " + "; ".join(how))


def note_withheld() -> None:
    note = withheld_note()
    if note:
        print(note, file=sys.stderr)


def node_id() -> str:
    import ray

    return ray.get_runtime_context().get_node_id()


class ClaimWorker:
    """`check --file`: holds what a graph run needs, once per actor; runs one claim on its checkpoint thread."""

    def __init__(self, settings: dict[str, Any], env: dict[str, str]):
        adopt_env(env)
        from claimhop.program import stages_for
        from claimhop.program.runtime import get_lm  # the nodes' own loader
        from graph.durable import DurableChecks
        from state.context import Context

        self.settings = settings
        self.ctx = Context.from_any(settings)
        get_lm(self.ctx.model), stages_for(self.ctx).built.engine  # loaded here, not in the first claim's time
        self.checks = DurableChecks(labels={NODE_KEY: node_id()})  # each step says which node ran it

    def run(self, item: dict[str, str]) -> dict[str, Any]:
        started = time.perf_counter()
        final = self.checks.run_claim(item["id"], item["claim"], self.settings, self.ctx)
        return {**result_row(item, final, round(time.perf_counter() - started, 2)), "node": node_id()}


class EvalWorker:
    """`eval`: the systems made once per actor; runs one (system, claim) pair into its result row."""

    def __init__(self, names: list[str], settings: dict[str, Any], recall_only: bool, fingerprints: dict[str, str],
                 env: dict[str, str]):
        adopt_env(env)
        from claimhop.evaluation.systems import make_systems
        from graph.runs import claimhop_system

        self.systems = make_systems(names, settings, recall_only=recall_only, claimhop=claimhop_system)
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
    node's CPUs, with the environment this process checked (the last of `args`)."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    remote = ray.remote(worker)
    started = {}
    for node in ray.nodes():
        if not node.get("Alive") or not node["Resources"].get("CPU") or node["NodeID"] in running:
            continue
        strategy = NodeAffinitySchedulingStrategy(node["NodeID"], soft=False)
        started[node["NodeID"]] = remote.options(
            num_cpus=node["Resources"]["CPU"], scheduling_strategy=strategy, max_restarts=0, max_concurrency=1,
            runtime_env={"env_vars": runtime_env_vars(args[-1])}).remote(*args)
    return started


def dispatch(jobs: list, worker: type, args: tuple, on_row: Callable[[dict], None], desc: str,
             on_failure: Callable[[Any, str, int], None], retries: int = 3) -> dict[str, Any]:
    """Run every job on the cluster's workers; `on_row` gets each result row here, once per job. A job whose
    worker or node is gone (any Ray error but the job's own) goes back to the queue at once; one that raised goes
    back after the local batch's wait (`retry_wait`: 2 s, then 8 s), the workers taking other jobs meanwhile; one
    that raised ATTEMPTS times, or lost `retries` + 1 workers, is handed to `on_failure(job, error, attempts)`
    instead, and the rest go on."""
    import ray

    queue = deque(jobs)
    waiting: list[tuple[float, int, Any]] = []  # (when it may run again, order, job): jobs that raised, backing off
    order = itertools.count()

    def later(job: Any, seconds: float) -> None:
        heapq.heappush(waiting, (time.monotonic() + seconds, next(order), job))
    workers = start_workers(worker, args, {})  # node id -> its worker
    if not workers:
        raise ValueError("the Ray cluster has no node with CPUs to run on")
    counts: dict[str, Any] = {"workers": len(workers), "retried": 0, "failed": 0}
    running: dict[Any, tuple[str, Any]] = {}  # a job's pending result -> (node, job)
    tries: dict[int, int] = {}
    nodes: dict[str, int] = {}
    idle = list(workers)
    with tqdm(total=len(queue), desc=f"{desc} on {len(workers)} Ray workers", unit="job", file=sys.stderr) as bar:
        while queue or running or waiting:
            while waiting and waiting[0][0] <= time.monotonic():
                queue.appendleft(heapq.heappop(waiting)[2])  # its wait is over: the next free worker takes it
            while queue and idle:
                node, job = idle.pop(), queue.popleft()
                running[workers[node].run.remote(job)] = (node, job)
            if not running and (queue or not idle):
                raise ValueError("every Ray worker died and no alive node can take a new one; the rows written are "
                                 "kept: run the same command again when the cluster is back")
            if not running:  # only jobs waiting to be tried again
                time.sleep(max(0.0, waiting[0][0] - time.monotonic()))
                continue
            timeout = max(0.0, waiting[0][0] - time.monotonic()) if waiting else None
            ready, _ = ray.wait(list(running), num_returns=1, timeout=timeout)
            if not ready:  # a waiting job's time came first
                continue
            node, job = running.pop(ready[0])
            try:
                row = ray.get(ready[0])
            except ray.exceptions.RayTaskError as err:  # the job raised: its worker is fine
                idle.append(node)
                outcome = _retry_or_fail(job, tries, ATTEMPTS, _reason(err.cause or err), queue, on_failure, later)
            except ray.exceptions.RayError as err:  # the worker, its node or an object is gone
                outcome = _retry_or_fail(job, tries, retries + 1, _reason(err), queue, on_failure)
                counts.setdefault("worker errors", []).append(_reason(err)[:200])
                workers.pop(node, None)  # its node may be gone (and still listed alive for a while): no new
                fresh = start_workers(worker, args, {**workers, node: None})  # worker there; new nodes get one
                workers.update(fresh)
                idle.extend(fresh)
            else:
                on_row(row)
                nodes[row["node"]] = nodes.get(row["node"], 0) + 1
                idle.append(node)
                outcome = "done"
            counts[outcome] = counts.get(outcome, 0) + 1
            bar.update(0 if outcome == "retried" else 1)
    counts.pop("done", None)
    counts["jobs per node"] = {n[:12]: k for n, k in nodes.items()}
    return counts


def _reason(err: BaseException) -> str:
    """An error in one line, without Ray's traceback; for a worker that died starting, what its setup raised (Ray's
    own first line names only the actor)."""
    import ray

    setup = next((a for a in err.args if isinstance(a, ray.exceptions.RayTaskError)), None)
    if isinstance(err, ray.exceptions.ActorDiedError) and setup is not None and setup.cause is not None:
        return f"a worker died starting: {_reason(setup.cause)}"[:500]
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0] if text else ''}"[:500]


def _retry_or_fail(job: Any, tries: dict[int, int], limit: int, reason: str, queue: deque,
                   on_failure: Callable[[Any, str, int], None],
                   later: Callable[[Any, float], None] | None = None) -> str:
    """Queue the job again (at once, or with `later` after the local batch's wait for this try), or after `limit`
    tries give it to `on_failure`: 'retried' or 'failed'."""
    tries[id(job)] = tries.get(id(job), 0) + 1
    if tries[id(job)] >= limit:
        on_failure(job, reason, tries[id(job)])
        return "failed"
    if later is None:
        print(f"a job is tried again ({reason[:200]})", file=sys.stderr)
        queue.appendleft(job)  # the next free worker takes it
    else:
        wait = retry_wait(tries[id(job)])
        print(f"a job is tried again in {wait:g} s ({reason[:200]})", file=sys.stderr)
        later(job, wait)
    return "retried"


def check_on_ray(claims: list[dict[str, str]], out: Path, settings: dict[str, Any], address: str) -> dict[str, Any]:
    """`check --file --ray`: every claim not yet in `out`, one line each, written here only."""
    from graph.durable import checkpoints_target, is_postgres
    from state.validation import validate_claim

    connect(address)
    note_withheld()
    if not is_postgres(checkpoints_target()):
        print("note: CLAIMHOP_CHECKPOINTS is not a postgresql:// database, so each node keeps its own checkpoints "
              "and a claim a dead node was checking starts again from its beginning", file=sys.stderr)
    retried = forget_failures(out)
    done = finished_ids(out)
    todo: list[dict[str, str]] = []
    counts: dict[str, Any] = {"claims": len(claims), "already done": 0, "failed before, retried": retried,
                              "checked": 0, "refused": 0}
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

    def give_up(item: dict, error: str, attempts: int) -> None:
        append_row(out, failed_row(item, error, attempts))

    cluster = dispatch(todo, ClaimWorker, (settings, shipped_env()), write, "check", give_up)
    return {**counts, **cluster}


def eval_on_ray(claims: list[dict], names: list[str], settings: dict[str, Any], recall_only: bool, out: Path,
                fingerprints: dict[str, str], address: str) -> list[dict]:
    """`eval --ray`: every (system, claim) pair not yet in `out`, as `run_eval` would run them; all rows."""
    from claimhop.evaluation.runner import todo_pairs

    connect(address)
    note_withheld()
    done, todo = todo_pairs(claims, names, out, fingerprints)

    def write(row: dict) -> None:
        append_row(out, row)
        done[(row["system"], row["uid"])] = row

    def give_up(job: tuple[str, dict], error: str, attempts: int) -> None:
        raise ValueError(f"eval: {job[0]} on claim {job[1]['uid']} failed {attempts} times ({error}); the rows "
                         "written are kept: run the same command again to go on")

    dispatch(todo, EvalWorker, (names, settings, recall_only, fingerprints, shipped_env()), write, "eval", give_up)
    return [done[(s, c["uid"])] for c in claims for s in names]
