"""Three-document synthetic claims (claimhop.evaluation.synthetic_chains): which questions pair up and how two
claims join; and the held-out scoring that chooses the head's training source (benchmarks.lab.chain_sources)."""

from __future__ import annotations

import numpy as np

from benchmarks.lab.chain_sources import SHIPPED, choose
from claimhop.evaluation.synthetic import without
from claimhop.evaluation.synthetic_chains import joined, question_pairs
from claimhop.evaluation.train_verifier import fold_of
from claimhop.evaluation.verifier_report import held_out


def test_two_claims_join_into_one_sentence() -> None:
    assert joined("Tampa Bay Lightning drafted Kaspars Astasenko in 1999.", "The team won the Stanley Cup in 2004.") == (
        "Tampa Bay Lightning drafted Kaspars Astasenko in 1999, and the team won the Stanley Cup in 2004.")
    assert joined("A is B.", "Brazil is large.") == "A is B, and Brazil is large."


def test_questions_pair_up_only_when_they_share_exactly_one_article() -> None:
    def q(uid: str, *titles: str) -> dict:
        return {"uid": uid, "supporting_titles": list(titles)}

    questions = [q("1", "Alpha", "Beta"), q("2", "Beta", "Gamma"), q("3", "Alpha", "Beta"), q("4", "Delta", "Eta"),
                 q("5", "Eta", "Missing")]
    in_corpus = {"alpha", "beta", "gamma", "delta", "eta"}
    pairs = question_pairs(questions, in_corpus, seed=0)
    for first, second in pairs:
        titles = {t for x in (first, second) for t in x["supporting_titles"]}
        assert len(titles) == 3
    uids = [x["uid"] for pair in pairs for x in pair]
    assert len(uids) == len(set(uids)) and "5" not in uids and "4" not in uids
    assert {frozenset(x["uid"] for x in pair) for pair in pairs} <= {frozenset({"1", "2"}), frozenset({"3", "2"})}
    assert len(pairs) == 1
    assert question_pairs(questions, in_corpus, seed=0) == pairs


def test_every_held_out_probability_comes_from_a_head_without_the_items_group() -> None:
    """An item whose twin (same group, other source) is in the training set must not be scored by a head that saw
    the twin: the label is a copy of the twin's, so a leak would score near 100%."""
    rng = np.random.default_rng(0)
    groups = [f"g{k}" for k in range(60)] * 2
    x = rng.normal(size=(120, 80))  # more features than items: a head can learn every training item by heart
    x[60:] = x[:60]  # the twins read the same
    y = np.concatenate([np.arange(60) % 2] * 2)  # and have random labels: nothing to learn but the items
    first, second = np.arange(120) < 60, np.arange(120) >= 60
    p = held_out(x, y, groups, np.ones(120, bool), second, c=1e4)
    assert not np.isnan(p[second]).any() and np.isnan(p[first]).all()
    assert np.mean((p[second] >= 0.5) == y[second]) < 0.75
    assert len({fold_of(g) for g in groups}) > 1


def test_a_set_trained_on_only_through_its_twins_is_still_held_out_by_group() -> None:
    """The retrieved synthetic claims are the synthetic claims on other documents: a head trained on the synthetic
    set alone must score each retrieved claim without its own question (folds), not with one head that saw them
    all, and must not fail for want of training items."""
    rng = np.random.default_rng(1)
    groups = [f"g{k}" for k in range(60)] * 2
    x = rng.normal(size=(120, 80))
    x[60:] = x[:60]
    y = np.concatenate([np.arange(60) % 2] * 2)
    first, second = np.arange(120) < 60, np.arange(120) >= 60
    p = held_out(x, y, groups, first, second, c=1e4)
    assert not np.isnan(p[second]).any()
    assert np.mean((p[second] >= 0.5) == y[second]) < 0.75


def test_the_shipped_source_stays_unless_another_wins_by_the_rule() -> None:
    def row(chains: float, chains_auc: float, two: float) -> dict:
        return {"chains": {"macro_f1": chains, "auc": chains_auc}, "synthetic": {"macro_f1": two}}

    rows = {SHIPPED: row(60, 0.70, 70), "dev only": row(61.9, 0.75, 70), "synthetic only": row(65, 0.69, 70)}
    assert choose(rows) == SHIPPED
    rows["synthetic + chains"] = row(64, 0.71, 69.5)
    rows["synthetic + chains + dev"] = row(66, 0.72, 68.5)
    assert choose(rows) == "synthetic + chains"


def test_a_removed_gold_title_gives_its_place_to_the_next_unused_distractor() -> None:
    assert without(["B", "A", "X"], "A", ["X", "Y", "Z"]) == ["B", "X", "Y"]
    assert without(["B", "A"], "A", []) == ["B"]
