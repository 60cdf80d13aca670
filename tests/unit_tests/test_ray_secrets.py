"""No key or password goes to a Ray cluster (issue 56): what a `--ray` batch hands Ray (the actors' `runtime_env`,
readable by anyone who can list the cluster's actors, and their arguments) holds the database URLs without their
password and no key; a worker keeps its node's own keys, and takes its node's password for the same database.
Ray's calls are faked in this process (the environment is under test, not Ray)."""

from __future__ import annotations

import json
import os

import pytest

import claimhop.cli.distributed as distributed

SECRET = "s3cret-pw"
DRIVER = {
    "CLAIMHOP_PG_URL": f"postgresql://ann:{SECRET}@db.example:5433/claims?sslmode=require&application_name=ch",
    "CLAIMHOP_CHECKPOINTS": f"postgresql://ann@db.example/checks?password={SECRET}&sslpassword={SECRET}",
    "CLAIMHOP_MODEL_API_KEY": "driver-model-key", "OPENAI_API_KEY": "driver-openai-key",
    "ANTHROPIC_API_KEY": "driver-anthropic-key", "CLAIMHOP_SEARCH_TOKEN": "driver-token",
    "CLAIMHOP_DB_PASSWORD": SECRET, "CLAIMHOP_SERVER_KEY": "driver-server-key",
    "CLAIMHOP_MAX_ITERATIONS": "1", "OPENAI_API_BASE": "http://10.0.0.5:8000/v1", "PATH": "/usr/bin",
}
KEYS = ("CLAIMHOP_MODEL_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "CLAIMHOP_SEARCH_TOKEN",
        "CLAIMHOP_DB_PASSWORD", "CLAIMHOP_SERVER_KEY")


def use_environment(monkeypatch, env: dict[str, str]) -> None:
    """This process's environment is exactly `env` for the test (and restored after it)."""
    monkeypatch.setattr(os, "environ", dict(env))


def test_the_shipped_environment_holds_no_password_and_no_key(monkeypatch):
    use_environment(monkeypatch, DRIVER)
    shipped = distributed.shipped_env()
    assert SECRET not in json.dumps(shipped) and not any(key in shipped for key in KEYS), shipped
    assert "driver-" not in json.dumps(shipped)
    # everything else of the URLs is kept as it was given
    assert shipped["CLAIMHOP_PG_URL"] == "postgresql://ann@db.example:5433/claims?sslmode=require&application_name=ch"
    assert shipped["CLAIMHOP_CHECKPOINTS"] == "postgresql://ann@db.example/checks"
    assert shipped["CLAIMHOP_MAX_ITERATIONS"] == "1" and shipped["OPENAI_API_BASE"] == "http://10.0.0.5:8000/v1"


def handed_to_ray(monkeypatch) -> dict:
    """What `start_workers` hands Ray for a worker, the driver's environment being DRIVER: the actor's options
    (its `runtime_env`) and its constructor's arguments."""
    import ray  # installed by the dev extra: a missing Ray fails this test, never skips it
    handed: list[dict] = []

    class Remote:
        def __init__(self, cls):
            pass

        def options(self, **options):
            return type("Options", (), {"remote": staticmethod(lambda *args: handed.append({**options, "args": args}))})()

    use_environment(monkeypatch, DRIVER)
    monkeypatch.setattr(ray, "remote", Remote)
    monkeypatch.setattr(ray, "nodes", lambda: [{"Alive": True, "Resources": {"CPU": 2.0}, "NodeID": "ab" * 28}])
    distributed.start_workers(distributed.ClaimWorker, ({}, distributed.shipped_env()), {})
    assert len(handed) == 1
    return handed[0]


def test_what_ray_is_handed_for_each_worker_holds_no_password_and_no_key(monkeypatch):
    handed = handed_to_ray(monkeypatch)
    text = json.dumps({"runtime_env": handed["runtime_env"], "args": handed["args"]})
    assert SECRET not in text and "driver-" not in text, text
    assert "CLAIMHOP_PG_URL" not in handed["runtime_env"]["env_vars"]  # the node's own stays readable
    assert handed["runtime_env"]["env_vars"]["CLAIMHOP_MAX_ITERATIONS"] == "1"


