"""benchmarks.every_set's table from recorded `claimhop eval` rows (--report-only: no model, no search): each set's
recall counted as that set is reported (every gold article on Wikipedia, any evidence document outside it), and
claimhop paired with hybrid claim by claim."""

from __future__ import annotations

import json

import pytest

from benchmarks import every_set


def write_rows(folder, name: str, rows: list[dict]) -> None:
    (folder / name).mkdir(parents=True)
    (folder / name / "eval.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def row(system: str, uid: str, gold: list[str], titles: list[str]) -> dict:
    return {"system": system, "uid": uid, "gold": gold, "titles": titles}


def test_the_table_counts_each_set_its_own_way_and_pairs_claimhop_with_hybrid(tmp_path, capsys):
    filler = [f"Other {i}" for i in range(30)]
    # HoVer: a claim counts only with every gold article; claimhop finds both of c1's, hybrid one of them
    write_rows(tmp_path, "hover-dev", [
        row("bm25", "c1", ["A", "B"], ["A", *filler]), row("hybrid", "c1", ["A", "B"], ["A", *filler]),
        row("claimhop", "c1", ["A", "B"], ["A", "B", *filler])])
    # HealthVer: any evidence document counts; hybrid has it at 3, claimhop at 7 (lost at 5, kept at 21)
    write_rows(tmp_path, "healthver", [
        row("bm25", "h1", ["E1", "E2"], filler), row("hybrid", "h1", ["E1", "E2"], [*filler[:2], "E2", *filler]),
        row("claimhop", "h1", ["E1", "E2"], [*filler[:6], "E1", *filler]),
        row("claimhop", "h2", [], filler)])  # a not-enough-info claim has no evidence: not counted
    every_set.main(["--out", str(tmp_path), "--sets", "hover-dev,healthver", "--report-only", "--root",
                    str(tmp_path)])
    text = (tmp_path / "README.md").read_text()
    hover = next(line for line in text.splitlines() if line.startswith("| hover-dev"))
    assert "| 0.000 / 0.000 | 0.000 / 0.000 | 1.000 / 1.000 | 1 / 0 (p = 1) | 1 / 0 (p = 1) |" in hover
    health = next(line for line in text.splitlines() if line.startswith("| healthver"))
    assert "| 0.000 / 0.000 | 1.000 / 1.000 | 0.000 / 1.000 | 0 / 1 (p = 1) | 0 / 0 (p = 1) |" in health
    assert "| out-of-domain samples pooled (1) |" in text
    figures = json.loads((tmp_path / "every-set.json").read_text())
    assert figures["healthver"]["5"]["hybrid"] == 1.0 and figures["healthver"]["5"]["claimhop"] == 0.0


def test_an_unknown_set_and_postgres_without_a_database_are_usage_errors(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("CLAIMHOP_PG_URL", raising=False)
    with pytest.raises(SystemExit):
        every_set.main(["--out", str(tmp_path), "--sets", "scifact"])
    assert "unknown set(s) scifact" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        every_set.main(["--out", str(tmp_path), "--postgres", "healthver"])
    assert "CLAIMHOP_PG_URL" in capsys.readouterr().err


def test_the_postgresql_run_of_a_set_is_its_own_line_and_not_pooled_twice(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAIMHOP_PG_URL", "postgresql://reader@localhost/none")  # --report-only connects to nothing
    filler = [f"Other {i}" for i in range(30)]
    for name in ("healthver", "healthver-postgresql"):
        write_rows(tmp_path, name, [row(system, "h1", ["E1"], ["E1", *filler]) for system in every_set.SYSTEMS])
    every_set.main(["--out", str(tmp_path), "--sets", "healthver", "--postgres", "healthver", "--report-only",
                    "--root", str(tmp_path)])
    lines = (tmp_path / "README.md").read_text().splitlines()
    assert any(line.startswith("| healthver-postgresql (1) | 1.000 / 1.000") for line in lines)
    assert "| out-of-domain samples pooled (1) |" in "\n".join(lines)  # the same claims once, not twice
