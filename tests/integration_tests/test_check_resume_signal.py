"""A real check killed by a real SIGINT mid-way (real model, real index) resumes with `claimhop check --resume`:
the steps that had finished are not run again and the check ends with a cited verdict."""

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

from answers import assert_a_consistent_answer
from claims import hover_claim

ROOT = Path(__file__).resolve().parents[2]


def claimhop(*args: str) -> list[str]:
    return [sys.executable, "-m", "claimhop.cli.main", "check", *args]


def lines_of(stream, into: queue.Queue) -> None:
    for line in stream:
        into.put(line)


def test_a_killed_check_resumes_from_its_last_finished_step(tmp_path):
    env = {**os.environ, "CLAIMHOP_HOME": str(tmp_path / "home")}  # fresh checkpoints and model cache: real calls
    claim = hover_claim("0012d9a6")["claim"]
    errors_path = tmp_path / "stderr.txt"
    errors = errors_path.open("w")
    proc = subprocess.Popen(claimhop(claim, "--set", "max_iterations=1"), cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=errors)  # a file: a pipe nobody reads could fill and block it
    printed: queue.Queue = queue.Queue()
    threading.Thread(target=lines_of, args=(proc.stdout, printed), daemon=True).start()
    seen: list[str] = []
    deadline = time.time() + 900
    # the first hop is printed by dual_retrieval, so decompose and early_gap have finished and been checkpointed
    while not any(line.startswith("[dual_retrieval]") for line in seen):
        assert proc.poll() is None and time.time() < deadline, "the check ended before it could be interrupted"
        try:
            seen.append(printed.get(timeout=1))
        except queue.Empty:
            pass
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=30)
    assert proc.returncode != 0  # it really was interrupted
    thread = re.search(r"check --resume (\w+)", errors_path.read_text()).group(1)
    sub_questions = [line.strip()[2:] for line in seen if line.startswith("    - ")]

    resumed = subprocess.run(claimhop("--resume", thread, "--json"), cwd=ROOT, env=env, capture_output=True,
                             text=True, timeout=1200, check=False)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert "[decompose]" not in resumed.stderr and "[early_gap]" not in resumed.stderr  # not run again
    assert "[bridge]" in resumed.stderr and "[verify]" in resumed.stderr
    result = json.loads(resumed.stdout)
    assert result["sub_questions"] == sub_questions  # the finished steps' results were kept
    # bridge, one gap round and the passage verifier's one reading: no step that had finished is repeated
    assert result["local_model"]["calls"] <= 3
    assert len({d["title"] for d in result["selected"]}) == 21
    assert_a_consistent_answer(result)
    assert result["answer"].startswith("Verdict: ")
