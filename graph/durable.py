"""Checkpointed runs (the CLI's checks and batches, `check_claim`, `claimhop eval`): every finished node is written before the next starts, so a check that was killed or
interrupted resumes from its last finished node (`claimhop check --resume THREAD`).

Where checkpoints live is CLAIMHOP_CHECKPOINTS: unset, a SQLite file in the cache folder (the embedded default);
a path, that SQLite file; a `postgresql://` URL, that database through `langgraph-checkpoint-postgres`, so a
claim interrupted on one machine resumes on any other that reaches the database, by its thread id."""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from claimhop.cache_root import cache_root
from claimhop.redact import shown_url

CHECKPOINTS_ENV = "CLAIMHOP_CHECKPOINTS"
FINGERPRINT_KEY = "claimhop_fingerprint"  # the checkpoint metadata naming the verdict fingerprint a step ran under
RECORD_KEY = "claimhop_verdict_record"  # the metadata holding what that fingerprint is made of (JSON): names a change
SETUP_LOCK = 7203641  # the PostgreSQL advisory lock that makes table creation one process at a time
SETUP_WAIT = 300.0  # seconds a process waits for another's table creation before saying so
RUNS_TABLE = """CREATE TABLE IF NOT EXISTS claimhop_runs (
    thread_id TEXT PRIMARY KEY, settings TEXT NOT NULL, started DOUBLE PRECISION NOT NULL)"""
log = logging.getLogger("claimhop")


def checkpoints_path() -> Path:
    return cache_root() / "checkpoints.sqlite"


def checkpoints_target() -> str:
    """CLAIMHOP_CHECKPOINTS, or the default SQLite file."""
    return os.environ.get(CHECKPOINTS_ENV, "").strip() or str(checkpoints_path())


def is_postgres(target: str) -> bool:
    return target.startswith(("postgresql://", "postgres://"))


def shown(target: str) -> str:
    """Where checkpoints are, for messages: a database URL without its credentials (userinfo and ?password=)."""
    return shown_url(target) if is_postgres(target) else target


def until_written(stream, key: str) -> dict[str, Any]:
    """The state right after a node of this check wrote `key` (intake, which clears it for a new check, does not
    count), leaving the stream there, which stops the run; the final state if no node writes it."""
    values: dict[str, Any] = {}
    written = False
    for mode, chunk in stream:
        if mode == "updates":
            written = written or any(node != "intake" and isinstance(update, dict) and key in update
                                     for node, update in chunk.items())
        else:
            values = chunk
            if written:
                break
    return values


