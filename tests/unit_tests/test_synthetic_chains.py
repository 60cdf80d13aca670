"""Three-document synthetic claims (claimhop.evaluation.synthetic_chains): the link table read backwards, the
description a claim takes in place of a name, and which descriptions are refused; and the held-out scoring that
chooses the head's training source (benchmarks.chain_sources)."""

from __future__ import annotations

import numpy as np

from benchmarks.chain_sources import SHIPPED, choose, held_out
from claimhop.evaluation.synthetic_chains import described, good_description, naming_articles, sentence_naming
from claimhop.evaluation.train_verifier import fold_of
from claimhop.retrieval.article_links import ArticleLinks


def test_the_articles_naming_one_are_read_from_the_link_table_backwards() -> None:
    links = ArticleLinks.from_lists([[2], [2, 3], [0], []], "sha")
    assert naming_articles(links.offsets, links.targets, 2) == [0, 1]
    assert naming_articles(links.offsets, links.targets, 0) == [2]
    assert naming_articles(links.offsets, links.targets, 1) == []


def test_the_description_takes_the_names_place_with_the_sentence_case_kept() -> None:
    claim = "Tampa Bay Lightning drafted Kaspars Astasenko in 1999."
    assert described(claim, "Tampa Bay Lightning", "the team that drafted Vincent Lecavalier.") == (
        "The team that drafted Vincent Lecavalier drafted Kaspars Astasenko in 1999.")
    assert described("Kaspars Astasenko was drafted by Tampa Bay Lightning.", "tampa bay lightning",
                     "The team that drafted Vincent Lecavalier") == (
        "Kaspars Astasenko was drafted by the team that drafted Vincent Lecavalier.")
    assert described(claim, "Boston Bruins", "the team of Bobby Orr") is None


def test_a_description_must_name_the_third_article_and_not_the_entity() -> None:
    assert good_description("the team that drafted Vincent Lecavalier", "Tampa Bay Lightning", "Vincent Lecavalier")
    assert not good_description("the Lightning, Lecavalier's team", "Tampa Bay Lightning", "Vincent Lecavalier")
    assert not good_description("a hockey team in Florida", "Tampa Bay Lightning", "Vincent Lecavalier")
    assert not good_description("which team drafted Lecavalier?", "Tampa Bay Lightning", "Vincent Lecavalier")
    assert not good_description(" ".join(["word"] * 17) + " Lecavalier", "Tampa Bay Lightning", "Vincent Lecavalier")


def test_the_sentence_naming_the_entity_is_found_whole() -> None:
    text = "Vincent Lecavalier is a Canadian player. He was drafted by the Tampa Bay Lightning in 1998. He retired."
    assert sentence_naming(text, "Tampa Bay Lightning") == "He was drafted by the Tampa Bay Lightning in 1998."
    assert sentence_naming(text, "Boston Bruins") is None


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


def test_the_shipped_source_stays_unless_another_wins_by_the_rule() -> None:
    def row(chains: float, chains_auc: float, two: float) -> dict:
        return {"chains": {"macro_f1": chains, "auc": chains_auc}, "synthetic": {"macro_f1": two}}

    rows = {SHIPPED: row(60, 0.70, 70), "dev only": row(61.9, 0.75, 70), "synthetic only": row(65, 0.69, 70)}
    assert choose(rows) == SHIPPED
    rows["synthetic + chains"] = row(64, 0.71, 69.5)
    rows["synthetic + chains + dev"] = row(66, 0.72, 68.5)
    assert choose(rows) == "synthetic + chains"
