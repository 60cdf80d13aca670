"""Entity-scored selection and the citation check, on hand-made candidates."""

import pytest

from claimhop.program.citations import (
    CitationError,
    check_citations,
    drop_invalid_citations,
)
from claimhop.program.select.stage import claim_fused, score_candidates, select_from
from state.context import Context


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


def test_matching_claim_names_and_looked_up_names_earns_the_bonus():
    candidates = {
        "A": cand("A", "Mentions Steve Augeri and Journey.", 0.01),
        "B": cand("B", "Mentions Steve Augeri only.", 0.01),
    }
    ranked = score_candidates(candidates, ["Steve Augeri"], ["Journey"],
                              Context(gap_entity_weight=0.0, coverage_decay=1.0))
    by_title = {d["title"]: d for d in ranked}
    assert by_title["A"]["score"] - by_title["B"]["score"] == pytest.approx(Context().tuning.both_bonus)


def test_ranks_are_consecutive_and_titles_distinct():
    candidates = {f"T{i}": cand(f"T{i}", "text", 0.01 + i / 1000) for i in range(30)}
    ranked = score_candidates(candidates, [], [], Context())
    assert [d["rank"] for d in ranked] == list(range(1, 31))
    assert ranked[0]["title"] == "T29"


def test_with_coverage_decay_a_document_earns_what_it_adds():
    """Three articles naming "Florida" outrank the one about the claim's other name by raw counts; counted by
    what each adds, the second name's article is kept among the top two."""
    candidates = {
        **{f"Town {i}": cand(f"Town {i}", "A town in Florida.", 0.012) for i in range(3)},
        "Henry E. Rohlsen Airport": cand("Henry E. Rohlsen Airport", "An airport on St. Croix.", 0.010),
    }
    claim = ["Florida", "St. Croix"]
    raw = score_candidates(candidates, claim, [], Context(coverage_decay=1.0))
    added = score_candidates(candidates, claim, [], Context(coverage_decay=0.3))
    assert "Henry E. Rohlsen Airport" not in [d["title"] for d in raw[:2]]
    assert "Henry E. Rohlsen Airport" in [d["title"] for d in added[:2]]


def test_the_claims_own_first_results_join_and_stay():
    """A document only the claim's own search found is a candidate with `claim_k`, and is kept with
    `claim_floor` even when every hop's document scores higher."""
    candidates = {f"T{i}": cand(f"T{i}", "Mentions Steve Augeri.", 0.02) for i in range(5)}
    ranking = [cand("Xawery Zulawski", "A Polish film director.", 1 / 61)]
    ctx = dict(top_k=3, coverage_decay=1.0, unnamed_floor=0)  # no title is named: the floor is another test
    hops_only = select_from(candidates, ["Steve Augeri"], [], ranking, Context(claim_k=0, claim_floor=0, **ctx))
    joined = select_from(candidates, ["Steve Augeri"], [], ranking, Context(claim_k=1, claim_floor=0, **ctx))
    kept = select_from(candidates, ["Steve Augeri"], [], ranking, Context(claim_k=1, claim_floor=1, **ctx))
    assert "Xawery Zulawski" not in [d["title"] for d in hops_only]
    assert "Xawery Zulawski" not in [d["title"] for d in joined]  # a candidate, but it scores last
    assert len(kept) == 3 and "Xawery Zulawski" in [d["title"] for d in kept]


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
    from claimhop.program.verify.alternatives.evidence import rank_evidence

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
    from claimhop.program.bridge.stage import rank_uncovered_entities

    state = {
        "claim": "Chandgi Ram won a gold medal in 1970 at a continental multi-sport event.",
        "claim_entities": ["Chandgi Ram"],
        "candidates": {
            "Noise": cand("Noise", "The Paris Marathon is a race in Paris, France.", 0.016),
            "Chandgi Ram": cand("Chandgi Ram", "Chandgi Ram was an Indian wrestler who won gold at the "
                                               "1970 Asian Games in Bangkok.", 0.010),
        },
    }
    ranked = rank_uncovered_entities(state["claim"], [], state["candidates"], state["claim_entities"], [])
    assert ranked.index("1970 Asian Games") < ranked.index("Paris Marathon")
    assert "Chandgi Ram" not in ranked  # covered: its article is already a candidate


