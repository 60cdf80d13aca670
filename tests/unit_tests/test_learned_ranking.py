"""The lab's learned ranking of selection's candidates (benchmarks.lab.learned_ranking): each set is ranked by a
ranker trained on the other sets only, and compared claim by claim with hybrid and today's selection."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.lab import learned_ranking
from benchmarks.lab.learned_ranking import FEATURES, leave_one_set_out, markdown


def toy_claims(seed: int = 0) -> list[dict]:
    """Three out-of-Wikipedia sets; the gold candidate is the one the 'looked-up name is title' feature marks, which
    neither hybrid's order nor the recorded selection puts first."""
    rng = np.random.default_rng(seed)
    marker = FEATURES.index("looked-up name is title")
    claims = []
    for name in ("a", "b", "c"):
        for i in range(12):
            candidates = [f"{name}{i}-doc{j}" for j in range(30)]
            x = rng.normal(size=(30, len(FEATURES)))
            x[:, marker] = 0.0
            gold = candidates[17]
            x[17, marker] = 4.0
            claims.append({"set": name, "uid": f"{name}:{i}", "gold": [gold], "candidates": candidates, "x": x,
                           "y": np.array([c == gold for c in candidates], dtype=int),
                           "hybrid": candidates, "selected": candidates[:21]})
    return claims


@pytest.mark.parametrize("ranker", ["logistic", "boosted"])
def test_a_ranker_that_never_saw_a_set_finds_what_the_other_sets_taught_it(ranker):
    results = leave_one_set_out(toy_claims(), ranker)
    assert set(results) == {"a", "b", "c"}
    for result in results.values():
        rows = result["claims"].values()
        assert all(r["learned@5"] for r in rows)  # the marked candidate first, in every held-out set
        assert not any(r["hybrid@5"] or r["current@5"] for r in rows) and all(r["current@21"] for r in rows)
    table = markdown(results, ranker)
    assert "| out-of-domain pooled (36) | 0 / 36 | 0 / 36 | 36 / 36 | 36 / 0" in table


def test_records_missing_for_a_set_are_named(tmp_path, capsys):
    with pytest.raises(SystemExit):
        learned_ranking.main(["--records", str(tmp_path), "--sets", "healthver", "--out", str(tmp_path / "out")])
    assert "no records for healthver" in capsys.readouterr().err
