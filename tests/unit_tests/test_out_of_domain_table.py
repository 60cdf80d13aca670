"""benchmarks.out_of_domain reads back the verdict rows an earlier run wrote (the `before` rows are only there) and
pairs a head run with a setting against the same head without it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from benchmarks.out_of_domain import main, table, verdicts_in


def test_recorded_verdicts_are_read_back_and_a_setting_is_paired_with_the_head_without_it(tmp_path: Path):
    labels = ["SUPPORTED", "CONTRADICTED", "INSUFFICIENT_INFO"]
    rows = []
    for i, label in enumerate(labels):
        rows.append({"set": "s", "uid": f"c{i}", "head": "before", "label": label, "verdict": "SUPPORTED"})
        rows.append({"set": "s", "uid": f"c{i}", "head": "bundled", "label": label, "verdict": "SUPPORTED"})
        rows.append({"set": "s", "uid": f"c{i}", "head": "bundled+opposite_check=unnamed", "label": label,
                     "verdict": label})
    path = tmp_path / "verdicts.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert verdicts_in(path) == rows and verdicts_in(tmp_path / "none.jsonl") == []
    lines = table("s", [], verdicts_in(path))
    assert ("- bundled+opposite_check=unnamed vs bundled, paired on 3 claims: right only with "
            "bundled+opposite_check=unnamed 2, only bundled 0 (exact McNemar p = 0.5)") in lines


def test_a_malformed_or_unknown_setting_is_a_usage_error_before_anything_loads(monkeypatch, capsys):
    for given, said in (("opposite_check", "--set expects NAME=VALUE, got 'opposite_check'"),
                        ("opposite_chek=always", "unknown setting(s): opposite_chek"),
                        ("opposite_check=sometimes", "must be one of never, unnamed, always")):
        monkeypatch.setattr(sys, "argv", ["out_of_domain", "--set", given, "--root", "/nonexistent"])
        with pytest.raises(SystemExit) as exit_info:
            main()
        assert exit_info.value.code == 2 and said in capsys.readouterr().err


def test_a_two_label_sample_is_scored_on_its_two_labels_and_a_not_enough_info_verdict_stays_wrong():
    from benchmarks.out_of_domain import sample_macro_f1

    right = [("SUPPORTED", "SUPPORTED"), ("CONTRADICTED", "CONTRADICTED")]
    assert sample_macro_f1(right) == 100.0  # not two thirds of it for a label the sample does not have
    hedged = [("SUPPORTED", "SUPPORTED"), ("CONTRADICTED", "INSUFFICIENT_INFO")]
    assert sample_macro_f1(hedged) == 50.0  # supported 1.0, contradicted 0.0: the hedge costs its claim


def test_chance_is_the_samples_own():
    """A uniform guess of the three verdicts: 33.3 on a balanced 3-label sample, 40 on Check-COVID's two labels."""
    from benchmarks.out_of_domain import chance_macro_f1

    three = ["SUPPORTED"] * 15 + ["CONTRADICTED"] * 15 + ["INSUFFICIENT_INFO"] * 15
    assert round(chance_macro_f1(three), 1) == 33.3
    assert round(chance_macro_f1(["SUPPORTED"] * 15 + ["CONTRADICTED"] * 15), 1) == 40.0
