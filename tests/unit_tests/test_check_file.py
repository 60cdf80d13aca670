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
import claimhop.steps.common
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
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
def fake_model(monkeypatch):
    lm, engine = fake_lm(answers())
    monkeypatch.setattr(claimhop.steps.common, "get_lm", lambda model: lm)
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
    ('{"text": "no claim field"}\n', ':1: expected an object with a "claim" string'),
    ("", "no claims in"),
])
def test_a_bad_claims_file_is_named_with_its_line(tmp_path, capsys, content, problem):
    claims = tmp_path / "claims.jsonl"
    claims.write_text(content)
    code, _, err = run_cli(["check", "--file", str(claims)], capsys)
    assert code == 2 and problem in err and "Traceback" not in err