def on_a_node(monkeypatch, node_env: dict[str, str]) -> dict[str, str]:
    """A worker's environment once it has started (`ClaimWorker.__init__` calls `adopt_env` first) on a node whose
    `ray start` ran with `node_env`: Ray sets the `runtime_env`'s variables over the node's, then the worker adopts
    the environment its arguments carry."""
    handed = handed_to_ray(monkeypatch)
    use_environment(monkeypatch, {**node_env, **handed["runtime_env"]["env_vars"]})
    distributed.adopt_env(handed["args"][-1])
    return dict(os.environ)


def test_a_worker_keeps_its_nodes_own_keys_and_takes_its_password_for_the_same_database(monkeypatch):
    node = {"CLAIMHOP_MODEL_API_KEY": "node-model-key", "OPENAI_API_KEY": "node-openai-key",
            "CLAIMHOP_SEARCH_TOKEN": "node-token",
            # the same host, port, database and user as the driver's, written another way, with the node's password
            "CLAIMHOP_PG_URL": "postgresql://ann:node%40pw@DB.example:5433/claims",
            "CLAIMHOP_CHECKPOINTS": "postgresql://ann@db.example:5432/checks?password=node-pw2",
            "CLAIMHOP_TOP_K": "2"}  # a setting default only the node has: dropped, as before
    worker = on_a_node(monkeypatch, node)
    assert worker["CLAIMHOP_MODEL_API_KEY"] == "node-model-key" and worker["OPENAI_API_KEY"] == "node-openai-key"
    assert worker["CLAIMHOP_SEARCH_TOKEN"] == "node-token" and "ANTHROPIC_API_KEY" not in worker
    # the driver's URL (its options kept), with the node's password put back
    assert worker["CLAIMHOP_PG_URL"] == \
        "postgresql://ann:node%40pw@db.example:5433/claims?sslmode=require&application_name=ch"
    assert worker["CLAIMHOP_CHECKPOINTS"] == "postgresql://ann:node-pw2@db.example/checks"
    assert worker["CLAIMHOP_MAX_ITERATIONS"] == "1" and "CLAIMHOP_TOP_K" not in worker
    assert SECRET not in json.dumps(worker) and "driver-" not in json.dumps(worker)


@pytest.mark.parametrize("own", [
    "postgresql://ann:node-pw@other.example:5433/claims",  # another host
    "postgresql://ann:node-pw@db.example:5432/claims",  # another port
    "postgresql://ann:node-pw@db.example:5433/other",  # another database
    "postgresql://bob:node-pw@db.example:5433/claims",  # another user
    "/var/lib/claimhop/checks.sqlite",  # not a database URL
])
def test_a_nodes_url_for_another_database_gives_no_password(monkeypatch, own):
    worker = on_a_node(monkeypatch, {"CLAIMHOP_PG_URL": own})
    assert worker["CLAIMHOP_PG_URL"] == "postgresql://ann@db.example:5433/claims?sslmode=require&application_name=ch"
    assert "node-pw" not in json.dumps(worker)  # libpq's PGPASSWORD or ~/.pgpass on the node applies


def test_the_driver_says_once_how_nodes_give_the_password(monkeypatch, capsys):
    use_environment(monkeypatch, {"CLAIMHOP_PG_URL": DRIVER["CLAIMHOP_PG_URL"]})
    distributed.note_withheld()
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and SECRET not in err
    assert all(word in err for word in ("CLAIMHOP_PG_URL", "PGPASSWORD", "~/.pgpass", "ray start"))
    use_environment(monkeypatch, {"CLAIMHOP_PG_URL": "postgresql://ann@db.example/claims"})
    distributed.note_withheld()
    assert capsys.readouterr().err == ""


def test_a_libpq_keyword_string_loses_its_password_too():
    from claimhop.database_url import without_password

    assert without_password("host=db.example user=ann password='a b' sslpassword=x dbname=c") == \
        "host=db.example user=ann dbname=c"
