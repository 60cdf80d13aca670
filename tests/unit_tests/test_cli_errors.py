"""Bad input at the command line: exit status 2 and one line on stderr naming the problem, no traceback."""

import subprocess
import sys

import pytest


def claimhop(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "claimhop.cli.main", *args], capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize(
    "args, problem",
    [(["check", ""], "claim is empty"),
     (["check", "   "], "claim is empty"),
     (["check", "x" * 3000], "limit is 2000"),
     (["check", "A claim.", "--corpus", "/no/such/corpus.jsonl"], "corpus file not found"),
     (["check", "A claim.", "--set", "top_k=0"], "top_k"),
     (["check", "A claim.", "--set", "max_hops=3"], "max_hops"),
     (["index", "--corpus", "/no/such/corpus.jsonl"], "corpus file not found"),
     (["setup", "--corpus", "/no/such/folder"], "corpus file not found"),
     (["check", "A claim.", "--set", "program_path=/no/such/program.json"], "program_path: no program at"),
     (["check", "A claim.", "--set", "retriever=no_such_module:make"], "retriever 'no_such_module:make' cannot be loaded"),
     (["check", "A claim.", "--set", "reranker=no_such_module:make"], "reranker 'no_such_module:make' cannot be loaded"),
     (["eval", "--report-only", "--systems", ","], "--systems names no system"),
     (["eval", "--report-only", "--hops", "x"], "--hops expects hop counts"),
     (["eval", "--report-only", "--limit", "-1"], "--limit must be at least 1"),
     (["index", "--pgvector"], "set that environment variable"),
     # before any synthetic claim is made (model time) from the missing --synthetic file
     (["train-verifier", "--synthetic", "/no/such/synthetic.jsonl", "--retrieved-from", "/no/such/eval.jsonl"],
      "--retrieved-from /no/such/eval.jsonl: no such file"),
     (["train-verifier", "--chains", "/no/such/chains.jsonl"], "--chains /no/such/chains.jsonl: no such file"),
     (["train-verifier", "--retrieved-synthetic", "/no/such/folder"],
      "--retrieved-synthetic /no/such/folder: needs claims.jsonl and eval.jsonl")],
)
def test_bad_input_exits_2_with_one_line(args, problem):
    result = claimhop(*args)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert problem in lines[0] and "Traceback" not in result.stderr


def test_malformed_corpus_is_named(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"title": "A", "text": "ok"}\nnot json\n')
    result = claimhop("check", "A claim.", "--corpus", str(bad))
    assert result.returncode == 2
    assert "bad.jsonl:2: not valid JSON" in result.stderr


def test_an_argument_that_is_not_utf8_or_only_control_characters_is_an_empty_claim():
    for raw in (b"\xff\xfe", b"\x01\x02\x1b"):
        result = subprocess.run([sys.executable, "-m", "claimhop.cli.main", "check", raw], capture_output=True, timeout=120,
                                check=False)
        assert result.returncode == 2
        assert b"claim is empty" in result.stderr and b"Traceback" not in result.stderr


def test_a_corpus_that_is_not_utf8_is_named(tmp_path):
    bad = tmp_path / "latin1.jsonl"
    bad.write_bytes(b'{"title": "A", "text": "ok"}\n{"title": "B\xff", "text": "x"}\n')
    result = claimhop("index", "--corpus", str(bad))
    assert result.returncode == 2
    assert "cannot read corpus" in result.stderr and "latin1.jsonl" in result.stderr
    assert "utf-8" in result.stderr and "Traceback" not in result.stderr


def test_bad_settings_record_no_thread(tmp_path):
    """A check that fails on what its settings name leaves no thread behind to resume."""
    import os
    import sqlite3

    env = {**os.environ, "CLAIMHOP_HOME": str(tmp_path)}
    result = subprocess.run([sys.executable, "-m", "claimhop.cli.main", "check", "A claim.", "--set", "program_path=/no.json"],
                            capture_output=True, text=True, timeout=120, check=False, env=env)
    assert result.returncode == 2 and "program_path" in result.stderr
    database = tmp_path / "checkpoints.sqlite"
    if database.exists():
        assert sqlite3.connect(database).execute("SELECT count(*) FROM claimhop_runs").fetchone()[0] == 0


def test_rows_that_are_not_results_are_named_not_a_traceback(tmp_path):
    other = tmp_path / "other.jsonl"
    other.write_text('{"title": "A", "text": "not a result row"}\n')
    result = claimhop("eval", "--report-only", "--out", str(other))
    assert result.returncode == 2 and "no result rows" in result.stderr and "Traceback" not in result.stderr
