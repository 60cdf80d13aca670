"""The lab comparison of a pair's claim state with its opposite's (benchmarks.lab.three_way_reading --opposite):
the stage's own opposite rule is scored on the same folds as the heads, so a head on both states is compared with
what the stage does today."""

from __future__ import annotations

import numpy as np

from benchmarks.lab.three_way_reading import FEATURES, held_out, markdown, opposite_rule, pooled


def toy_reads(seed: int = 0) -> tuple[list[dict], np.ndarray, np.ndarray]:
    """Three sets; a supported claim's state points one way, a contradicted claim's opposite points that way too
    (the evidence supports the opposite), and a not-enough-info pair's states point nowhere."""
    rng = np.random.default_rng(seed)
    rows, claims, opposites = [], [], []
    direction = np.zeros(8)
    direction[0] = 3.0
    for name in ("a", "b", "c"):
        for i, label in enumerate(["SUPPORTED", "CONTRADICTED", "INSUFFICIENT_INFO"] * 10):
            rows.append({"id": f"{name}:{i}", "set": name, "label": label})
            noise = rng.normal(size=(2, 8))
            claims.append(noise[0] + (direction if label == "SUPPORTED" else -direction if label == "CONTRADICTED"
                                      else 0))
            opposites.append(noise[1] + (direction if label == "CONTRADICTED" else -direction if label == "SUPPORTED"
                                         else 0))
    return rows, np.array(claims), np.array(opposites)


def test_the_opposite_rule_tells_contradicted_pairs_by_the_opposites_support():
    rows, claim, opposite = toy_reads()
    by_set = opposite_rule(rows, claim, opposite)
    assert set(by_set) == {"a", "b", "c"}
    assert all(row["kind_auc"] > 0.9 and row["support_auc"] > 0.9 for row in by_set.values())
    assert pooled(rows, by_set)["contradicted"] == "30/30"  # a not-enough-info pair is a coin toss to this rule


def test_a_head_on_the_opposite_alone_cannot_see_support_it_was_not_given():
    rows, claim, opposite = toy_reads()
    scrambled = np.random.default_rng(1).normal(size=opposite.shape)  # an opposite read that says nothing
    results = {name: {"sets": (sets := held_out(rows, make(claim, scrambled))), "pooled": pooled(rows, sets)}
               for name, make in FEATURES["opposite"].items() if name in ("claim", "opposite")}
    assert results["claim"]["pooled"]["macro_f1"] > results["opposite"]["pooled"]["macro_f1"] + 20
    table = markdown(results, rows, "opposite")
    assert "| claim | opposite |" in table and "the opposite's" in table