def test_bridge_choice_interleaves_lm_picks_with_the_ranking():
    from claimhop.program.bridge.stage import choose

    ranked = ["1970 Asian Games", "Bangkok", "Argentina", "Gold Medal", "India"]
    assert choose(["Argentina", "Gold Medal", "Invented"], ranked, 4) == [
        "Argentina", "1970 Asian Games", "Gold Medal", "Bangkok"]
    assert choose([], ranked, 2) == ["1970 Asian Games", "Bangkok"]


def test_a_claim_that_names_no_document_keeps_its_own_searchs_order():
    # "Quorvalide" and "shift work" (an invented supplement) are topics every abstract here mentions, not titles: the
    # counts of mentions put the abstract that says the least first; one search of the claim's words ranked the
    # evidence first
    review, diary = "Review of quorvalide in shift work", "Quorvalide and sleep in 640 night-shift workers"
    candidates = {
        review: cand(review, "Quorvalide, shift work, quorvalide, shift work.", 0.02),
        diary: cand(diary, "Quorvalide intake correlated with poor sleep quality.", 0.03),
    }
    ranking = [candidates[diary], candidates[review]]
    names = ["Quorvalide", "shift work"]
    by_score = select_from(candidates, names, [], ranking, Context(unnamed_order="score", claim_lead=0))
    by_claim = select_from(candidates, names, [], ranking, Context())
    assert by_score[0]["title"] == review
    assert [d["title"] for d in by_claim] == [c["title"] for c in ranking] and [d["rank"] for d in by_claim] == [1, 2]
    # a claim that names a document, as a name NER found or in its words, keeps the selection's order (with the
    # default claim_lead=1, after the claim search's first)
    named = select_from(candidates, [review], [], ranking, Context(claim_lead=0))
    assert named[0]["title"] == review
    worded = select_from(candidates, names, [], ranking, Context(claim_lead=0), claim=f"The {review} is wrong.")
    assert worded[0]["title"] == review
    assert [d["title"] for d in select_from(candidates, [review], [], ranking, Context())] == [diary, review]


def test_unnamed_floor_keeps_a_claim_that_names_nothing_to_its_own_search():
    # 6 abstracts the claim's search ranks s0..s5 and 2 hop candidates that mention the claim's topic more often: with
    # claim_floor 2 and top_k 4 the hops' documents take two of the four places; unnamed_floor=4 keeps the search's
    # first 4 in its order (one plain search is never ahead); by default it keeps the search's 21
    names = ["quorvalide", "night-shift sleep"]
    search = [cand(f"Abstract s{i}", "A cohort study.", 0.05 - 0.005 * i) for i in range(6)]
    said = "quorvalide and night-shift sleep, quorvalide and night-shift sleep."
    hops = {f"Hop h{i}": cand(f"Hop h{i}", said, 0.05) for i in range(2)}
    candidates = {**hops, **{c["title"]: c for c in search[:3]}}
    base = {"claim_floor": 2, "claim_k": 3, "top_k": 4}

    def titles(**settings):
        return [d["title"] for d in select_from(candidates, names, [], search, Context(**base, **settings))]

    assert Context().tuning.unnamed_floor == 21 and Context(unnamed_floor=0).tuning.unnamed_floor == 0
    assert titles(unnamed_floor=0) == titles(unnamed_floor=2) == ["Abstract s0", "Abstract s1", "Hop h0", "Hop h1"]
    assert titles() == ["Abstract s0", "Abstract s1", "Abstract s2", "Abstract s3"]
    assert titles(unnamed_floor=4) == ["Abstract s0", "Abstract s1", "Abstract s2", "Abstract s3"]  # s3: past claim_k
    assert titles(unnamed_floor=4, unnamed_order="score", claim_lead=0)[:2] == ["Abstract s0", "Abstract s1"]
    assert set(titles(unnamed_floor=4, unnamed_order="score")) == {f"Abstract s{i}" for i in range(4)}
    # a claim that names one of the documents keeps claim_floor: the hops' documents it names stay
    named = select_from(candidates, ["Hop h0"], [], search, Context(**base, unnamed_floor=4))
    assert "Hop h0" in [d["title"] for d in named] and len(named) == 4


