"""The later hop: the links of the articles the chain has reached (the claim's own and what the bridge, link
following and the gap loop found) are followed after the gap loop, the most specific first; selection keeps the
next link of a chain that a kept document names; and an article that many others name is no bridge."""

from __future__ import annotations

import json

import pytest
from test_graph_routing import answers, run

import claimhop.retrieval.service
from claimhop.program.found import candidate
from claimhop.program.later_links import later_hop, later_link_sources
from claimhop.program.select.stage import select_from
from state.context import Context

FILLERS = [{"title": f"Company report {i}", "text": f"Report {i} was filed in London about ITC Entertainment."}
           for i in range(4)]
CHAIN = [
    {"title": "Anthony Bushell", "text": "Anthony Bushell was an English actor who directed British TV series such as "
                                         "Danger Man. He died in London."},
    {"title": "Danger Man", "text": "Danger Man is a British television series. Ralph Smart created the programme. "
                                    "It was financed by ITC Entertainment."},
    {"title": "Ralph Smart", "text": "Ralph Smart was a film and television producer, director, and writer."},
    {"title": "ITC Entertainment", "text": "ITC Entertainment was a British company."},
    {"title": "London", "text": "London is the capital city of England."},
    *FILLERS,
]


@pytest.fixture(scope="module")
def chain(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("CLAIMHOP_HOME", str(tmp_path_factory.mktemp("home")))
    path = tmp_path_factory.mktemp("corpus") / "chain.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in CHAIN), encoding="utf-8")
    yield claimhop.retrieval.service.index_search(path)
    mp.undo()


def found(search, title: str, step: str) -> dict:
    return {title: candidate(search.by_title(title, limit=1)[0], 1, step)}


def test_the_later_hop_goes_on_from_a_found_article_to_the_most_specific_article_it_names(chain):
    """Bushell (the claim's name) -> Danger Man (found by link following) -> its creator: London and ITC
    Entertainment are named by many articles, Ralph Smart by Danger Man alone."""
    candidates = {**found(chain, "Anthony Bushell", "phase1"), **found(chain, "Danger Man", "links"),
                  **found(chain, "Company report 0", "phase1")}
    sources = later_link_sources(candidates, ["Anthony Arnatt Bushell", "Anthony Bushell"])
    assert [chain.corpus.titles[i] for i in sources] == ["Anthony Bushell", "Danger Man"]  # not a phase-1 report
    hop = later_hop(chain, chain.link_table(), candidates, ["Anthony Bushell"], 1, by_specificity=True)
    added, hops = hop.candidates, hop.hops
    assert list(added) == ["Ralph Smart"] and added["Ralph Smart"]["found_by"] == ["later_links"]
    assert hops == [{"step": "later_links", "query": "named by Danger Man", "titles": ["Ralph Smart"]}]
    by_count = later_hop(chain, chain.link_table(), candidates, ["Anthony Bushell"], 1, by_specificity=False).candidates
    assert list(by_count) == ["London"]  # counted once each, the claim's own article's link comes first
    nothing = later_hop(chain, chain.link_table(), candidates, ["Anthony Bushell"], 0, True)
    assert (nothing.candidates, nothing.hops) == ({}, [])


def test_selection_keeps_the_next_link_of_a_chain_that_a_kept_document_names(chain):
    """Danger Man is kept (it names the claim's entity); of two documents that match nothing of the claim, the
    one Danger Man names goes on the chain, and a link every report names counts for less."""

    candidates = {**found(chain, "Danger Man", "phase1"), **found(chain, "Company report 1", "phase1"),
                  **found(chain, "Ralph Smart", "later_links"), **found(chain, "London", "links")}
    candidates["Danger Man"]["retrieval_score"] = 1.0
    links = chain.link_table()
    off = Context(top_k=2, claim_floor=0, claim_k=0, chain_weight=0.0)
    on = Context(top_k=2, claim_floor=0, claim_k=0, chain_weight=1.0)
    assert [d["title"] for d in select_from(candidates, ["Danger Man"], [], [], off, links)] == [
        "Danger Man", "Company report 1"]  # by title, among equal scores
    kept = select_from(candidates, ["Danger Man"], [], [], on, links)
    assert [d["title"] for d in kept] == ["Danger Man", "Ralph Smart"]
    assert kept[1]["chain"]["named_by"] == "Danger Man" and 0.5 < kept[1]["chain"]["bonus"] <= 1.0
    from claimhop.program.select.provenance import _why_score

    assert 'named by the kept "Danger Man"' in _why_score(kept[1])  # a follow-up says why it was kept
    assert select_from(candidates, ["Danger Man"], [], [], on, None) == select_from(
        candidates, ["Danger Man"], [], [], off, None)  # an external engine has no links: no chain term
    assert links.relative_specificity(chain.by_title("Ralph Smart")[0].doc_id) > links.relative_specificity(
        chain.by_title("London")[0].doc_id)


def test_the_graph_runs_the_later_hop_after_the_gap_loop_and_records_it(monkeypatch, small_corpus):
    settings = dict(max_iterations=0, phase1_k=2, phase2_k=1, bridge_k=1, link_articles=0, top_k=8)
    updates, final, _ = run(monkeypatch, small_corpus, answers(), later_link_articles=2, **settings)
    assert updates.index("later_links") == updates.index("bridge") + 1
    later = [h for h in final["hops"] if h["step"] == "later_links"]
    assert later and all(h["query"].startswith("named by ") for h in later)
    assert all(final["candidates"][t]["found_by"] == ["later_links"] for h in later for t in h["titles"])
    _, off, _ = run(monkeypatch, small_corpus, answers(), later_link_articles=0, **settings)
    assert not [h for h in off["hops"] if h["step"] == "later_links"]


def test_an_article_that_many_others_name_is_no_bridge(chain):
    """London and ITC Entertainment are named by five articles each here: with generic_links=5 the bridge does
    not look them up and no link hop adds them, so counting links finds the creator instead."""
    from claimhop.program.bridge.links import generic_names

    assert generic_names(chain, chain.link_table(), ["London", "Ralph Smart", "Nobody Known"], 5) == {"London"}
    assert generic_names(chain, chain.link_table(), ["London"], 0) == set()  # off
    candidates = {**found(chain, "Anthony Bushell", "phase1"), **found(chain, "Danger Man", "links")}
    by_count = later_hop(chain, chain.link_table(), candidates, ["Anthony Bushell"], 1, by_specificity=False,
                         generic=5).candidates
    assert list(by_count) == ["Ralph Smart"]
