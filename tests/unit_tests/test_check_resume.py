"""`claimhop check` checkpoints every finished node in SQLite; `--resume THREAD` finishes an interrupted check
without redoing the steps that had finished (fake LM here; a real signal to a real process is an integration test)."""

from __future__ import annotations

import json
import re

import pytest
from fakes import fake_lm
from test_graph_routing import answers

import claimhop.cli.main
import claimhop.program.runtime

CLAIM = "Cherie Currie and Steve Augeri were both American."


@pytest.fixture
def cli_home(tmp_path, monkeypatch, small_corpus):
    monkeypatch.setenv("CLAIMHOP_HOME", str(tmp_path))
    monkeypatch.setattr(claimhop.cli.main, "stop_at_once_on_ctrl_c", lambda: None)  # keep pytest's own Ctrl-C handling
    return ["--corpus", str(small_corpus), "--set", "max_iterations=1", "--set", "use_optimized_program=false",
            "--set", "verifier=single"]


def use_fake(monkeypatch, reply):
    lm, engine = fake_lm(reply)
    monkeypatch.setattr(claimhop.program.runtime, "get_lm", lambda model: lm)
    return engine


def test_an_interrupted_check_resumes_from_its_last_finished_step(cli_home, monkeypatch, capsys):
    broken = answers()

    def interrupt():
        raise KeyboardInterrupt  # as if Ctrl-C arrived while the verifier was thinking
    broken["evidence_ids"] = interrupt
    first = use_fake(monkeypatch, broken)
    assert claimhop.cli.main.main(["check", CLAIM, *cli_home]) == 130
    thread = re.search(r"check --resume (\w+)", capsys.readouterr().err).group(1)
    assert first.calls[-1] == "evidence_ids"

    second = use_fake(monkeypatch, answers())
    monkeypatch.setattr("claimhop.retrieval.service.BUNDLED_CORPUS", None)  # the resume must use the check's own corpus
    assert claimhop.cli.main.main(["check", "--resume", thread, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert second.calls == ["evidence_ids", "statements"]  # only verify and mitigate ran again
    assert result["claim"] == CLAIM and result["verdict"] == "SUPPORTED" and result["thread_id"] == thread
    assert len(result["selected"]) == len({d["title"] for d in result["selected"]}) > 0

    third = use_fake(monkeypatch, answers())
    assert claimhop.cli.main.main(["check", "--resume", thread, "--json"]) == 0  # finished: shown, not recomputed
    assert third.calls == [] and json.loads(capsys.readouterr().out)["answer"] == result["answer"]


def test_resume_needs_a_known_thread_and_no_claim(cli_home, capsys):
    assert claimhop.cli.main.main(["check", "--resume", "nope"]) == 2
    assert "no checked claim with thread id 'nope'" in capsys.readouterr().err
    assert claimhop.cli.main.main(["check", CLAIM, "--resume", "x"]) == 2
    assert "not both" in capsys.readouterr().err
