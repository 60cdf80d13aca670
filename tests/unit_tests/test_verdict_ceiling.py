"""The upper bound on recorded verdict signals (benchmarks.lab.verdict_ceiling): it finds the cut-offs that separate
claims the stage's rule can separate, decides as the stage does, and its left-out head never sees the claim it
judges."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarks.lab.verdict_ceiling import ceiling_lines, left_out_head, signals, stage_rule


def row(label: str, supported: float | None, kind: float = 0.5, opposite: float | None = None,
        verdict: str = "INSUFFICIENT_INFO", head: str = "collection") -> dict:
    probs = {} if supported is None else {"supported": supported, "contradicted_if_not": kind}
    if opposite is not None:
        probs["opposite"] = opposite
    return {"set": "papers", "uid": f"{label}-{supported}-{opposite}", "head": head, "label": label,
            "verdict": verdict, "probabilities": probs}


def separable_rows() -> list[dict]:
    """Supported claims read high; contradicted ones have an opposite reading better; the rest neither; two with
    nothing read. The stage's default cut-offs (0.5, kind 0.5, lead 0) get the supported ones wrong."""
    rows = [row("SUPPORTED", s, kind=0.3) for s in (0.40, 0.42, 0.45, 0.44)]
    rows += [row("CONTRADICTED", s, opposite=s + 0.2) for s in (0.10, 0.15, 0.20, 0.12)]
    rows += [row("INSUFFICIENT_INFO", s, opposite=s - 0.05) for s in (0.10, 0.20, 0.25, 0.15)]
    return rows + [row("INSUFFICIENT_INFO", None), row("SUPPORTED", None)]


def test_the_fitted_rule_finds_cut_offs_the_default_misses_and_nothing_read_stays_unsettled():
    rows = separable_rows()
    sig = signals(rows)
    assert stage_rule(sig, 0.5, 0.5, 0.0)[:4] == ["INSUFFICIENT_INFO"] * 4  # the shipped cut calls them unsettled
    (line,) = ceiling_lines("papers", rows)
    assert line["recorded"] < 30 and line["opposite_read"] == 8 and line["nothing_read"] == 2
    assert 0.2 < line["cut_offs"]["support"] <= 0.40
    said = stage_rule(sig, line["cut_offs"]["support"], line["cut_offs"]["kind"], line["cut_offs"]["lead"])
    assert said[:12] == ["SUPPORTED"] * 4 + ["CONTRADICTED"] * 4 + ["INSUFFICIENT_INFO"] * 4
    assert said[12:] == ["INSUFFICIENT_INFO"] * 2  # whatever the cut-offs: nothing was read
    assert line["rule_fitted_on_sample"] == pytest.approx(100 * np.mean([8 / 9, 1.0, 10 / 11]), abs=0.1)


def test_a_claim_where_the_opposite_was_not_read_is_decided_by_its_kind():
    rows = [row("CONTRADICTED", 0.1, kind=0.9), row("INSUFFICIENT_INFO", 0.1, kind=0.2)]
    assert stage_rule(signals(rows), 0.5, 0.5, 0.0) == ["CONTRADICTED", "INSUFFICIENT_INFO"]


def test_the_left_out_head_judges_each_claim_by_a_fit_on_the_others():
    rng = np.random.default_rng(0)
    rows = [row("SUPPORTED", float(s)) for s in rng.uniform(0.7, 0.9, 8)]
    rows += [row("CONTRADICTED", float(s), opposite=float(s) + 0.3) for s in rng.uniform(0.1, 0.3, 8)]
    rows += [row("INSUFFICIENT_INFO", float(s), opposite=float(s) - 0.1) for s in rng.uniform(0.1, 0.3, 8)]
    gold = [r["label"] for r in rows]
    assert left_out_head(gold, signals(rows)) == 100.0
    # with the labels shuffled the signals carry nothing the others could teach about the claim left out
    shuffled = list(rng.permutation(gold))
    assert left_out_head(shuffled, signals(rows)) < 70


def test_the_command_names_a_set_with_no_rows(tmp_path, monkeypatch, capsys):
    from benchmarks.lab import verdict_ceiling

    (tmp_path / "papers").mkdir()
    (tmp_path / "papers" / "verdicts.jsonl").write_text("\n".join(json.dumps(r) for r in separable_rows()) + "\n")
    monkeypatch.setattr("sys.argv", ["verdict_ceiling", "--rows", str(tmp_path), "--sets", "papers,news",
                                     "--out", str(tmp_path / "out")])
    with pytest.raises(SystemExit) as stop:
        verdict_ceiling.main()
    assert stop.value.code == 2 and "no verdict rows for 'news'" in capsys.readouterr().err
    monkeypatch.setattr("sys.argv", ["verdict_ceiling", "--rows", str(tmp_path), "--sets", "papers",
                                     "--out", str(tmp_path / "out")])
    verdict_ceiling.main()
    assert json.loads((tmp_path / "out" / "ceiling.json").read_text())[0]["rule_fitted_on_sample"] > 90
    assert (tmp_path / "out" / "ceiling.png").stat().st_size > 0
