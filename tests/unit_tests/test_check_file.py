"""`claimhop check --file`: claims from JSONL, CSV or standard input, one fsynced result line each, resumed by
id; bad files fail with a message naming the problem. The graph runs on the small real corpus with a fake LM
(the batch wiring is under test, not the model)."""

from __future__ import annotations

import io
import json

import pytest
from fakes import fake_lm
from test_graph_routing import answers

import claimhop.cli.main
import claimhop.program.runtime
from claimhop.cli.batch import read_claims

CLAIMS = ["Steve Augeri is American.", "Cherie Currie sang for The Runaways."]


def run_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        code = claimhop.cli.main.main(argv)
    except SystemExit as stop:
        code = stop.code
    out = capsys.readouterr()
    return code, out.out, out.err


def rows(path) -> list[dict]:
    """Every line of a results file, each a whole JSON object (split at "\\n" only, as JSON Lines are)."""
    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n")
    return [json.loads(line) for line in text[:-1].split("\n")]


@pytest.fixture
def fake_model(monkeypatch):
    lm, engine = fake_lm(answers())
    monkeypatch.setattr(claimhop.program.runtime, "get_lm", lambda model: lm)
    return engine


def settings(small_corpus) -> list[str]:
    return ["--corpus", str(small_corpus), "--set", "use_optimized_program=false", "--set", "verifier=single"]


def test_a_jsonl_file_is_checked_once_and_a_rerun_resumes(small_corpus, tmp_path, fake_model, capsys):
    claims = tmp_path / "claims.jsonl"
    claims.write_text("".join(json.dumps({"id": f"c{i}", "claim": c}) + "\n" for i, c in enumerate(CLAIMS)))
    out = tmp_path / "results.jsonl"
    code, stdout, _ = run_cli(["check", "--file", str(claims), "--out", str(out), *settings(small_corpus)], capsys)
    assert code == 0 and json.loads(stdout)["checked"] == 2
    first = rows(out)
    assert [r["id"] for r in first] == ["c0", "c1"]
    # the fake model judges every claim supported on evidence it cites; the answer says so first
    assert all(r["verdict"] == "SUPPORTED" and r["answer"].startswith("Verdict: SUPPORTED") for r in first)
    assert all(r["documents"] for r in first)
    claims.write_text(claims.read_text() + json.dumps({"id": "c2", "claim": "   "}) + "\n")
    code, stdout, _ = run_cli(["check", "--file", str(claims), "--out", str(out), *settings(small_corpus)], capsys)
    report = json.loads(stdout)
    assert code == 0 and report["already done"] == 2 and report["checked"] == 0 and report["refused"] == 1
    assert rows(out)[:2] == first and "empty" in rows(out)[2]["error"]  # nothing redone, the blank claim named


def test_csv_and_standard_input_give_the_same_claims(tmp_path, monkeypatch):
    csv_file = tmp_path / "claims.csv"
    csv_file.write_text('claim\n"Steve Augeri is American."\n"Cherie Currie sang for The Runaways."\n')
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(CLAIMS) + "\n"))
    from_stdin = read_claims("-")
    assert [c["claim"] for c in read_claims(str(csv_file))] == [c["claim"] for c in from_stdin] == CLAIMS
    assert read_claims(str(csv_file))[0]["id"] == from_stdin[0]["id"]  # same text, same id: resumable either way


@pytest.mark.parametrize("content, problem", [
    ('{"claim": "ok"}\nnot json\n', ":2: not valid JSON"),
    ('{"id": "a", "claim": "x"}\n{"id": "b", "claim": "y"}\n{"id": "a", "claim": "z"}\n',
     "1 duplicate claim id(s): id 'a' on lines 1, 3"),
    ('{"claim": "same"}\n{"claim": "same"}\n', "on lines 1, 2"),
    ('{"text": "no claim field"}\n', ':1: expected an object with a "claim" string'),
    ("", "no claims in"),
])
def test_a_bad_claims_file_is_named_with_its_line(tmp_path, capsys, content, problem):
    claims = tmp_path / "claims.jsonl"
    claims.write_text(content)
    code, _, err = run_cli(["check", "--file", str(claims)], capsys)
    assert code == 2 and problem in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def write_claims(path, claims: dict[str, str]) -> None:
    path.write_text("".join(json.dumps({"id": i, "claim": c}, ensure_ascii=False) + "\n" for i, c in claims.items()),
                    encoding="utf-8")


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\u0085"])
def test_a_claim_holding_a_unicode_line_separator_is_resumed_not_checked_twice(
        small_corpus, tmp_path, fake_model, capsys, monkeypatch, separator):
    monkeypatch.setenv("CLAIMHOP_CHECKPOINTS", str(tmp_path / "checkpoints.sqlite"))
    claims, out = tmp_path / "claims.jsonl", tmp_path / "results.jsonl"
    write_claims(claims, {"c0": f"Steve Augeri is American.{separator}He sang for Journey.", "c1": CLAIMS[1]})
    code, stdout, _ = run_cli(["check", "--file", str(claims), "--out", str(out), *settings(small_corpus)], capsys)
    assert code == 0 and json.loads(stdout)["checked"] == 2
    assert separator in out.read_text(encoding="utf-8")  # written as it is (ensure_ascii=False)
    code, stdout, _ = run_cli(["check", "--file", str(claims), "--out", str(out), *settings(small_corpus)], capsys)
    assert code == 0 and json.loads(stdout)["already done"] == 2 and json.loads(stdout)["checked"] == 0
    assert [r["id"] for r in rows(out)] == ["c0", "c1"]


