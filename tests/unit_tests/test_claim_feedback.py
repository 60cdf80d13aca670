"""Pseudo-relevance feedback for the claim's own search (`claim_feedback`, claimhop.retrieval.feedback): words its
first documents share with the evidence bring up a document the claim's own wording misses, below the plain
search's first five, which stay where they are."""

from __future__ import annotations

import json

import pytest

from claimhop.retrieval.feedback import KEEP, feedback_words, with_feedback
from claimhop.retrieval.service import index_search
from claimhop.retrieval.tuned_search import TunedSearch

# The claim says "face coverings"; the documents about it say "masks" and "respirators"; the evidence says only
# the topic's words ("masks", "respirators", "studied") and none of the claim's: a plain search ranks it below
# documents that share the claim's words but not its topic.
TOPIC = [{"title": f"Coverings {i}", "text": f"Face coverings and masks were studied in hospital {i}; masks and "
          "respirators reduce infection among staff."} for i in range(6)]
FILLER = [{"title": f"Weather {i}", "text": f"Rainfall in region {i} was above the seasonal average this year."}
          for i in range(12)]
# documents that share the claim's words but not its topic: the plain search ranks them above the evidence
STAFF = [{"title": f"Rota {i}", "text": f"Hospital staff rotas in ward {i} changed this spring."}
         for i in range(8)]
EVIDENCE = {"title": "Evidence", "text": "Masks and respirators were studied: respirators reduce aerosols among "
            "wearers and masks reduce particles."}


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    path = tmp_path_factory.mktemp("feedback") / "corpus.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [*TOPIC, *STAFF, *FILLER, EVIDENCE]), encoding="utf-8")
    return TunedSearch(index_search(path))


CLAIM = "Face coverings protect hospital staff from infection."


def test_the_words_come_from_the_first_documents_and_not_from_the_claim(engine):
    first = engine.search_fused(CLAIM, 27)
    words = feedback_words(engine, CLAIM, first, 10)
    assert "respir" in words and "mask" in words  # stemmed, as BM25 reads them
    assert not {"face", "cover", "hospit", "staff", "infect"} & set(words)


def test_feedback_lifts_the_evidence_and_keeps_the_first_five(engine):
    first = engine.search_fused(CLAIM, 27)
    plain_rank = [h.title for h in first].index("Evidence")
    ranked = with_feedback(engine, CLAIM, first, 10)
    assert [h.title for h in ranked[:KEEP]] == [h.title for h in first[:KEEP]]
    assert [h.title for h in ranked].index("Evidence") < plain_rank
    assert sorted(h.doc_id for h in ranked) == sorted(h.doc_id for h in first)  # the same documents, re-ordered


def test_a_claim_whose_first_documents_add_no_word_keeps_its_order(engine):
    first = engine.search_fused("zzzz qqqq", 5)
    assert with_feedback(engine, "zzzz qqqq", first[:0], 10) == []
