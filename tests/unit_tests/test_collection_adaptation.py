"""Thresholds fitted to a collection's made claims (benchmarks.lab.collection_adaptation): the grid finds the cut that
separates the made claims, and the head copy decides at those thresholds with the bundled head's weights."""

from __future__ import annotations

import numpy as np

from benchmarks.lab.collection_adaptation import fitted_thresholds, thresholds_head
from claimhop.program.verify.head import HEAD_FILE, decide, load_head


def test_the_thresholds_separating_the_made_claims_are_found_and_the_copy_decides_at_them(tmp_path):
    kinds = ["SUPPORTED"] * 4 + ["CONTRADICTED"] * 4 + ["INSUFFICIENT_INFO"] * 4
    supported = [0.9, 0.85, 0.95, 0.9] + [0.7, 0.6, 0.75, 0.7] + [0.3, 0.2, 0.7, 0.1]
    contradicted = [0.5] * 4 + [0.3, 0.35, 0.4, 0.3] + [0.1, 0.05, 0.1, 0.2]
    probabilities = [{"supported": s, "contradicted_if_not": c} for s, c in zip(supported, contradicted)]
    support, kind, score = fitted_thresholds(probabilities, kinds)
    assert 0.75 < support <= 0.85 and 0.2 < kind <= 0.3 and score == 100.0
    assert decide(0.8, 0.3, 0.5)[0] == "SUPPORTED"  # the bundled head's cut would call the false ones supported

    head = load_head(thresholds_head(support, kind, tmp_path / "fitted.npz", tmp_path / "papers"))
    bundled = load_head(HEAD_FILE)
    assert head.threshold == support and np.array_equal(head.support.weights, bundled.support.weights)
    state = np.zeros(bundled.answer_rows.shape[1])  # any input: the kind head's bias moved by logit(kind)
    x = bundled.features(state)
    assert abs(head.kind.probability(x) - 1 / (1 + (1 - bundled.kind.probability(x)) / bundled.kind.probability(x)
                                               * kind / (1 - kind))) < 1e-9
    assert head.provenance["thresholds_fitted"]["support"] == support
