"""The `diverse-coverage` baseline: 3 diverse LM queries, 35 documents each, then coverage-based selection of 21,
in which an LM scores candidates 0-10 for the entities and facts they add beyond the documents already selected.

Bounded for a local model: selection runs in rounds; each round the LM scores the next `window` candidates
(by fused retrieval rank) in one call and the best `per_round` join the selection (3 rounds of 7 = 21).
So a claim costs 1 + ceil(21 / per_round) LM calls instead of one call per candidate."""

from __future__ import annotations

import math

import dspy

from claimhop.retrieval.fusion import reciprocal_rank_fusion
from claimhop.retrieval.service import IndexSearch

SNIPPET = 100


class DiverseQueries(dspy.Signature):
    """Write 3 search queries for the claim that are as different from each other as possible: each looks for
    a different entity or fact the claim depends on."""

    claim: str = dspy.InputField()
    queries: list[str] = dspy.OutputField(desc="3 diverse search queries")


class CoverageScores(dspy.Signature):
    """Score each numbered candidate document 0-10 for how many entities and facts needed to check the claim
    it adds beyond the documents already selected (0: nothing new, 10: a key missing piece)."""

    claim: str = dspy.InputField()
    selected: list[str] = dspy.InputField(desc="titles already selected")
    candidates: list[str] = dspy.InputField(desc="'[i] title: beginning of text'")
    scores: list[int] = dspy.OutputField(desc="one score 0-10 per candidate, in order")


class DiverseCoverage(dspy.Module):
    def __init__(self, retriever: IndexSearch, k: int = 21, per_query: int = 35, per_round: int = 7,
                 window: int = 10):
        super().__init__()
        self.retriever, self.k, self.per_query = retriever, k, per_query
        self.per_round, self.window = per_round, window
        self.queries = dspy.Predict(DiverseQueries)
        self.score = dspy.Predict(CoverageScores)

    def forward(self, claim: str) -> dspy.Prediction:
        queries = [q for q in (self.queries(claim=claim).queries or []) if str(q).strip()][:3] or [claim]
        results = self.retriever.search_many(queries, self.per_query)
        fused = [doc_id for doc_id, _ in reciprocal_rank_fusion([[h.doc_id for h in r] for r in results])]
        selected: list[int] = []
        calls = 1
        remaining = list(fused)
        for _ in range(math.ceil(self.k / self.per_round)):
            if not remaining or len(selected) >= self.k:
                break
            window = remaining[: self.window]
            shown = [f"[{i}] {self.retriever.corpus.titles[d]}: {self.retriever.corpus.texts[d][:SNIPPET]}"
                     for i, d in enumerate(window, start=1)]
            titles = [self.retriever.corpus.titles[d] for d in selected]
            scores = list(self.score(claim=claim, selected=titles, candidates=shown).scores or [])
            calls += 1
            scores += [0] * (len(window) - len(scores))
            order = sorted(range(len(window)), key=lambda i: (-int(scores[i]), i))  # ties keep retrieval order
            take = [window[i] for i in order[: min(self.per_round, self.k - len(selected))]]
            selected += take
            remaining = [d for d in remaining if d not in take]
        selected += [d for d in remaining if d not in selected][: self.k - len(selected)]
        return dspy.Prediction(titles=[self.retriever.corpus.titles[d] for d in selected], queries=queries,
                               lm_calls=calls)
