"""The `hovermultihop` peer: DSPy langProBe's HoverMultiHop, the field's reference program for HoVer recall@21.

As langProBe writes it: three hops of k=7 documents; after the first hop the model summarises what was found
and writes the next query, after the second it summarises again (with the first summary as context) and writes
the third query, each step a `dspy.ChainOfThought` (4 model calls per claim). The 21 documents are the three
hops' results in order, duplicates included, as langProBe returns them. Retrieval is BM25 over the same corpus
(langProBe used ColBERTv2 over the full 5M-abstract HoVer corpus) and the model is whatever the run uses, so the
comparison with claimhop is on the same model, corpus and metric."""

from __future__ import annotations

import dspy

from claimhop.retrieval.service import IndexSearch

K = 7


class HoverMultiHop(dspy.Module):
    def __init__(self, retriever: IndexSearch, k: int = K):
        super().__init__()
        self.retriever, self.k = retriever, k
        self.create_query_hop2 = dspy.ChainOfThought("claim,summary_1->query")
        self.create_query_hop3 = dspy.ChainOfThought("claim,summary_1,summary_2->query")
        self.summarize1 = dspy.ChainOfThought("claim,passages->summary")
        self.summarize2 = dspy.ChainOfThought("claim,context,passages->summary")

    def search(self, query: str) -> list[str]:
        """langProBe's passages: "title | text" strings, whose title the metric reads."""
        return [f"{h.title} | {h.text}" for h in self.retriever.search(str(query) or " ", self.k, "bm25")]

    def forward(self, claim: str) -> dspy.Prediction:
        hop1_docs = self.search(claim)
        summary_1 = self.summarize1(claim=claim, passages=hop1_docs).summary
        hop2_query = self.create_query_hop2(claim=claim, summary_1=summary_1).query
        hop2_docs = self.search(hop2_query)
        summary_2 = self.summarize2(claim=claim, context=summary_1, passages=hop2_docs).summary
        hop3_query = self.create_query_hop3(claim=claim, summary_1=summary_1, summary_2=summary_2).query
        hop3_docs = self.search(hop3_query)
        docs = hop1_docs + hop2_docs + hop3_docs
        return dspy.Prediction(titles=[d.split(" | ")[0] for d in docs], queries=[claim, hop2_query, hop3_query])
