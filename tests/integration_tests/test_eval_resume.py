"""`claimhop eval` interrupted by Ctrl-C (a real SIGINT to a real process) resumes where it stopped:
no finished row is lost or recomputed."""

import json
import signal
import subprocess
import sys
import time


def eval_cmd(out):
    return [sys.executable, "-m", "claimhop.cli.main", "eval", "--systems", "bm25,hybrid", "--out", str(out)]


def rows(out):
    """The rows written so far: a line the run is still writing (no newline yet) is not a row."""
    text = out.read_text() if out.exists() else ""
    return [json.loads(line) for line in text[: text.rfind("\n") + 1].splitlines()]


def test_interrupted_eval_resumes_without_redoing_rows(tmp_path):
    out = tmp_path / "eval.jsonl"
    proc = subprocess.Popen(eval_cmd(out), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 600  # a fresh machine builds the index first
    while len(rows(out)) < 20 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=10)
    first = rows(out)
    assert 20 <= len(first) < 2 * 169, "the run was not interrupted mid-way"

    finished = subprocess.run(eval_cmd(out), capture_output=True, text=True, timeout=300, check=False)
    assert finished.returncode == 0, finished.stderr[-2000:]
    assert "| bm25 |" in finished.stdout and (tmp_path / "eval.png").stat().st_size > 0
    final = rows(out)
    keys = [(r["system"], r["uid"]) for r in final]
    assert len(keys) == len(set(keys)) == 2 * 169  # every pair once: nothing redone, nothing missing
    assert final[: len(first)] == first  # rows written before the interruption are untouched
