"""The split repair on real dev claims and the facts the planning call actually gave for them (recorded in the
dev-169-selection run): a split that drops a name of the claim gets the whole claim as one more fact."""

from claims import hover_claim

from claimhop.entities.ner import extract_entities, unique
from claimhop.program.verify.facts import facts_from_split, lost_names

SPLITS = {  # recorded at commit 3750aa0 (docs/results/dev-169-selection), phase-1 queries after the claim
    "0012d9a6": ["The Runaways' lead singer is an American musician.",
                 "The Runaways' lead singer starred in the film 'Foxes' (soundtrack).",
                 "Steve Augeri was also an American musician."],
    "439e70ef": ["Épicure (opera) was composed by one of the composers that made Épicure (opera)."],
    "be6d453f": ["The film produced by the wife of Nick Hornby was released in 2015 in Ukranian threatres only.",
                 "The wife of Nick Hornby is Saoirse Ronan.", "Saoirse Ronan starred in the film."],
}


def names_of(claim: str) -> list[str]:
    return unique(extract_entities([claim], with_spans=True)[0])


def test_readmes_claim_keeps_every_name_so_its_split_is_judged_as_given():
    claim = hover_claim("0012d9a6")["claim"]
    assert lost_names(claim, names_of(claim), SPLITS["0012d9a6"]) == []
    facts = facts_from_split(SPLITS["0012d9a6"], claim, names_of(claim), repair="claim")
    assert [f["text"] for f in facts] == SPLITS["0012d9a6"]


def test_a_split_that_drops_the_claims_subject_gets_the_whole_claim_as_a_fact():
    claim = hover_claim("439e70ef")["claim"]  # the split lost "Michael Kemp Tippett", the claim's subject
    assert lost_names(claim, names_of(claim), SPLITS["439e70ef"]) == ["Michael Kemp Tippett"]
    facts = facts_from_split(SPLITS["439e70ef"], claim, names_of(claim), repair="claim")
    assert [f["text"] for f in facts] == [*SPLITS["439e70ef"], claim]
    assert "Michael Kemp Tippett" in facts[-1]["entities"]


def test_dropped_cast_members_are_found_and_the_repair_can_be_turned_off():
    claim = hover_claim("be6d453f")["claim"]
    assert set(lost_names(claim, names_of(claim), SPLITS["be6d453f"])) >= {"Emory Cohen", "Julie Walters"}
    facts = facts_from_split(SPLITS["be6d453f"], claim, names_of(claim), repair="off")
    assert [f["text"] for f in facts] == SPLITS["be6d453f"]
