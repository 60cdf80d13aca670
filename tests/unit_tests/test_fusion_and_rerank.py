"""Hybrid fusion weights and the re-ranking stage, as the graph's hops see them through the run's engine."""

from __future__ import annotations

import time

import pytest
from langchain_core.documents import BaseDocumentCompressor

from claimhop.program import stages_for
from claimhop.program.client_policy import client_settings_problem
from claimhop.retrieval.fusion import Fusion
from claimhop.retrieval.rerank import CompressorReranker, LMReranker, make_reranker
from claimhop.retrieval.service import Hit, index_search
from claimhop.retrieval.tuned_search import TunedSearch
from state.context import Context

QUERY = "lead singer of The Runaways"


@pytest.fixture(scope="module")
def retriever(small_corpus, tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("CLAIMHOP_HOME", str(tmp_path_factory.mktemp("home")))
    yield index_search(small_corpus)
    mp.undo()


def titles(hits: list[Hit]) -> list[str]:
    return [h.title for h in hits]


def test_a_zero_weight_leaves_the_other_ranking(retriever):
    everything = len(retriever.corpus.titles)
    bm25 = titles(retriever.search(QUERY, everything, "bm25"))
    dense = titles(retriever.search(QUERY, everything, "dense"))
    only_bm25 = titles(retriever.search(QUERY, everything, "hybrid", Fusion(bm25_weight=1, dense_weight=0)))
    only_dense = titles(retriever.search(QUERY, everything, "hybrid", Fusion(bm25_weight=0, dense_weight=1)))
    assert only_bm25[: len(bm25)] == bm25  # BM25 drops zero-score documents; they follow
    assert only_dense == dense
    assert bm25 != dense  # else this test shows nothing


def test_run_settings_reach_the_fusion(retriever, small_corpus):
    lean_bm25 = stages_for(Context(corpus_path=str(small_corpus), bm25_weight=1, dense_weight=0)).built.engine
    lean_dense = stages_for(Context(corpus_path=str(small_corpus), bm25_weight=0, dense_weight=1)).built.engine
    assert titles(lean_bm25.search(QUERY, 3)) == titles(retriever.search(QUERY, 3, "bm25"))
    assert titles(lean_dense.search(QUERY, 3)) == titles(retriever.search(QUERY, 3, "dense"))
    reranked = stages_for(Context(corpus_path=str(small_corpus), reranker="lm", rerank_depth=7, model_timeout_s=42)).built.engine
    assert isinstance(reranked.reranker, LMReranker) and reranked.rerank_depth == 7
    assert reranked.reranker.timeout_s == 42  # a hung judgement is bounded like every other model call
    assert lean_bm25.reranker is None


@pytest.mark.parametrize(("bad", "named"), [
    ({"bm25_weight": 0, "dense_weight": 0}, "cannot both be 0"), ({"bm25_weight": -1}, "bm25_weight"),
    ({"rrf_k": 0}, "rrf_k"), ({"fusion_depth": 0}, "fusion_depth"), ({"reranker": "rm -rf /"}, "reranker"),
    ({"rerank_depth": 1}, "rerank_depth"),
])
def test_bad_fusion_and_rerank_settings_are_named(bad, named):
    with pytest.raises(ValueError, match=named):
        Context.from_any(bad)


class ByTitleLength(BaseDocumentCompressor):
    """A stand-in for a real re-ranker (a cross-encoder): keeps the 2 shortest titles, shortest first."""

    def compress_documents(self, documents, query, callbacks=None):
        return sorted(documents, key=lambda d: len(d.metadata["title"]))[:2]


def test_a_reranker_reorders_the_fused_depth_and_still_returns_k(retriever):
    fused = titles(retriever.search(QUERY, 8, "hybrid"))
    search = TunedSearch(retriever, reranker=CompressorReranker(ByTitleLength()), rerank_depth=8)
    got = titles(search.search(QUERY, 3))
    shortest = sorted(fused, key=len)[:2]
    assert got[:2] == shortest  # lifted from anywhere in the first 8
    assert len(got) == 3 and got[2] == next(t for t in fused if t not in shortest)  # dropped ones keep fused order


class Scripted(LMReranker):
    def __init__(self, scores: dict[str, float | Exception], timeout_s: float | None = None, hang_s: float = 0.0):
        super().__init__(timeout_s=timeout_s)
        self.scores = scores
        self.hang_s = hang_s

    def score(self, query: str, hit: Hit) -> float:
        value = self.scores[hit.title]
        if value is None:  # a model call that hangs
            time.sleep(self.hang_s)
            return 1.0
        if isinstance(value, Exception):
            raise value
        return value


def test_lm_reranker_orders_by_relevance_and_keeps_failed_judgements_in_place():
    hits = [Hit(i, t, 0.0) for i, t in enumerate(["a", "b", "c", "d"])]
    reranker = Scripted({"a": 0.1, "b": RuntimeError("model down"), "c": 0.9, "d": 0.1})
    assert titles(reranker.rerank("q", hits)) == ["c", "b", "a", "d"]  # b stays 2nd; a before d (ties: fused order)


def test_a_hung_lm_judgement_times_out_and_keeps_its_fused_place():
    hits = [Hit(i, t, 0.0) for i, t in enumerate(["a", "b", "c"])]
    reranker = Scripted({"a": 0.1, "b": None, "c": 0.9}, timeout_s=0.3, hang_s=5.0)
    started = time.monotonic()
    assert titles(reranker.rerank("q", hits)) == ["c", "b", "a"]  # b (hung) stays 2nd, its 1.0 never arrives
    assert time.monotonic() - started < 3.0


def test_reranker_spec_errors_are_clear():
    assert make_reranker("") is None
    assert isinstance(make_reranker("lm"), LMReranker)
    with pytest.raises(ValueError, match="cannot be loaded"):
        make_reranker("os:no_such_function")
    with pytest.raises(ValueError, match="not a LangChain BaseDocumentCompressor"):
        make_reranker("os:getcwd")


def test_server_clients_may_pick_the_lm_reranker_when_the_operator_allows_it_but_never_code(monkeypatch):
    monkeypatch.delenv("CLAIMHOP_RERANKER", raising=False)
    monkeypatch.setenv("CLAIMHOP_CLIENT_LIMITS", "reranker=lm")
    assert client_settings_problem({"reranker": "lm"}) is None
    assert "re-ranker" in client_settings_problem({"reranker": "os:getcwd"})
    monkeypatch.delenv("CLAIMHOP_CLIENT_LIMITS")  # the default: a client's check makes no ~100x model calls
    assert "CLAIMHOP_CLIENT_LIMITS=reranker=lm" in client_settings_problem({"reranker": "lm"})