class DurableChecks:
    """The claimhop graph compiled with a checkpointer (SQLite in WAL mode, or PostgreSQL; committed per step),
    plus each thread's settings in a table beside LangGraph's, so `--resume` runs with the settings the check
    started with."""

    def __init__(self, target: str | Path | None = None, labels: dict[str, str] | None = None):
        """`labels`: plain values every checkpoint `run` writes carries in its metadata (a Ray worker's node, so a
        batch's checkpoints show which node ran each step)."""
        from graph.builder import build_graph

        self.target = str(target or checkpoints_target())
        self.labels = dict(labels or {})
        if is_postgres(self.target):
            from langgraph.checkpoint.postgres import PostgresSaver

            self.connection, self.param = _postgres_pool(self.target), "%s"
            saver = PostgresSaver(self.connection)
            # workers starting together (a Ray cluster) would race to create the tables: one at a time
            with self.connection.connection() as conn, _setup_lock(conn, self.target):
                PostgresSaver(conn).setup()
                conn.execute(RUNS_TABLE)
        else:
            from langgraph.checkpoint.sqlite import SqliteSaver

            self.connection = sqlite3.connect(self.target, check_same_thread=False)
            self.connection.execute("PRAGMA journal_mode=WAL")
            saver, self.param = SqliteSaver(self.connection), "?"
            self.connection.execute(RUNS_TABLE)
            self.connection.commit()
        self.app = build_graph().compile(checkpointer=saver, name="claimhop")

    def execute(self, sql: str, params: tuple = ()) -> list[Any]:
        """A statement on the store's own tables and its rows: on SQLite in a transaction, on PostgreSQL on a
        pooled connection (a dead one, after a database restart, is replaced rather than failing every claim)."""
        if isinstance(self.connection, sqlite3.Connection):
            with self.connection:
                return self.connection.execute(sql, params).fetchall()
        with self.connection.connection() as conn:
            cursor = conn.execute(sql, params)
            return cursor.fetchall() if cursor.description else []

    def start(self, settings: dict[str, Any], thread_id: str | None = None) -> str:
        """Record a new thread (its settings), or keep the first record of a given one."""
        thread_id = thread_id or uuid.uuid4().hex[:12]
        self.execute(f"INSERT INTO claimhop_runs VALUES ({self.param}, {self.param}, {self.param}) "
                     "ON CONFLICT (thread_id) DO NOTHING", (thread_id, json.dumps(settings), time.time()))
        return thread_id

    def saved(self, thread_id: str) -> tuple[dict[str, Any], bool, dict[str, Any]]:
        """(values, finished, settings) of a checkpointed thread; ValueError when there is none."""
        values, finished = self.progress(thread_id)
        if not values:
            raise ValueError(f"no checked claim with thread id {thread_id!r} in {shown(self.target)}")
        rows = self.execute(f"SELECT settings FROM claimhop_runs WHERE thread_id = {self.param}", (thread_id,))
        return values, finished, json.loads(_first(rows[0])) if rows else {}

    def progress(self, thread_id: str) -> tuple[dict[str, Any], bool]:
        """(values, finished) of a thread; empty values for one never started."""
        values, finished, _ = self._state(thread_id)
        return values, finished

    def _state(self, thread_id: str) -> tuple[dict[str, Any], bool, dict[str, Any]]:
        """(values, finished, its last checkpoint's metadata: the verdict fingerprint it ran under, if recorded)
        of a thread."""
        snapshot = self.app.get_state(thread_config(thread_id))
        # A node that finished after the last checkpoint left its writes behind: it is a task, not `next`.
        finished = bool(snapshot.values) and not snapshot.next and not snapshot.tasks
        return snapshot.values or {}, finished, dict(snapshot.metadata or {})

    def metadata(self, thread_id: str) -> dict[str, Any]:
        """The thread's last checkpoint's metadata (its verdict fingerprint, `changed_since` reads it)."""
        return self._state(thread_id)[2]

    def run(self, claim: str, thread_id: str, context: Any, until: str | None = None,
            fingerprint: str | None = None, record: dict[str, Any] | None = None) -> dict[str, Any]:
        """The claim's final state on this thread: run from the start, resumed from the last finished node, or
        (finished before) read back. A thread holding another claim starts a new check of this one (its old claim is
        neither finished nor read back). With `fingerprint` (`claimhop.program.fingerprint.verdict_fingerprint` of
        the run's settings), every step records it (and `record`, what it was made of), and a thread whose check ran
        under another one (an upgrade, a changed setting, model, head, corpus or index) starts a new check of the
        claim too, saying so and what changed in the log, as an unnamed check gets a new thread. With `until`, the
        state as soon as that key holds something (the run stops there; a new check starts with it cleared)."""
        values, finished, metadata = self._state(thread_id)
        change = changed_since(metadata, fingerprint, record) if values and fingerprint else None
        if values and not holds(values, claim):
            values, finished = {}, False
        elif change:
            log.warning("thread %r holds a check of this claim made under %s: checking the claim afresh on the same "
                        "thread", thread_id, change)
            values, finished = {}, False
        if finished or (until and values.get(until)):
            return values
        payload, config = None if values else {"claim": claim}, thread_config(thread_id, fingerprint, record)
        if self.labels:
            config["metadata"] = {**config.get("metadata", {}), **self.labels}
        if until is None:
            return self.app.invoke(payload, config, context=context, durability="sync")
        return until_written(self.app.stream(payload, config, context=context, stream_mode=["updates", "values"],
                                             durability="sync"), until)

    def run_claim(self, claim_id: str, claim: str, settings: dict[str, Any], context: Any,
                  until: str | None = None) -> dict[str, Any]:
        """`run` on the claim's own thread (`claim_thread`, named by what decides its verdict), recorded with its
        settings."""
        from claimhop.program.fingerprint import key_of, verdict_parts, verdict_record
        from state.context import Context

        ctx = Context.from_any(context)
        parts = verdict_parts(ctx)
        fingerprint = key_of(parts)
        thread_id = claim_thread(claim_id, claim, fingerprint)
        record = verdict_record(ctx, parts)
        return self.run(claim, self.start(settings, thread_id), context, until, fingerprint, record)

    def close(self) -> None:
        self.connection.close()


def holds(values: dict[str, Any], claim: str) -> bool:
    """Whether a thread's state is a check of `claim` (as intake recorded it: without instructions to the
    checker), rather than of another claim made on the same thread."""
    from state.instructions import split_instructions

    recorded = values.get("claim")
    return recorded is None or recorded in (claim, split_instructions(claim)[0])


POOL_SIZE = 4  # PostgreSQL connections a checkpointer holds (not tuned: checks on one machine seldom run 4 at once)


