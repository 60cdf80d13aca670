"""The LM re-ranker with the real local model: the paragraph that answers the query rises to the top."""

from __future__ import annotations

from small_corpus import SMALL_CORPUS

from claimhop.retrieval.rerank import LMReranker
from claimhop.retrieval.service import Hit

QUERY = "Who was the lead vocalist of Journey from 1998 to 2006?"


def test_the_answering_paragraph_is_ranked_first():
    order = ["Foxes", "San Francisco", "Jodie Foster", "Steve Augeri", "The Runaways"]
    text = {row["title"]: row["text"] for row in SMALL_CORPUS}
    hits = [Hit(i, title, 0.0, text[title]) for i, title in enumerate(order)]
    reranker = LMReranker()
    reranked = [h.title for h in reranker.rerank(QUERY, hits)]
    assert reranked[0] == "Steve Augeri"
    assert sorted(reranked) == sorted(order)
    assert reranker.score(QUERY, hits[3]) > 0.5 > reranker.score(QUERY, hits[0])