def test_claim_lead_puts_the_claims_first_results_first_for_a_claim_that_names_a_document():
    # the claim names "Global warming"; its own search ranks an abstract first that the entity scores put last
    candidates = {
        "Global warming": cand("Global warming", "Global warming is the rise in temperature.", 0.03),
        "Climate change denial": cand("Climate change denial", "Denial of global warming.", 0.02),
        "2015 South Indian floods": cand("2015 South Indian floods", "Heavy rain fell in November.", 0.02),
    }
    ranking = [candidates["2015 South Indian floods"], candidates["Global warming"]]
    names = ["Global warming"]
    claim = "Global warming made the 2015 floods worse."

    def titles(**settings):
        return [d["title"] for d in select_from(candidates, names, [], ranking, Context(**settings), claim=claim)]

    assert Context().tuning.claim_lead == 1
    assert titles(claim_lead=0) == ["Global warming", "Climate change denial", "2015 South Indian floods"]
    led = select_from(candidates, names, [], ranking, Context(claim_lead=1), claim=claim)
    assert [d["title"] for d in led] == ["2015 South Indian floods", "Global warming", "Climate change denial"]
    assert [d["rank"] for d in led] == [1, 2, 3]
    assert titles(claim_lead=2) == ["2015 South Indian floods", "Global warming", "Climate change denial"]
    assert titles() == titles(claim_lead=1)
    assert set(titles(claim_lead=5)) == set(titles(claim_lead=0))  # the same documents, only their order changes


def test_claim_fusion_moves_up_what_both_orders_rank_high_and_keeps_the_documents():
    # selection's order A B C D; the claim's own search ranks D first and B second: with a weight of 1 and k of 1,
    # D (1/5 + 1/2) and B (1/3 + 1/3) pass A (1/2); C, which the search did not rank, stays last
    candidates = {t: cand(t, f"{t} text.", s) for t, s in
                  (("A", 0.05), ("B", 0.04), ("C", 0.03), ("D", 0.02))}
    selected = [{"title": t, "rank": r} for r, t in enumerate("ABCD", start=1)]
    ranking = [candidates["D"], candidates["B"]]
    fused = claim_fused([dict(d) for d in selected], ranking, 1.0, 1)
    assert [d["title"] for d in fused] == ["D", "B", "A", "C"]
    assert [d["rank"] for d in fused] == [1, 2, 3, 4]
    assert [d["title"] for d in claim_fused([dict(d) for d in selected], ranking, 0.01, 60)] == list("ABCD")
    assert Context().tuning.claim_fusion == 0


def test_documents_once_puts_a_long_documents_later_passages_after_the_other_documents():
    # Climate-FEVER's claim 2323 in small: the claim names Mars, so both passages of the file mars.md lead the
    # selection and the evidence, another article, is third; with documents_once it is second, Mars (2) last
    def passage(title, text, score, source):
        return {**cand(title, text, score), "source": source}

    candidates = {
        "Mars": passage("Mars", "Mars is the fourth planet from the Sun.", 0.03, "mars.md"),
        "Mars (2)": passage("Mars (2)", "Mars has two small moons, Phobos and Deimos.", 0.03, "mars.md"),
        "Extraterrestrial atmosphere": passage(
            "Extraterrestrial atmosphere", "The thin atmosphere of Mars is mostly carbon dioxide.", 0.03,
            "extraterrestrial-atmosphere.md"),
        "Terraforming of Mars": passage("Terraforming of Mars", "Warming Mars would thicken its air.", 0.01,
                                        "terraforming-of-mars.md"),
    }
    claim = "The atmosphere of Mars is mostly carbon dioxide."

    def titles(found, **settings):
        return [d["title"] for d in select_from(found, ["Mars"], [], [], Context(**settings), claim=claim)]

    assert Context().tuning.documents_once is False
    assert titles(candidates)[:3] == ["Mars", "Mars (2)", "Extraterrestrial atmosphere"]
    once = select_from(candidates, ["Mars"], [], [], Context(documents_once=True), claim=claim)
    assert [d["title"] for d in once] == ["Mars", "Extraterrestrial atmosphere", "Terraforming of Mars", "Mars (2)"]
    assert [d["rank"] for d in once] == [1, 2, 3, 4]
    # without files (the bundled Wikipedia corpus: one passage an article) every passage is its own document
    wikipedia = {t: {k: v for k, v in c.items() if k != "source"} for t, c in candidates.items()}
    assert titles(wikipedia, documents_once=True) == titles(wikipedia)


