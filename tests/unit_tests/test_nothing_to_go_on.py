"""The rule that says a claim has nothing to go on: only when no selected document mentions any of its names."""

from claimhop.program.verify.coverage import (
    claim_names,
    unmentioned_names,
    without_opening_word,
)

DOCS = [{"title": "Louisville, Kentucky", "text": "Louisville is the largest city in Kentucky."},
        {"title": "Batthyány family", "text": "The Batthyány family is a Hungarian noble family."}]


def test_a_name_no_document_mentions_is_reported():
    assert unmentioned_names(["Zorblax Quintero"], DOCS) == ["Zorblax Quintero"]


def test_one_mentioned_name_is_enough_to_go_on():
    assert unmentioned_names(["Zorblax Quintero", "Louisville"], DOCS) is None


def test_misspelt_and_unaccented_names_still_count_as_mentioned():
    assert unmentioned_names(["Lousiville"], DOCS) is None
    assert unmentioned_names(["Batthyany"], DOCS) is None


def test_a_claim_without_names_is_not_judged_by_this_rule():
    assert unmentioned_names([], DOCS) is None


def test_nationalities_are_what_a_claim_says_not_names_to_look_for():
    claim = "Zorblax Quintero was an American chess player."
    assert claim_names(claim, ["Zorblax Quintero", "American"]) == ["Zorblax Quintero"]


def test_a_sentences_capitalised_opening_word_is_no_name_to_test():
    """Climate-FEVER's "Preventing future pandemics ..." got INSUFFICIENT_INFO unread because no document said
    "Preventing"; a name the tagger finds at the opening stays, and so do the claim's other names."""
    from claimhop.program.verify.stage import ToVerify, nothing_to_go_on

    claim = "Preventing future pandemics requires more not less industrial agriculture."
    assert without_opening_word(claim, ["Preventing"]) == []
    assert nothing_to_go_on(ToVerify(claim=claim, selected=DOCS, claim_entities=["Preventing"])) is None
    named = "“Unlike genuine pollutants, carbon dioxide (CO2) is an odorless gas."
    assert without_opening_word(named, ["Unlike", "CO2"]) == ["CO2"]
    person = "Barack Obama supports proposals to fund fish and wildlife agencies."
    assert without_opening_word(person, ["Barack Obama"]) == ["Barack Obama"]
    # one capitalised word and "of the" is the opening dropped; a name with more capitals, or one the tagger finds, stays
    assert without_opening_word("Each of the six ice ages began with more CO2.", ["Each of the"]) == []
    skagen = "Skagen Painter Peder Severin Krøyer favored naturalism."
    assert without_opening_word(skagen, ["Skagen Painter Peder Severin Krøyer"]) == ["Skagen Painter Peder Severin Krøyer"]
    assert without_opening_word("", []) == [] and without_opening_word("...", ["X"]) == ["X"]
    # a claim with a real name besides its opening word is still tested, on every name it has
    both = nothing_to_go_on(ToVerify(claim="Unlike coal, Zorblax Quintero burns clean.", selected=DOCS,
                                     claim_entities=["Unlike", "Zorblax Quintero"]))
    assert both is not None and "Zorblax Quintero" in both.reason
    # a real name no document mentions still has nothing to go on
    zorblax = "Zorblax Quintero was an American chess player."
    empty = nothing_to_go_on(ToVerify(claim=zorblax, selected=DOCS, claim_entities=["Zorblax Quintero", "American"]))
    assert empty is not None and empty.verdict == "INSUFFICIENT_INFO"
