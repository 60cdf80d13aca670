"""benchmarks.lab.small_reader's pure parts, on tiny fake arrays (no model): which items are read, the figures and the
paired comparison, the issue's rule for shipping the 0.5B reader, what the GGUF's metadata is made to say, and the
report table."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from benchmarks.lab import small_reader as sr
from claimhop.evaluation.train_verifier import C_GRID


def items_of(groups: dict[str, int]) -> list[dict]:
    return [{"key": f"{g}-{k}", "group": g, "label": "SUPPORTED", "source": "synthetic"}
            for g, n in groups.items() for k in range(n)]


def test_the_synthetic_sample_is_seeded_takes_whole_questions_and_stops_at_n():
    items = items_of({f"q{i}": 3 for i in range(10)})
    first = sr.sample_synthetic(items, 7, seed=0)
    assert [i["key"] for i in first] == [i["key"] for i in sr.sample_synthetic(items, 7, seed=0)]
    assert len(first) == 7
    by_group = [i["group"] for i in first]
    assert len(set(by_group)) == 3  # two whole questions and one split
    assert sorted(by_group.count(g) for g in set(by_group)) == [1, 3, 3]
    assert [i["key"] for i in sr.sample_synthetic(items, 7, seed=1)] != [i["key"] for i in first]
    assert sr.sample_synthetic(items, 100) == items


def test_an_item_is_kept_only_when_every_reader_has_its_state(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    items = items_of({"q": 3})
    keys = {i["key"]: f"h{k}" for k, i in enumerate(items)}
    for folder in (a, b):
        np.save(folder / "h0.npy", np.zeros(2))
    np.save(a / "h1.npy", np.zeros(2))
    kept, left = sr.kept_items(items, keys, [a, b])
    assert [i["key"] for i in kept] == ["q-0"]
    assert [i["key"] for i in left] == ["q-1", "q-2"]


def test_layers_are_checked_against_the_models_blocks():
    assert sr.parse_layers("24,18, 18", 24) == [24, 18]
    with pytest.raises(ValueError):
        sr.parse_layers("25", 24)
    with pytest.raises(ValueError):
        sr.parse_layers(",", 24)


def dev(labels: str, hops: list[int]) -> list[dict]:
    return [{"group": f"c{k}", "label": "SUPPORTED" if c == "S" else "NOT_SUPPORTED", "num_hops": h,
             "source": "dev-retrieved"} for k, (c, h) in enumerate(zip(labels, hops))]


def test_scores_give_auc_macro_f1_by_hop_and_who_is_right():
    items = dev("SSNN", [2, 2, 3, 3])
    row, right = sr.scores(items, np.array([0.9, 0.4, 0.2, 0.6]))
    assert right == {"c0": True, "c1": False, "c2": True, "c3": False}
    assert row["right"] == 2 and row["n"] == 4
    assert row["auc"] == pytest.approx(0.75)
    assert row["macro_f1"] == pytest.approx(50.0)
    assert row["2-hop n"] == 2 and row["3-hop n"] == 2 and row["4-hop"] is None and row["4-hop n"] == 0
    assert row["2-hop"] == pytest.approx(100 * (2 / 3 + 0) / 2, abs=0.1)


def test_the_pairing_counts_claims_gained_and_lost():
    small = {"a": True, "b": True, "c": False, "d": False}
    base = {"a": True, "b": False, "c": True, "d": True}
    assert sr.versus(small, base) == {"gained": 1, "lost": 2, "p": 1.0}


def test_the_rule_ships_only_a_reader_that_keeps_the_verdict_at_under_half_the_time():
    fine = sr.decision({"gained": 10, "lost": 12, "p": 0.83}, 70.0, 71.0, 5.0, 13.6, licence=True)
    assert fine["meets_bar"] and fine["ship"] and fine["short_by"] == [] and fine["caution"] is None
    drop = sr.decision({"gained": 20, "lost": 34, "p": 0.076}, 62.0, 71.0, 5.0, 13.6, licence=True)
    assert drop["meets_bar"] and "-9.0 points" in drop["caution"]
    unlicensed = sr.decision({"gained": 10, "lost": 12, "p": 0.83}, 70.0, 71.0, 5.0, 13.6, licence=False)
    assert unlicensed["meets_bar"] and not unlicensed["ship"]
    worse = sr.decision({"gained": 2, "lost": 15, "p": 0.002}, 62.0, 71.0, 5.0, 13.6, licence=True)
    assert not worse["keeps_verdict"] and not worse["meets_bar"]
    assert "15 claims lost" in worse["short_by"][0] and "-9.0" in worse["short_by"][0]
    slow = sr.decision({"gained": 3, "lost": 3, "p": 1.0}, 71.0, 71.0, 8.0, 13.6, licence=True)
    assert slow["time_ratio"] == pytest.approx(0.588) and not slow["meets_bar"]
    assert "too slow" in slow["short_by"][0]
    untimed = sr.decision({"gained": 3, "lost": 3, "p": 1.0}, 71.0, 71.0, 5.0, None, licence=True)
    assert untimed["under_half_time"] is None and not untimed["meets_bar"]


def test_median_seconds_over_the_timed_prompts_or_all():
    passes = {"a": {"seconds": 1.0, "prompt_tokens": 500}, "b": {"seconds": 3.0, "prompt_tokens": 1000},
              "c": {"seconds": 9.0, "prompt_tokens": 1000}}
    assert sr.median_seconds(passes) == 3.0
    assert sr.median_seconds(passes, ["a", "b", "x"]) == 2.0
    assert sr.median_seconds(passes, ["x"]) is None
    assert sr.seconds_per_1k_tokens(passes) == 3.0


class Field:
    def __init__(self, name, value):
        self.name, self.value = name, value

    def contents(self):
        return self.value


def test_the_metadata_records_what_the_gguf_says_and_each_missing_licence_key():
    fields = [Field("GGUF.version", 3), Field("general.architecture", "qwen2"), Field("general.name", "Tiny"),
              Field("qwen2.block_count", 24), Field("tokenizer.ggml.model", "gpt2"),
              Field("tokenizer.ggml.tokens", ["a"] * 100), Field("tokenizer.chat_template", "{{ x }}"),
              Field("general.tags", ["t"] * 50)]
    reader = SimpleNamespace(fields={f.name: f for f in fields},
                             tensors=[SimpleNamespace(tensor_type=0), SimpleNamespace(tensor_type=12)])
    meta = sr.gguf_metadata(reader)
    assert meta["general.name"] == "Tiny" and meta["tokenizer.ggml.model"] == "gpt2"
    assert "GGUF.version" not in meta and "tokenizer.ggml.tokens" not in meta
    assert meta["general.tags"] == "[50 items]"
    assert len(meta["tokenizer.chat_template.sha256"]) == 12
    assert meta["general.license"] is None and meta["general.base_model.0.name"] is None
    assert meta["tensors"] == 2 and sum(meta["tensor_types"].values()) == 2
    assert sr.blocks_of(meta) == 24
    assert not sr.licence_stated(meta, {"distribution": "x", "installed": True})
    assert sr.licence_stated({**meta, "general.license": "apache-2.0"}, {})


def test_the_cross_fitted_heads_never_see_a_dev_claims_fold():
    rng = np.random.default_rng(0)
    n_syn, n_dev = 40, 30
    groups = [f"s{k // 2}" for k in range(n_syn)] + [f"d{k}" for k in range(n_dev)]
    y = np.array([k % 2 for k in range(n_syn + n_dev)])
    x = rng.normal(size=(n_syn + n_dev, 3)) + y[:, None]
    dev_mask = np.array([g.startswith("d") for g in groups])
    p, c = sr.cross_fitted(x, y, groups, dev_mask)
    assert np.isnan(p[~dev_mask]).all() and not np.isnan(p[dev_mask]).any()
    assert c in C_GRID
    items = [{"source": "synthetic", "kind": "CONTRADICTED" if k % 4 == 0 else "INSUFFICIENT_INFO"}
             for k in range(n_syn)] + [{"source": "dev-retrieved"} for _ in range(n_dev)]
    kind = sr.kind_head(x, items, groups)
    assert kind["items"] == n_syn and kind["contradicted"] == 10 and 0 <= kind["accuracy"] <= 1


def test_the_table_has_a_baseline_line_and_paired_lines():
    base = {"reader": "1.5B @ 21/28", "documents": "retrieved", "macro_f1": 71.0, "auc": 0.78, "right": 120,
            "n": 169, "seconds_timed": 13.6, "seconds_all": 13.6, "time_ratio": 1.0,
            **{f"{h}-hop": 70.0 for h in sr.HOPS}, **{f"{h}-hop n": 5 for h in sr.HOPS}}
    small = {**base, "reader": "0.5B @ 18/24", "macro_f1": 68.0, "seconds_timed": 5.0, "time_ratio": 0.368,
             "4-hop": None, "versus": {"gained": 5, "lost": 9, "p": 0.42}}
    lines = sr.table([base, small])
    assert len(lines) == 4 and lines[2].count("|") == lines[0].count("|") == lines[3].count("|")
    assert "baseline" in lines[2] and "5 / 9 (0.42)" in lines[3] and "0.37" in lines[3] and "–" in lines[3]