def test_a_wikipedia_claim_with_a_longer_or_misspelt_name_still_names_its_article():
    # HoVer dev claims that the exact test took for unnamed (their selection was reordered, and two lost their verdict)
    from claimhop.program.select.stage import names_nothing

    def pool(*titles: str) -> dict:
        return {t: {"title": t} for t in titles}

    blomqvist = "Stig Lennart Blomqvist drove an Audi, a car produced by German automobile manufacturer."
    assert not names_nothing(pool("Stig Blomqvist", "Audi Quattro (rally car)"), ["Stig Lennart Blomqvist"],
                             blomqvist)  # every word of the title is in the claim
    paul = "The Ran Paul presidential campaign, 2016 event was held at a hotel on the Ohio River."
    assert not names_nothing(pool("Rand Paul presidential campaign, 2016", "Galt House"), ["Ran Paul"], paul)
    assert not names_nothing(pool("Yellowcraigs", "Tantallon Castle"), ["Yellowcraig"], "North of Yellowcraig.")
    # a scientific claim's topic words are not a title: it still names nothing
    supplement = "Quorvalide intake is associated with better sleep in night-shift workers."
    assert names_nothing(pool("A year-long diary study of an evening supplement among hospital staff",
                              "Sleep of shift workers in the United Kingdom"), ["Quorvalide"], supplement)


def test_named_words_capitalised_does_not_take_a_common_word_for_a_title():
    """`named_words=capitalised`: "the exact nature of the records" does not name "Nature"; a name the claim writes
    capitalised still names its title, and a name NER found names it either way."""
    from claimhop.program.select.stage import names_nothing

    def pool(*titles: str) -> dict:
        return {t: {"title": t} for t in titles}

    nature = "Getting hung up on the exact nature of the records is interesting."
    assert not names_nothing(pool("Nature", "Global cooling"), [], nature)  # named_words=any: any words name a title
    assert names_nothing(pool("Nature", "Global cooling"), [], nature, "capitalised")
    bus = "What literary style describes the 1968 book that features a 1939 international Harvester school bus?"
    assert not names_nothing(pool("International Harvester", "Further (bus)"), [], bus, "capitalised")
    assert names_nothing(pool("International Harvester", "Further (bus)"), [], bus, "every_capitalised")
    assert not names_nothing(pool("Nature"), ["Nature"], nature, "capitalised")  # NER's name counts


def test_a_named_claims_first_documents_in_files_are_the_plain_searchs_first_five():
    # passages of the user's files (they carry their file): the claim names "Rio Grande", whose two passages the
    # entity scores put first; the claim's own search ranks the dam's passage, the evidence, third
    texts = {"Rio Grande": "The Rio Grande flows to the Gulf.", "Rio Grande (2)": "The Rio Grande basin.",
             "Glen Canyon Dam": "Lake Powell filled after a wet winter.", "Texas": "Texas borders the river.",
             "Snowpack": "Snow fell in the Rockies.", "Colorado River": "The Colorado River."}
    candidates = {t: {**cand(t, x, 0.02), "source": f"{t.split(' (')[0].lower()}.md"} for t, x in texts.items()}
    order = ["Snowpack", "Colorado River", "Glen Canyon Dam", "Texas", "Rio Grande (2)", "Rio Grande"]
    ranking = [candidates[t] for t in order]
    claim = "Last year was a wet one on the Rio Grande."

    def titles(**settings):
        return [d["title"] for d in select_from(candidates, ["Rio Grande"], [], ranking, Context(**settings),
                                                claim=claim)]

    assert Context().tuning.file_claim_lead == 5 and Context().tuning.claim_lead == 1
    assert titles()[:5] == order[:5]  # the plain search's first five, in its order
    led_by_one = titles(file_claim_lead=1)
    assert led_by_one[:3] == ["Snowpack", "Rio Grande", "Rio Grande (2)"]  # the names' passages ahead of the dam
    # the same passages without files (the bundled corpus, one passage an article): claim_lead holds
    bare = {t: {k: v for k, v in c.items() if k != "source"} for t, c in candidates.items()}
    kept = select_from(bare, ["Rio Grande"], [], [bare[t] for t in order], Context(), claim=claim)
    assert [d["title"] for d in kept][:3] == ["Snowpack", "Rio Grande", "Rio Grande (2)"]