def _postgres_pool(url: str):
    """A pool of connections as langgraph-checkpoint-postgres documents them (autocommit, dict rows, no prepared
    statements), each checked before use, so a restarted database or a killed idle connection costs a reconnect,
    not every later claim; a clear error when the package or the server is missing."""
    try:
        from psycopg import Connection
        from psycopg.rows import dict_row
        from psycopg_pool import ConnectionPool
    except ImportError:
        raise ValueError(f"{CHECKPOINTS_ENV} names a PostgreSQL database: install the extra, "
                         "pip install -e \".[postgres]\"") from None
    settings = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}
    try:
        Connection.connect(url, **settings).close()  # a clear error now, not a pool timeout later
    except Exception as err:  # noqa: BLE001 - psycopg raises several kinds; each is bad configuration here
        reason = str(err).replace(url, shown(url)).splitlines()[0][:300]
        raise ValueError(f"cannot keep checkpoints in {shown(url)} ({CHECKPOINTS_ENV}): {reason}") from None
    return ConnectionPool(url, min_size=1, max_size=POOL_SIZE, kwargs=settings, open=True,
                          check=ConnectionPool.check_connection, name="claimhop-checkpoints")


@contextmanager
def _setup_lock(conn: Any, target: str, wait: float = SETUP_WAIT):
    """Hold the setup lock on `conn` (autocommit) for the block. Polled with pg_try_advisory_lock, not waited for
    in pg_advisory_lock: a process blocked in that call holds a snapshot, and the holder's migrations (CREATE INDEX
    CONCURRENTLY) wait for every older snapshot to end, so two workers starting together deadlocked."""
    deadline = time.monotonic() + wait
    while not _first(conn.execute("SELECT pg_try_advisory_lock(%s)", (SETUP_LOCK,)).fetchone()):
        if time.monotonic() > deadline:
            raise ValueError(f"the checkpoint tables in {shown(target)} were being set up by another process for "
                             f"over {wait:.0f} s; end it, or run this again when it is done")
        time.sleep(0.2)
    try:
        yield
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (SETUP_LOCK,))


def _first(row: Any) -> Any:
    return next(iter(row.values())) if isinstance(row, dict) else row[0]


@contextmanager
def durable_checks(target: str | Path | None = None):
    checks = DurableChecks(target)
    try:
        yield checks
    finally:
        checks.close()


def claim_thread(claim_id: str, claim: str, fingerprint: str) -> str:
    """The checkpoint thread of one claim of a batch or evaluation: the same claim under the same verdict
    fingerprint (`claimhop.program.fingerprint`: code, model, verifier head, corpus and index, every resolved
    setting), the same thread, so a rerun anywhere that shares the checkpoints resumes it (or reads it back when
    finished), and an upgrade or any change that decides the verdict checks it afresh."""
    import hashlib

    key = json.dumps([claim_id, claim, fingerprint])
    return "claim-" + hashlib.sha256(key.encode()).hexdigest()[:16]


_SHARED: dict[str, DurableChecks] = {}


def shared_checks() -> DurableChecks:
    """One DurableChecks per process and store, for callers that run many claims (eval, `check_claim`)."""
    target = checkpoints_target()
    if target not in _SHARED:
        _SHARED[target] = DurableChecks(target)
    return _SHARED[target]


def thread_config(thread_id: str, fingerprint: str | None = None,
                  record: dict[str, Any] | None = None) -> dict[str, Any]:
    """A run's config on `thread_id`; with `fingerprint`, every checkpoint it writes records it in its metadata, and
    `record` (`claimhop.program.fingerprint.verdict_record`) beside it as JSON (LangGraph keeps only plain values
    there)."""
    config: dict[str, Any] = {"configurable": {"thread_id": thread_id}}
    if fingerprint:
        config["metadata"] = {FINGERPRINT_KEY: fingerprint}
        if record is not None:
            config["metadata"][RECORD_KEY] = json.dumps(record, sort_keys=True)
    return config


def changed_since(metadata: dict[str, Any], fingerprint: str, record: dict[str, Any] | None = None) -> str | None:
    """What changed between the run a checkpoint's `metadata` recorded and this one (its `fingerprint` and
    `record`), for messages: "verdict fingerprint OLD, not this run's NEW (setting max_iterations 2 -> 1; ...)";
    None when the fingerprints agree. Named part by part when both records are there, else by the keys alone."""
    from claimhop.program.fingerprint import what_changed

    recorded = metadata.get(FINGERPRINT_KEY)
    if recorded == fingerprint:
        return None
    try:
        earlier = json.loads(metadata.get(RECORD_KEY) or "null")
    except json.JSONDecodeError:
        earlier = None
    parts = what_changed(earlier, record) if isinstance(earlier, dict) and record is not None else []
    what = "; ".join(parts) or ("claimhop, a package, the model, the verifier head, the corpus, the index or a "
                                "setting changed")
    return f"verdict fingerprint {recorded or '(none recorded)'}, not this run's {fingerprint} ({what})"
