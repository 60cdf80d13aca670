"""The lab's reading of the model re-ranker's rows (benchmarks.lab.lm_rerank): the two orders of one search, their
fusion, a weight chosen on the other sets only, and the counts a user reads in its table."""

from __future__ import annotations

import json

from benchmarks.lab import lm_rerank


def write_rows(folder, name: str, claims: list[tuple[str, list[str], list[str], list[str]]]) -> None:
    (folder / name).mkdir(parents=True)
    lines = []
    for uid, gold, hybrid, model in claims:
        lines.append({"system": "hybrid", "uid": uid, "gold": gold, "titles": hybrid})
        lines.append({"system": "hybrid-rerank", "uid": uid, "gold": gold, "titles": model})
    (folder / name / "eval.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))


def ranks(n: int) -> list[str]:
    return [f"d{i}" for i in range(1, n + 1)]


def test_fusion_lifts_what_both_orders_put_high_and_keeps_the_rest_in_the_search_order():
    claim = {"gold": ["d7"], "hybrid": ranks(12), "model": ["d7", "d2", "d3", "d4", "d5", "d6", "d8", "d9", "d10",
                                                             "d1", "d11", "d12"]}
    order = lm_rerank.fused(claim, 8.0, depth=10)
    assert order[0] == "d7" and order[10:] == ["d11", "d12"]
    assert lm_rerank.fused(claim, 0.0, depth=10) == claim["hybrid"]  # weight 0: the plain search


def test_each_set_is_scored_with_a_weight_chosen_on_the_others(tmp_path):
    # In sets a and b the model lifts the evidence from the search's rank 10 to 1: fused with weight 0.5 it is 6th,
    # with 1.0 5th, so 1.0 is chosen for c, where the model buries the evidence the search has at rank 1.
    lifted = ["d10", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9"]
    buried = ["d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10", "d1"]
    write_rows(tmp_path, "a", [(f"a{i}", ["d10"], ranks(20), lifted) for i in range(3)])
    write_rows(tmp_path, "b", [(f"b{i}", ["d10"], ranks(20), lifted) for i in range(3)])
    write_rows(tmp_path, "c", [(f"c{i}", ["d1"], ranks(20), buried) for i in range(2)])
    by_set = {name: lm_rerank.load(tmp_path, name) for name in "abc"}
    lines = lm_rerank.table(by_set, depth=10)
    row = {(cells[1].strip(), cells[2].strip()): cells for cells in (line.split("|") for line in lines[2:])}
    assert row[("a (3)", "hybrid")][5].strip() == "0" and row[("a (3)", "model")][5].strip() == "3"
    assert lm_rerank.chosen_weight(by_set["a"], 10) == 1.0 and lm_rerank.chosen_weight(by_set["c"], 10) == 0.5
    assert row[("a (3)", "fused 1.0")][5].strip() == "3"  # chosen on b and c together
    assert row[("c (2)", "fused 1.0")][5].strip() == "2"  # chosen on a and b; at 1.0 c's evidence is still 5th
    assert row[("c (2)", "model")][5].strip() == "0"
    assert row[("pooled (8)", "model")][6].strip().startswith("6 / 2")


def test_a_folder_without_rows_is_a_clear_error(tmp_path, capsys):
    try:
        lm_rerank.main(["--rows", str(tmp_path)])
    except SystemExit as stop:
        assert "no SET/eval.jsonl under" in str(stop)
    else:
        raise AssertionError("an empty folder was read as rows")
