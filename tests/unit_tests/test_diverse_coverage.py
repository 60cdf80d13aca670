"""The diverse-coverage baseline's selection logic with a fake LM on the small real corpus."""

import dspy
from fakes import fake_lm

from claimhop.evaluation.baselines.diverse_coverage import DiverseCoverage
from claimhop.retrieval.corpus import load_corpus
from claimhop.retrieval.fusion import reciprocal_rank_fusion
from claimhop.retrieval.index_store import build_indexes
from claimhop.retrieval.service import IndexSearch


def test_selects_k_distinct_documents_preferring_high_coverage_scores(small_corpus, tmp_path):
    corpus = load_corpus(small_corpus)
    retriever = IndexSearch(corpus, build_indexes(corpus, tmp_path))
    lm, engine = fake_lm({
        "queries": {"queries": ["Steve Augeri singer", "Runaways lead singer", "Foxes film"]},
        "scores": {"scores": [0, 0, 0, 0, 0, 0, 0, 10]},
    })
    module = DiverseCoverage(retriever, k=5, per_query=8, per_round=2, window=8)
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        out = module(claim="The Runaways' lead singer and Steve Augeri were American.")
    assert len(out.titles) == 5 and len(set(out.titles)) == 5
    results = retriever.search_many(out.queries, 8)
    fused = [corpus.titles[i] for i, _ in reciprocal_rank_fusion([[h.doc_id for h in r] for r in results])]
    assert out.titles[0] == fused[7]  # the candidate the LM scored 10 jumps ahead of better-ranked ones
    assert out.lm_calls == 1 + 3  # one query call, then ceil(5 / 2) scoring rounds
    assert engine.calls.count("scores") == 3


def test_the_eval_system_runs_the_baseline_on_the_run_corpus(small_corpus, monkeypatch):
    """`claimhop eval --systems diverse-coverage`, as the eval builds it (fake LM: the wiring is under test)."""
    import claimhop.lm.provider as provider
    from claimhop.evaluation.systems import make_systems

    fake, _ = fake_lm({"queries": {"queries": ["Steve Augeri singer", "Runaways lead singer", "Foxes film"]},
                     "scores": {"scores": [10, 0, 0, 0, 0, 0, 0, 0, 0, 0]}})
    monkeypatch.setattr(provider, "get_lm", lambda model: fake)
    system = make_systems(["diverse-coverage"], {"corpus_path": str(small_corpus), "top_k": 5})["diverse-coverage"]
    row = system("The Runaways' lead singer and Steve Augeri were American.")
    assert len(set(row["titles"])) == 5 and row["queries"] and row["lm_steps"] >= 2
