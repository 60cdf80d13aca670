"""What a run's stages share, built once per settings rather than on every node of every claim: the search engine
(the corpus's indexes, the run's fusion and re-ranker) and its link table."""

from __future__ import annotations

from functools import cached_property

import dspy

from claimhop.retrieval.article_links import LinkTable
from claimhop.retrieval.factory import search_engine
from claimhop.retrieval.fusion import Fusion
from claimhop.retrieval.rerank import make_reranker
from claimhop.retrieval.service import SearchEngine
from state.context import Context


def fusion_of(ctx: Context) -> Fusion:
    """The run's hybrid fusion: the BM25 and dense weights, RRF's k and the depth fused."""
    return Fusion(ctx.tuning.bm25_weight, ctx.tuning.dense_weight, ctx.tuning.rrf_k, ctx.tuning.fusion_depth)


class Built:
    """The search engine and link table of one run's settings, made at first use (a program that is only loaded
    or optimised never opens the indexes)."""

    def __init__(self, settings: Context, relevant: dspy.Predict) -> None:
        self.settings, self.relevant = settings, relevant

    @cached_property
    def engine(self) -> SearchEngine:
        """claimhop's own indexes, or the external LangChain retriever the `retriever` setting names, searched with
        the run's fusion settings and re-ranker."""
        ctx = self.settings
        reranker = make_reranker(ctx.reranker, ctx.model, ctx.model_timeout_s,
                                 self.relevant if ctx.reranker == "lm" else None)
        return search_engine(ctx.corpus_path, ctx.index_dir, retriever=ctx.retriever, fusion=fusion_of(ctx),
                             reranker=reranker, rerank_depth=ctx.rerank_depth)

    @cached_property
    def links(self) -> LinkTable | None:
        """Which articles each document names; None for an engine that only answers queries."""
        return self.engine.link_table()
