"""The `hovermultihop` peer (langProBe's HoverMultiHop) with a fake LM on the small real corpus: the wiring is
under test (three BM25 hops of 7, the model's queries searched, 4 model calls), not the model."""

import dspy
from fakes import fake_lm

from claimhop.evaluation.baselines.hover_multihop import HoverMultiHop
from claimhop.retrieval.corpus import load_corpus
from claimhop.retrieval.index_store import build_indexes
from claimhop.retrieval.service import IndexSearch

CLAIM = "The Runaways' lead singer and Steve Augeri were American."


def test_three_hops_of_seven_search_the_claim_then_the_models_queries(small_corpus, tmp_path):
    corpus = load_corpus(small_corpus)
    retriever = IndexSearch(corpus, build_indexes(corpus, tmp_path))
    queries = iter(["Foxes film", "Journey band singer"])
    lm, engine = fake_lm({
        "summary": {"reasoning": "r", "summary": "Cherie Currie sang lead for The Runaways."},
        "query": lambda: {"reasoning": "r", "query": next(queries)},
    })
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        out = HoverMultiHop(retriever)(claim=CLAIM)
    assert engine.calls == ["summary", "query", "summary", "query"]
    assert out.queries == [CLAIM, "Foxes film", "Journey band singer"]
    expected = [h.title for q in out.queries for h in retriever.search(q, 7, "bm25")]
    assert out.titles == expected  # duplicates kept, as langProBe returns them (BM25 drops zero-score documents)
    assert len(out.titles) <= 21


def test_the_eval_runs_it_as_a_system(small_corpus, monkeypatch):
    import claimhop.lm.provider as provider
    from claimhop.evaluation.systems import make_systems

    fake, _ = fake_lm({"summary": {"reasoning": "r", "summary": "s"}, "query": {"reasoning": "r", "query": "Foxes"}})
    monkeypatch.setattr(provider, "get_lm", lambda model: fake)
    row = make_systems(["hovermultihop"], {"corpus_path": str(small_corpus)})["hovermultihop"](CLAIM)
    assert row["queries"][1:] == ["Foxes", "Foxes"] and 0 < len(row["titles"]) <= 21
