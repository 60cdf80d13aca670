"""Leave one set out (benchmarks.pair_heads): a set's pairs are scored only by heads that never saw a pair of it,
and the pairs' weight is chosen inside the training mix. Synthetic states stand in for the model's (this test is
about the bookkeeping of the cross-validation; the heads on real reads are measured by the benchmark itself)."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import pair_heads
from benchmarks.pair_heads import (
    Heads,
    chosen_ratio,
    leave_one_set_out,
    pair_weights,
    pooled,
)
from benchmarks.pair_sets import CONTRADICTED, INSUFFICIENT, SUPPORTED

DIM = 1536  # the bundled model's state: the shipped head, always the first arm, reads it
LABELS = (SUPPORTED, CONTRADICTED, INSUFFICIENT)


def toy_set(name: str, n: int, rng: np.random.Generator, flip: bool = False) -> tuple[list[dict], np.ndarray]:
    """Pairs whose label is written in the first three dimensions of the state (swapped for support and
    contradiction when `flip`: a set whose labels only its own pairs can teach)."""
    labels = [LABELS[i % 3] for i in range(n)]
    states = np.zeros((n, DIM))
    states[:, :8] = rng.normal(scale=0.3, size=(n, 8))  # the rest of the state says nothing
    for row, label in enumerate(labels):
        seen = {SUPPORTED: CONTRADICTED, CONTRADICTED: SUPPORTED}.get(label, label) if flip else label
        states[row, LABELS.index(seen)] += 3.0
    items = [{"key": f"{name}:{i}", "group": f"{name}:g{i}", "label": label, "kind": label,
              "source": f"pair-{name}", "set": name} for i, label in enumerate(labels)]
    return items, states


def raw_of(states: np.ndarray) -> np.ndarray:
    return pair_heads.raw_features(states, Heads.answer_rows)


def test_a_set_is_scored_by_heads_that_never_saw_it_and_pooled_against_the_shipped_head(monkeypatch):
    rng = np.random.default_rng(0)
    Heads.answer_rows = rng.normal(scale=0.01, size=(4, DIM))
    monkeypatch.setattr(pair_heads, "SUPPORT_C", (1.0,))
    monkeypatch.setattr(pair_heads, "KIND_C", (1.0,))
    base, base_states = toy_set("base", 60, rng)
    sets = [toy_set(name, 45, rng) for name in ("alpha", "beta")] + [toy_set("odd", 45, rng, flip=True)]
    pairs = [i for items, _ in sets for i in items]
    pair_raw = raw_of(np.vstack([states for _, states in sets]))
    rows = leave_one_set_out(base, raw_of(base_states), pairs, pair_raw, (1000,), weigh=False)
    by_set = {row["set"]: row["+90 pairs"] for row in rows}
    assert by_set["alpha"]["macro_f1"] > 90 and by_set["beta"]["macro_f1"] > 90
    # had the odd set's own pairs been in its heads' training, they would have taught its swapped labels
    assert by_set["odd"]["macro_f1"] < 50
    assert set(by_set["odd"]["verdicts"]) == {i["key"] for i in pairs if i["set"] == "odd"}
    together = pooled(rows, pairs)["+ other sets' pairs"]
    assert together["pairs"] == len(pairs)
    shipped = {k: v for row in rows for k, v in row["shipped head"]["verdicts"].items()}
    ours = {k: v for row in rows for k, v in row["+90 pairs"]["verdicts"].items()}
    gold = {i["key"]: i["label"] for i in pairs}
    assert together["gained"] == sum(ours[k] == gold[k] != shipped[k] for k in gold)
    assert together["lost"] == sum(shipped[k] == gold[k] != ours[k] for k in gold)


def test_the_pairs_weight_is_chosen_on_the_training_sets_alone(monkeypatch):
    """Base items that teach the wrong labels: the mix's own sets, each held out in turn, choose to weigh the
    pairs more; a set outside the mix has no say."""
    rng = np.random.default_rng(1)
    Heads.answer_rows = rng.normal(scale=0.01, size=(4, DIM))
    base, base_states = toy_set("base", 90, rng, flip=True)
    sets = [toy_set(name, 30, rng) for name in ("alpha", "beta", "gamma")]
    pairs = [i for items, _ in sets for i in items]
    ratio, by_ratio = chosen_ratio(base, raw_of(base_states), pairs, raw_of(np.vstack([s for _, s in sets])),
                                   ratios=(0.25, 4.0))
    assert ratio == 4.0 and by_ratio[4.0] > by_ratio[0.25]


def test_the_pairs_weight_moves_the_mix_not_the_regularisation():
    """Whatever the ratio, the weights average 1 (the fit's loss keeps its size, so C means the same), and the pairs
    together weigh `ratio` times the shipped head's items."""
    pairs = [{"key": str(k)} for k in range(40)]
    for ratio in (0.1, 1.0, 4.0):
        weights = pair_weights(200, pairs, ratio)
        assert np.isclose(weights.mean(), 1.0)
        assert np.isclose(weights[200:].sum() / weights[:200].sum(), ratio)


def test_the_contradiction_part_learns_from_the_three_way_reads_of_the_other_sets_only(tmp_path):
    """The contradiction part (contradicted against not-enough-info) is fitted on the packed three-way states of
    the pairs not supported, never on the left-out set's; it tells the two apart on states like those."""
    from benchmarks.read_pairs import pack
    from claimhop.program.verify.head import ContradictionHead, Logistic

    rng = np.random.default_rng(2)
    cache, folder, rows, states = tmp_path / "cache", tmp_path / "three-ways", [], {}
    cache.mkdir()
    for name in ("alpha", "beta", "held"):
        items, raw = toy_set(name, 60, rng)
        for item, state in zip(items, raw):
            np.save(cache / f"{item['key']}.npy", state.astype(np.float32))
            rows.append({"id": item["key"], "set": name, "group": item["group"], "label": item["label"],
                         "key": item["key"]})
            states[item["key"]] = state
    pack(folder, rows, cache, commit=False)
    arrays, provenance = pair_heads.contradiction_part(folder, "held")
    assert not any(key.startswith("held/") for key in provenance["pairs"])
    assert sum(provenance["pairs"].values()) == 80  # alpha and beta, 20 contradicted and 20 not-enough-info each
    part = ContradictionHead(arrays["contradiction_mean"], arrays["contradiction_scale"],
                             Logistic(arrays["contradiction_weights"], float(arrays["contradiction_bias"])))
    held = [r for r in rows if r["set"] == "held" and r["label"] != SUPPORTED]
    right = [(part.probability(states[r["id"]]) >= 0.5) == (r["label"] == CONTRADICTED) for r in held]
    assert np.mean(right) > 0.9


def test_pairs_read_with_another_reading_are_refused(tmp_path, capsys):
    """A head is valid only for the reading its states came from: pairs read with chain-order-1 cannot train a
    chain-order-1-relevant head, and the error says which reading to read them with."""
    from benchmarks.read_pairs import archive_dir
    from claimhop.program.verify.reading import reading_rule

    folder = tmp_path / archive_dir(reading_rule(), 600).name
    folder.mkdir()
    with pytest.raises(SystemExit):
        pair_heads.main(["--pairs", str(folder), "--out", str(tmp_path / "out"), "--reading", "chain-order-1-relevant"])
    assert "--reading chain-order-1-relevant" in capsys.readouterr().err


def test_a_mass_mean_probe_points_from_one_class_to_the_other_and_is_balanced():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(400, 6))
    y = (np.arange(400) < 100).astype(int)  # a quarter positive
    x[:, 3] = x[:, 2]  # dimension 3 carries the noise of dimension 2 ...
    x[y == 1, 2] += 2.0  # ... which alone also carries the label
    probe, c = pair_heads.fit_mass_mean(x, y, [str(i) for i in range(400)], balanced=True)
    # the direction is the class means' difference: nothing along 3, where the means agree (a logistic probe
    # leans on 3 to cancel 2's noise: that fit is what a mass-mean probe is meant to avoid)
    assert c == 0.0 and probe.weights[2] > 0 and abs(probe.weights[3]) < 0.2 * probe.weights[2]
    logistic, _ = pair_heads.fit_logistic(x, y, [str(i) for i in range(400)], 1.0, balanced=True)
    assert logistic.weights[3] < -0.5 * logistic.weights[2]
    p = 1 / (1 + np.exp(-(x @ probe.weights + probe.bias)))
    # balanced: the rarer class is found as often as the common one, not swamped by it
    assert (p[y == 1] >= 0.5).mean() > 0.75 and (p[y == 0] < 0.5).mean() > 0.75
