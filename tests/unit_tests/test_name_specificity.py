"""Names weighed by how common they are in the collection (`name_specificity`, claimhop.program.select.specificity):
a looked-up name that much of the collection mentions no longer lifts its documents over the claim's own first
search result, while a name few documents hold keeps its full weight."""

from __future__ import annotations

import json

import pytest

from claimhop.program import stages_for
from claimhop.program.found import candidate
from claimhop.program.select.specificity import name_weights, shares
from claimhop.retrieval.service import index_search
from claimhop.retrieval.tuned_search import TunedSearch
from state.context import Context

# Twelve city articles mention "December" (a name the bridge looks up on such documents); one article is about
# a rare name; the evidence is what a plain search of the claim ranks first.
CITIES = [{"title": f"City {i}", "text": f"City {i} has mild winters; December is its wettest month and humidity "
           "stays high."} for i in range(12)]
RARE = {"title": "Zephyrine Quillfeather", "text": "Zephyrine Quillfeather measured dew points in 1901."}
EVIDENCE = {"title": "Dew point", "text": "The dew point rises when humidity increases: reanalyses show humidity "
            "increasing over the oceans."}
CLAIM = "Reanalyses show that humidity is increasing, and the dew point rises with it."


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("specificity") / "corpus.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [*CITIES, RARE, EVIDENCE]), encoding="utf-8")
    return path


def test_a_names_share_is_the_documents_holding_all_its_words(corpus):
    engine = TunedSearch(index_search(corpus))  # claimhop's own engine as a run sees it
    size = len(CITIES) + 2
    got = shares(["December", "Zephyrine Quillfeather", "Zephyrine December", "For", "Nowhere Town"], engine)
    assert got["December"] == pytest.approx(12 / size)
    assert got["Zephyrine Quillfeather"] == pytest.approx(1 / size)
    assert got["Zephyrine December"] == 0.0  # no document holds both words
    assert got["For"] == float("inf")  # stop words only: it names nothing
    assert got["Nowhere Town"] == 0.0


def test_weights_fall_in_proportion_past_the_cut_and_off_means_none(corpus):
    engine = TunedSearch(index_search(corpus))
    size = len(CITIES) + 2
    weights = name_weights(["December", "Zephyrine Quillfeather", "For", "Nowhere Town"], engine, 0.1)
    assert weights["December"] == pytest.approx(0.1 / (12 / size))
    assert weights["Zephyrine Quillfeather"] == 1.0 and weights["Nowhere Town"] == 1.0
    assert weights["For"] == 0.0  # stop words only: no weight at all
    assert name_weights(["December"], engine, 0.0) == {}


def select(corpus, **settings) -> list[str]:
    """Selection as the graph runs it, in its score's order (no claim lead, and the claim's words name the cities as
    `named_words=any` has it): the cities found by a hop for the looked-up "December", the evidence the claim's own
    search ranks first."""
    ctx = Context(corpus_path=str(corpus), top_k=5, claim_k=1, claim_floor=0, claim_lead=0, named_words="any",
                  **settings)
    engine = stages_for(ctx).built.engine
    ranking = [candidate(h, rank, "claim") for rank, h in enumerate(engine.search_fused(CLAIM, 14), start=1)]
    assert ranking[0]["title"] == "Dew point"
    # the hop's documents score a little under the evidence; "December" lifts them over it in the score's order
    lower = 0.9 * ranking[0]["retrieval_score"]
    hop = {c["title"]: {**c, "retrieval_score": lower, "found_by": ["bridge"]} for c in ranking
           if c["title"].startswith("City")}
    out = stages_for(ctx).select(candidates=hop, claim_entities=[], looked_up=["December"],
                                 claim_ranking=ranking, claim=CLAIM)
    return [d["title"] for d in out.selected]


def test_a_common_looked_up_name_no_longer_pushes_the_claims_evidence_out(corpus):
    assert select(corpus)[0].startswith("City")  # without the knob a city that mentions "December" goes first
    assert select(corpus, name_specificity=0.05)[0] == "Dew point"
