"""Entity-scored selection and the citation check, on hand-made candidates."""

import pytest

from nodes.select_documents import score_candidates
from state.context import Context
from verification.citations import (
    CitationError,
    check_citations,
    drop_invalid_citations,
)


def cand(title, text, score=0.01):
    return {"doc_id": 0, "title": title, "text": text, "retrieval_score": score, "found_by": ["phase1"]}


def test_entity_matches_lift_a_weakly_retrieved_document():
    candidates = {
        "Noise": cand("Noise", "Nothing relevant here.", 0.016),
        "Cherie Currie": cand("Cherie Currie", "Cherie Currie is an American singer.", 0.010),
    }
    ranked = score_candidates(candidates, ["Cherie Currie"], [], Context())
    assert ranked[0]["title"] == "Cherie Currie"
    assert ranked[0]["claim_entities"] == ["Cherie Currie"]


def test_matching_claim_and_gap_entities_earns_the_bonus():
    candidates = {
        "A": cand("A", "Mentions Steve Augeri and Journey.", 0.01),
        "B": cand("B", "Mentions Steve Augeri only.", 0.01),
    }
    ranked = score_candidates(candidates, ["Steve Augeri"], ["Journey"], Context(gap_entity_weight=0.0))
    by_title = {d["title"]: d for d in ranked}
    assert by_title["A"]["score"] - by_title["B"]["score"] == pytest.approx(Context().both_bonus)


def test_ranks_are_consecutive_and_titles_distinct():
    candidates = {f"T{i}": cand(f"T{i}", "text", 0.01 + i / 1000) for i in range(30)}
    ranked = score_candidates(candidates, [], [], Context())
    assert [d["rank"] for d in ranked] == list(range(1, 31))
    assert ranked[0]["title"] == "T29"


SELECTED = [{"title": "Steve Augeri", "text": "Steve Augeri is an American rock singer. He sang for Journey."}]
REFS = [{"ref": 1, "title": "Steve Augeri", "sentence": "Steve Augeri is an American rock singer."}]


def test_valid_citations_pass():
    check_citations("He is American [1].", REFS, SELECTED)


@pytest.mark.parametrize(
    "text, refs, problem",
    [("See [2].", REFS, "no reference"),
     ("See [1].", [{**REFS[0], "title": "Other"}], "not a selected document"),
     ("See [1].", [{**REFS[0], "sentence": "He was born on Mars."}], "not found")],
)
def test_bad_citations_are_caught(text, refs, problem):
    with pytest.raises(CitationError, match=problem):
        check_citations(text, refs, SELECTED)


def test_invented_citation_numbers_are_dropped():
    assert drop_invalid_citations("A [1] B [7] C [0].", 2) == "A [1] B  C ."


def test_evidence_is_verbatim_capped_per_document_and_covers_each_question():
    from verification.evidence import rank_evidence

    docs = [
        {"title": "Cherie Currie", "text": "Cherie Currie is an American singer. Currie was the lead vocalist of "
                                           "the Runaways. She became a solo artist. She has a sister."},
        {"title": "Steve Augeri", "text": "Steve Augeri is an American rock singer. He sang for Journey."},
    ]
    chosen = rank_evidence("Steve Augeri and Cherie Currie are American.", docs, ["Steve Augeri"], 3,
                           ["Who sang for Journey?"])
    assert len(chosen) == 3
    texts = {d["title"]: d["text"] for d in docs}
    assert all(e["sentence"] in texts[e["title"]] for e in chosen)
    assert sum(e["title"] == "Cherie Currie" for e in chosen) <= 2
    assert any("Journey" in e["sentence"] for e in chosen)


def test_entities_of_a_claim_entitys_article_rank_first_and_fragments_are_dropped():
    from nodes.extract_entities import rank_uncovered_entities

    state = {
        "claim": "Chandgi Ram won a gold medal in 1970 at a continental multi-sport event.",
        "claim_entities": ["Chandgi Ram"],
        "candidates": {
            "Noise": cand("Noise", "The Paris Marathon is a race in Paris, France.", 0.016),
            "Chandgi Ram": cand("Chandgi Ram", "Chandgi Ram was an Indian wrestler who won gold at the "
                                               "1970 Asian Games in Bangkok.", 0.010),
        },
    }
    ranked = rank_uncovered_entities(state)
    assert ranked.index("1970 Asian Games") < ranked.index("Paris Marathon")
    assert "Chandgi Ram" not in ranked  # covered: its article is already a candidate


def test_bridge_choice_interleaves_lm_picks_with_the_ranking():
    from nodes.bridge import choose

    ranked = ["1970 Asian Games", "Bangkok", "Argentina", "Gold Medal", "India"]
    assert choose(["Argentina", "Gold Medal", "Invented"], ranked, 4) == [
        "Argentina", "1970 Asian Games", "Gold Medal", "Bangkok"]
    assert choose([], ranked, 2) == ["1970 Asian Games", "Bangkok"]
