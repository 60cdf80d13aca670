"""`claimhop eval --report-only`: the table and plot of a run still going (or frozen at other code), from its
recorded rows alone, comparing only claims every system finished and only rows of the run's own fingerprint."""

import json
import subprocess
import sys


def _row(system: str, uid: str, hit: float, fingerprint: str = "run-a") -> dict:
    return {"fingerprint": fingerprint, "system": system, "uid": uid, "num_hops": 2, "label": "SUPPORTED",
            "gold": ["A", "B"], "recall@21": hit, "gold_fraction@21": hit, "titles": ["A", "B"] if hit else ["A"]}


def test_report_only_tables_the_claims_every_system_finished(tmp_path):
    claims = tmp_path / "claims.jsonl"
    claims.write_text("".join(json.dumps({"uid": u, "claim": f"claim {u}", "supporting_titles": ["A", "B"],
                                          "num_hops": 2, "label": "SUPPORTED"}) + "\n" for u in ("c1", "c2", "c3")))
    rows = tmp_path / "eval.jsonl"
    recorded = [_row("bm25", "c1", 1.0), _row("hybrid", "c1", 1.0),
                _row("bm25", "c2", 0.0), _row("hybrid", "c2", 1.0),
                _row("bm25", "c3", 1.0),                       # hybrid has not finished c3 yet: left out
                _row("hybrid", "c3", 0.0, fingerprint="old")]  # another run's row: never mixed in
    rows.write_text("".join(json.dumps(r) + "\n" for r in recorded) + '{"torn": ')
    result = subprocess.run([sys.executable, "-m", "claimhop.cli.main", "eval", "--report-only", "--claims", str(claims),
                             "--systems", "bm25,hybrid", "--out", str(rows)],
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert "2 of 3 claims finished by every one of bm25, hybrid, run run-a" in result.stdout
    table = (tmp_path / "eval.md").read_text()
    assert "| bm25 | 0.500 (2," in table and "| hybrid | 1.000 (2," in table
    assert (tmp_path / "eval.png").stat().st_size > 1000


def test_report_only_names_a_system_the_run_never_had(tmp_path):
    rows = tmp_path / "eval.jsonl"
    rows.write_text(json.dumps(_row("bm25", "c1", 1.0)) + "\n")
    result = subprocess.run([sys.executable, "-m", "claimhop.cli.main", "eval", "--report-only", "--systems", "bm25,dense",
                             "--out", str(rows)], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 2 and "no rows of system(s) dense" in result.stderr
    assert "Traceback" not in result.stderr


def test_against_compares_each_system_with_the_same_system_of_an_earlier_run_claim_by_claim(tmp_path):
    """Before and after a change (e.g. `claimhop optimize`): which claims each run gets that the other does not."""
    claims = tmp_path / "claims.jsonl"
    claims.write_text("".join(json.dumps({"uid": u, "claim": f"claim {u}", "supporting_titles": ["A", "B"],
                                          "num_hops": 2, "label": "SUPPORTED"}) + "\n" for u in ("c1", "c2", "c3")))
    now, before = tmp_path / "now.jsonl", tmp_path / "before.jsonl"
    now.write_text("".join(json.dumps(r) + "\n" for r in [
        _row("claimhop", "c1", 1.0), _row("claimhop", "c2", 1.0), _row("claimhop", "c3", 0.0)]))
    before.write_text("".join(json.dumps(r) + "\n" for r in [
        {**_row("claimhop", "c1", 0.0, "old"), "verdict": "SUPPORTED"}, _row("claimhop", "c2", 0.0, "old"),
        _row("claimhop", "c3", 1.0, "old"), _row("bm25", "c1", 1.0, "old")]))
    command = [sys.executable, "-m", "claimhop.cli.main", "eval", "--report-only", "--claims", str(claims), "--systems",
               "claimhop", "--out", str(now)]
    result = subprocess.run([*command, "--against", str(before)], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert (f"claimhop: this run vs {before} on the same 3 claims: all gold titles found only for this run 2, "
            f"only for {before} 1 (exact McNemar p = 1)") in result.stdout
    assert "verdict right" not in result.stdout  # this run recorded no verdicts: nothing to pair
    missing = subprocess.run([*command, "--systems", "dense", "--against", str(before)], capture_output=True,
                             text=True, timeout=120, check=False)
    assert missing.returncode == 2 and "no rows of dense there" in missing.stderr and "Traceback" not in missing.stderr


def test_rows_are_keyed_by_settings_as_resolved_so_an_environment_variable_starts_a_fresh_run(monkeypatch, tmp_path):
    from claimhop.evaluation.fingerprint import run_fingerprint
    from state.context import Context

    before = run_fingerprint(Context())
    monkeypatch.setenv("CLAIMHOP_MAX_ITERATIONS", "0")
    assert run_fingerprint(Context()) != before  # resuming would otherwise mix rows of two configurations
    assert run_fingerprint(Context(max_iterations=2)) == before
    program = tmp_path / "program.json"
    program.write_text("{}")
    first = run_fingerprint(Context(program_path=str(program)))
    program.write_text('{"decompose": {}}')
    assert run_fingerprint(Context(program_path=str(program))) != first  # the program's content counts too


def test_a_peers_rows_are_keyed_by_its_own_settings_and_code_so_they_survive_a_change_to_claimhop():
    """HoverMultiHop costs over a minute a claim: a change to claimhop's graph or defaults must not re-run it."""
    from claimhop.evaluation.fingerprint import (
        PEERS,
        ROOT,
        _python_files,
        system_fingerprint,
    )
    from state.context import Context

    base = Context()
    graph_change = Context(claim_floor=5, link_articles=7, verifier="qa")
    for peer in ("bm25", "hybrid", "hovermultihop"):
        assert system_fingerprint(peer, graph_change) == system_fingerprint(peer, base)
        assert system_fingerprint(peer, base, recall_only=True) == system_fingerprint(peer, base)
    assert system_fingerprint("claimhop", graph_change) != system_fingerprint("claimhop", base)
    assert system_fingerprint("hybrid", Context(bm25_weight=2.0)) != system_fingerprint("hybrid", base)
    assert system_fingerprint("hovermultihop", Context(model="openai/x")) != system_fingerprint("hovermultihop", base)
    assert system_fingerprint("bm25", Context(model="openai/x")) == system_fingerprint("bm25", base)
    code = {p.relative_to(ROOT).as_posix() for p in _python_files(PEERS["hovermultihop"][1])}
    assert "claimhop/evaluation/baselines/hover_multihop.py" in code and "claimhop/lm/local_engine.py" in code
    assert not any(path.startswith(("nodes/", "graph/", "claimhop/program/select")) for path in code)


def test_a_resumed_eval_keeps_the_peers_rows_and_reruns_only_the_changed_system(tmp_path):
    from claimhop.evaluation.runner import append_row, run_eval

    claims = [{"uid": "c1", "claim": "claim one", "supporting_titles": ["A"], "num_hops": 2, "label": "SUPPORTED"}]
    out = tmp_path / "eval.jsonl"
    append_row(out, {**_row("hovermultihop", "c1", 1.0, "peer-key"), "titles": ["A"]})
    append_row(out, {**_row("claimhop", "c1", 0.0, "old-claimhop"), "titles": ["B"]})
    ran: list[str] = []

    def system(name):
        return lambda claim: ran.append(name) or {"titles": ["A"]}

    rows = run_eval(claims, {"hovermultihop": system("hovermultihop"), "claimhop": system("claimhop")}, out,
                    {"hovermultihop": "peer-key", "claimhop": "new-claimhop"})
    assert ran == ["claimhop"]
    assert [(r["system"], r["fingerprint"], r["recall@21"]) for r in rows] == [
        ("hovermultihop", "peer-key", 1.0), ("claimhop", "new-claimhop", 1.0)]