@pytest.mark.parametrize("torn, kept", [
    ('{"id": "c1", "claim": "Cherie Cur', ["c0"]),  # half a row: cut off, its claim checked again
    ('{"id": "c1", "claim": "x", "verdict": "SUPPORTED"}', ["c0", "c1"]),  # a whole row missing its newline
])
def test_a_torn_last_line_is_repaired_before_the_next_row(small_corpus, tmp_path, fake_model, capsys, monkeypatch,
                                                         torn, kept):
    monkeypatch.setenv("CLAIMHOP_CHECKPOINTS", str(tmp_path / "checkpoints.sqlite"))
    claims, out = tmp_path / "claims.jsonl", tmp_path / "results.jsonl"
    write_claims(claims, {"c0": CLAIMS[0], "c1": CLAIMS[1], "c2": "The Runaways were American."})
    out.write_text(json.dumps({"id": "c0", "claim": CLAIMS[0], "verdict": "SUPPORTED"}) + "\n" + torn)
    code, stdout, _ = run_cli(["check", "--file", str(claims), "--out", str(out), *settings(small_corpus)], capsys)
    assert code == 0 and json.loads(stdout)["already done"] == len(kept)
    assert [r["id"] for r in rows(out)] == [*kept, *[i for i in ("c1", "c2") if i not in kept]]  # each once, whole


def test_a_claim_that_raises_gets_a_failed_row_the_batch_goes_on_and_a_rerun_retries_only_it(
        small_corpus, tmp_path, fake_model, capsys, monkeypatch):
    import claimhop.cli.batch
    import graph.durable

    monkeypatch.setenv("CLAIMHOP_CHECKPOINTS", str(tmp_path / "checkpoints.sqlite"))
    monkeypatch.setattr(claimhop.cli.batch, "RETRY_WAIT_S", (0.0,))
    real = graph.durable.DurableChecks.run_claim
    tries: list[str] = []

    def broken_for_c1(self, claim_id, *args, **kwargs):
        tries.append(claim_id)
        if claim_id == "c1":
            raise ConnectionError("server closed the connection unexpectedly\n\tThis probably means ...")
        return real(self, claim_id, *args, **kwargs)

    monkeypatch.setattr(graph.durable.DurableChecks, "run_claim", broken_for_c1)
    claims, out = tmp_path / "claims.jsonl", tmp_path / "results.jsonl"
    write_claims(claims, {"c0": CLAIMS[0], "c1": CLAIMS[1], "c2": "The Runaways were American."})
    code, stdout, err = run_cli(["check", "--file", str(claims), "--out", str(out), *settings(small_corpus)], capsys)
    report = json.loads(stdout)
    assert code == 1 and report["checked"] == 2 and report["failed"] == 1 and "Traceback" not in err
    assert tries.count("c1") == 3  # retried, then given up on
    failed = {r["id"]: r for r in rows(out)}["c1"]
    assert failed["failed"] and failed["error"] == "ConnectionError: server closed the connection unexpectedly"
    monkeypatch.setattr(graph.durable.DurableChecks, "run_claim", real)  # the fault is gone
    code, stdout, _ = run_cli(["check", "--file", str(claims), "--out", str(out), *settings(small_corpus)], capsys)
    report = json.loads(stdout)
    assert code == 0 and report["failed before, retried"] == 1 and report["checked"] == 1
    assert sorted(r["id"] for r in rows(out)) == ["c0", "c1", "c2"]  # one line each, the failed one replaced
    assert {r["id"]: r for r in rows(out)}["c1"]["verdict"] == "SUPPORTED"


def test_a_second_run_on_the_same_out_is_refused_at_once_while_another_holds_it(small_corpus, tmp_path, fake_model,
                                                                                capsys, monkeypatch):
    """Two runs appending to one results file interleave their rows and check the same claims twice: while one run
    holds the file (its lock beside it, `RESULTS.lock`), a second stops before anything, exit 2, naming the file."""
    import fcntl
    import os

    monkeypatch.setenv("CLAIMHOP_CHECKPOINTS", str(tmp_path / "checkpoints.sqlite"))
    claims, out = tmp_path / "claims.jsonl", tmp_path / "results.jsonl"
    write_claims(claims, {"c0": CLAIMS[0], "c1": CLAIMS[1]})
    first_run = os.open(tmp_path / "results.jsonl.lock", os.O_CREAT | os.O_RDWR)  # the other run, holding the file
    fcntl.flock(first_run, fcntl.LOCK_EX | fcntl.LOCK_NB)
    try:
        code, stdout, err = run_cli(["check", "--file", str(claims), "--out", str(out), *settings(small_corpus)],
                                    capsys)
        assert code == 2 and stdout == ""
        assert err.strip() == (f"claimhop: error: {out} is being written by another run (it holds {out}.lock); wait "
                               "for that run to end, or give this one another --out")
        assert not out.exists() and not fake_model.calls  # nothing checked, nothing written
    finally:
        os.close(first_run)  # that run ended
    code, stdout, _ = run_cli(["check", "--file", str(claims), "--out", str(out), *settings(small_corpus)], capsys)
    assert code == 0 and json.loads(stdout)["checked"] == 2 and [r["id"] for r in rows(out)] == ["c0", "c1"]
