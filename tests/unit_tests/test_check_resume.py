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


def interrupted_check(cli_home, monkeypatch, capsys) -> str:
    """A check stopped at the verifier (as by Ctrl-C); its thread id."""
    broken = answers()

    def interrupt():
        raise KeyboardInterrupt
    broken["evidence_ids"] = interrupt
    use_fake(monkeypatch, broken)
    assert claimhop.cli.main.main(["check", CLAIM, *cli_home]) == 130
    return re.search(r"check --resume (\w+)", capsys.readouterr().err).group(1)


def test_a_resume_under_a_changed_setting_or_package_is_refused_naming_the_change(cli_home, monkeypatch, capsys):
    """Before: `--resume` finished the check under whatever the run now had (here `max_iterations` 2 where its
    first steps ran with 1, or an upgraded dspy), mixing two setups in one verdict, and said nothing."""
    import claimhop.program.fingerprint

    thread = interrupted_check(cli_home, monkeypatch, capsys)
    engine = use_fake(monkeypatch, answers())
    assert claimhop.cli.main.main(["check", "--resume", thread, "--set", "max_iterations=2"]) == 2
    err = capsys.readouterr().err
    assert f"thread {thread} was checked under verdict fingerprint" in err
    assert "setting max_iterations 1 -> 2" in err and f"`claimhop check {json.dumps(CLAIM)}`" in err
    assert engine.calls == []  # refused before any step ran

    versions = claimhop.program.fingerprint.package_versions()
    monkeypatch.setattr(claimhop.program.fingerprint, "package_versions", lambda: {**versions, "dspy": "999.0"})
    assert claimhop.cli.main.main(["check", "--resume", thread]) == 2
    assert f"package dspy \"{versions['dspy']}\" -> \"999.0\"" in capsys.readouterr().err
    assert engine.calls == []

    # the versions as it started: it finishes
    monkeypatch.setattr(claimhop.program.fingerprint, "package_versions", lambda: versions)
    assert claimhop.cli.main.main(["check", "--resume", thread, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "SUPPORTED"
    assert engine.calls == ["evidence_ids", "statements"]


def test_a_check_from_before_fingerprints_were_recorded_still_resumes_with_a_note(cli_home, monkeypatch, capsys):
    import graph.durable

    real = graph.durable.thread_config
    monkeypatch.setattr(graph.durable, "thread_config", lambda thread_id, *_: real(thread_id))  # the old CLI
    thread = interrupted_check(cli_home, monkeypatch, capsys)
    monkeypatch.setattr(graph.durable, "thread_config", real)
    use_fake(monkeypatch, answers())
    assert claimhop.cli.main.main(["check", "--resume", thread, "--json"]) == 0
    captured = capsys.readouterr()
    assert "records no verdict fingerprint" in captured.err and json.loads(captured.out)["verdict"] == "SUPPORTED"
