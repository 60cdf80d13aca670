"""Checkpointed CLI runs: every finished node is written to SQLite before the next starts, so a check that was
killed or interrupted resumes from its last finished node (`claimhop check --resume THREAD`)."""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from claimhop.cache_root import cache_root


def checkpoints_path() -> Path:
    return cache_root() / "checkpoints.sqlite"


RUNS_TABLE = """CREATE TABLE IF NOT EXISTS claimhop_runs (
    thread_id TEXT PRIMARY KEY, settings TEXT NOT NULL, started REAL NOT NULL)"""


class DurableChecks:
    """The claimhop graph compiled with a SQLite checkpointer (WAL, committed per step), plus each thread's
    settings in a table beside LangGraph's, so `--resume` runs with the settings the check started with."""

    def __init__(self, path: Path | None = None):
        from langgraph.checkpoint.sqlite import SqliteSaver

        from graph import build_graph

        self.path = path or checkpoints_path()
        self.connection = sqlite3.connect(str(self.path), check_same_thread=False)
        self.connection.execute("PRAGMA journal_mode=WAL")
        self.connection.execute(RUNS_TABLE)
        self.connection.commit()
        self.app = build_graph().compile(checkpointer=SqliteSaver(self.connection), name="claimhop")

    def start(self, settings: dict[str, Any]) -> str:
        thread_id = uuid.uuid4().hex[:12]
        with self.connection:
            self.connection.execute("INSERT INTO claimhop_runs VALUES (?, ?, ?)",
                                    (thread_id, json.dumps(settings), time.time()))
        return thread_id

    def saved(self, thread_id: str) -> tuple[dict[str, Any], bool, dict[str, Any]]:
        """(values, finished, settings) of a checkpointed thread; ValueError when there is none."""
        snapshot = self.app.get_state(thread_config(thread_id))
        if not snapshot.values:
            raise ValueError(f"no checked claim with thread id {thread_id!r} in {self.path}")
        row = self.connection.execute("SELECT settings FROM claimhop_runs WHERE thread_id = ?", (thread_id,)).fetchone()
        # A node that finished after the last checkpoint left its writes behind: it is a task, not `next`.
        finished = not snapshot.next and not snapshot.tasks
        return snapshot.values, finished, json.loads(row[0]) if row else {}

    def close(self) -> None:
        self.connection.close()


@contextmanager
def durable_checks(path: Path | None = None):
    checks = DurableChecks(path)
    try:
        yield checks
    finally:
        checks.close()


def thread_config(thread_id: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread_id}}
