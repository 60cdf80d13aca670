"""The Kuzu entity graph: articles, sections and the links between articles that name each other; the bridge
step following those links; and the multi-document synthesiser's ranking, filtering, checks and cache."""

from __future__ import annotations

import json

import pytest
from fakes import fake_lm
from small_corpus import SMALL_CORPUS
from test_graph_routing import answers

import claimhop.cli.main
import claimhop.program.runtime
from claimhop.retrieval.article_links import LINKS_FILE, ArticleLinks, article_links
from claimhop.retrieval.corpus import corpus_file, load_corpus
from claimhop.retrieval.entity_graph import (
    common_words,
    graph_connection,
    linkable,
    linked_articles,
    remove_entity_graph,
)
from claimhop.retrieval.index_store import index_dir_for
from claimhop.retrieval.synthesis import MultiDocSynthesizer

EXTRA = [
    {"title": "Runaways trivia", "text": "Who sang lead for The Runaways? Cherie Currie sang lead for The Runaways. "
                                         "Cherie Currie sang lead for The Runaways. Yes. Steve Augeri did not. Red foxes ran."},
]
TITLES = [row["title"] for row in SMALL_CORPUS + EXTRA]


@pytest.fixture(scope="module")
def graph(tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    corpus = tmp_path_factory.mktemp("corpus") / "linked.jsonl"
    corpus.write_text("\n".join(json.dumps(r) for r in SMALL_CORPUS + EXTRA) + "\n", encoding="utf-8")
    mp = pytest.MonkeyPatch()
    mp.setenv("CLAIMHOP_HOME", str(home))
    mp.setattr(claimhop.cli.main, "stop_at_once_on_ctrl_c", lambda: None)
    yield corpus
    mp.undo()


def built(corpus, capsys) -> dict:
    assert claimhop.cli.main.main(["index", str(corpus), "--entity-graph"]) == 0
    return json.loads(capsys.readouterr().out)["entity_graph"]


def test_articles_link_to_the_articles_their_text_names(graph, capsys):
    report = built(graph, capsys)
    assert report["articles"] == len(TITLES) and report["sections"] >= len(TITLES)
    connection = graph_connection(index_dir_for(corpus_file(graph)), corpus_file(graph).sha256)
    soundtrack = TITLES.index("Foxes (soundtrack)")
    linked = {title for _, _, title in linked_articles(connection, [soundtrack], 10)}
    assert linked == {"Jodie Foster", "Cherie Currie", "The Runaways"}  # "Foxes" is also a word here ("red foxes")
    from_two = linked_articles(connection, [soundtrack, TITLES.index("Runaways trivia")], 10)
    assert from_two[0][2] in {"Cherie Currie", "The Runaways"}  # named by both sources: first
    assert all(target not in {soundtrack} for _, target, _ in from_two)
    trivia = TITLES.index("Runaways trivia")
    once = lambda order: [t for _, _, t in linked_articles(connection, order, 10) if t in {"Jodie Foster", "Steve Augeri"}]
    assert once([soundtrack, trivia]) == ["Jodie Foster", "Steve Augeri"]  # named once: the better source's first
    assert once([trivia, soundtrack]) == ["Steve Augeri", "Jodie Foster"]
    assert linked_articles(connection, [trivia, soundtrack], 10)[0][0] == trivia  # "from" is the best source


def test_a_graph_is_never_used_for_another_corpus(graph, small_corpus, capsys, tmp_path):
    built(graph, capsys)
    folder = index_dir_for(corpus_file(graph))
    assert graph_connection(folder, corpus_file(small_corpus).sha256) is None
    from claimhop.retrieval.index_store import build_indexes
    build_indexes(corpus_file(small_corpus), folder)  # the folder now indexes another corpus
    assert not (folder / "entity_graph.kuzu").exists()
    assert graph_connection(folder, corpus_file(graph).sha256) is None


def test_only_unambiguous_titles_are_linked():
    ordinary = common_words(["Foxes are mammals; foxes hunt.", "a long journey by Madonna"])
    assert linkable("Cherie Currie", ordinary) and linkable("Journey (band)", ordinary)
    assert linkable("Madonna", ordinary)  # never an ordinary word
    assert not linkable("Foxes", ordinary) and not linkable("Journey", ordinary) and not linkable("It", ordinary)


def test_the_link_table_holds_exactly_the_graphs_links_and_is_remade_for_another_corpus(graph, capsys, tmp_path):
    built(graph, capsys)
    corpus = load_corpus(graph)
    folder = index_dir_for(corpus_file(graph))
    result = graph_connection(folder, corpus.sha256).execute("MATCH (a:Article)-[:LINKS_TO]->(b:Article) RETURN a.id, b.id")
    edges = set()
    while result.has_next():
        edges.add(tuple(int(x) for x in result.get_next()))
    table = article_links(tmp_path, corpus.titles, corpus.texts, corpus.sha256)
    assert edges and set(table.pairs()) == edges
    saved = ArticleLinks.load(tmp_path / LINKS_FILE)
    assert saved is not None and set(saved.pairs()) == edges and saved.corpus_sha256 == corpus.sha256
    other = article_links(tmp_path, corpus.titles[:2], corpus.texts[:2], "another corpus")
    assert len(other.offsets) == 3 and ArticleLinks.load(tmp_path / LINKS_FILE).corpus_sha256 == "another corpus"
    (tmp_path / LINKS_FILE).write_bytes(b"not an npz")
    assert ArticleLinks.load(tmp_path / LINKS_FILE) is None  # a damaged file is remade, not trusted


def test_the_bridge_step_follows_links_when_asked_without_the_kuzu_graph(graph, monkeypatch, capsys):
    remove_entity_graph(index_dir_for(corpus_file(graph)))  # following links needs only the link table
    lm, _ = fake_lm(answers())
    monkeypatch.setattr(claimhop.program.runtime, "get_lm", lambda model: lm)
    args = ["check", "Cherie Currie and Steve Augeri were both American.", "--corpus", str(graph), "--json",
            "--quiet", "--set", "use_optimized_program=false", "--set", "max_iterations=0",
            "--set", "phase1_k=2", "--set", "phase2_k=1", "--set", "bridge_k=1",  # leave documents to be linked
            "--set", "verifier=single"]
    assert claimhop.cli.main.main(args) == 0  # on by default (3)
    with_links = json.loads(capsys.readouterr().out)
    link_hops = [h for h in with_links["hops"] if h["step"] == "links"]
    assert link_hops and all(h["query"].startswith("named by ") and h["titles"] for h in link_hops)
    linked = {t for h in link_hops for t in h["titles"]}
    selected = {d["title"]: d for d in with_links["selected"]}
    assert linked <= selected.keys()  # a linked article counts as looked up, so selection weighs its title
    assert all(t in selected[t]["looked_up"] for t in linked if t not in selected[t]["claim_entities"])
    assert claimhop.cli.main.main([*args, "--set", "link_articles=0"]) == 0
    assert not [h for h in json.loads(capsys.readouterr().out)["hops"] if h["step"] == "links"]


def test_the_synthesiser_ranks_articles_and_extracts_clean_facts(graph, capsys):
    built(graph, capsys)
    connection = graph_connection(index_dir_for(corpus_file(graph)), corpus_file(graph).sha256)
    synth = MultiDocSynthesizer(connection, max_articles=2, max_sections=3, min_relevance=0.6)
    facts = synth.facts("Who was the lead singer of The Runaways?", list(range(len(TITLES))))
    assert 1 <= len({f.title for f in facts}) <= 2
    texts = [f.text for f in facts]
    assert not [t for t in texts if t.endswith("?") or len(t) < 20]  # no questions, no fragments ("Yes.")
    assert len(texts) == len({t.casefold() for t in texts})  # the repeated sentence once
    assert all(0.6 <= f.relevance <= 1 for f in facts)
    assert any("lead singer of The Runaways" in t or "sang lead for The Runaways" in t for t in texts)
    again = synth.facts("who was the lead singer of  The Runaways?", list(reversed(range(len(TITLES)))))
    assert again == facts and synth.cache_hits == 1


def test_the_synthesiser_refuses_bad_settings_and_connections(graph, capsys):
    built(graph, capsys)
    connection = graph_connection(index_dir_for(corpus_file(graph)), corpus_file(graph).sha256)
    for kwargs, error in [({"max_articles": 0}, ValueError), ({"max_articles": 11}, ValueError),
                          ({"max_sections": 2.5}, TypeError), ({"min_relevance": 1.5}, ValueError),
                          ({"min_relevance": "high"}, TypeError), ({"max_articles": True}, TypeError)]:
        with pytest.raises(error):
            MultiDocSynthesizer(connection, **kwargs)
    with pytest.raises(TypeError, match="kuzu.Connection"):
        MultiDocSynthesizer("bolt://localhost")
    with pytest.raises(ValueError, match="question"):
        MultiDocSynthesizer(connection).facts("  ", [0])


def test_idf_weighted_link_following_prefers_a_specific_article_to_one_every_article_names():
    """Article 0 (the best document) and article 1 both name "United States" (4), which every article names;
    article 0 also names the director (5), named by no other article. By count the country wins; weighted by
    specificity, the director does."""
    from claimhop.retrieval.article_links import rank_linked

    links = ArticleLinks.from_lists([[4, 5], [4], [4], [4], [], []], "test")
    assert links.times_named.tolist() == [0, 0, 0, 0, 4, 1]
    assert links.specificity(5) > links.specificity(4)
    pairs = links.pairs([0, 1])
    assert rank_linked(pairs, [0, 1], 1) == [(0, 4)]
    assert rank_linked(pairs, [0, 1], 1, weight=links.specificity) == [(0, 5)]


def test_the_bundled_corpus_reads_its_shipped_link_table_instead_of_computing_it(tmp_path, monkeypatch):
    """The bundled corpus's table is the same on every machine: a fresh index folder uses the shipped file (made from
    this very corpus) and computes nothing; another corpus still gets its own."""
    import claimhop.retrieval.article_links as article_links
    from claimhop.retrieval.corpus import load_corpus

    corpus = load_corpus()
    monkeypatch.setattr(article_links, "_CACHE", {})
    monkeypatch.setattr(article_links, "build_links", lambda *a: pytest.fail("computed the shipped table again"))
    links = article_links.article_links(tmp_path, corpus.titles, corpus.texts, corpus.sha256)
    assert links.corpus_sha256 == corpus.sha256 and links.count == len(corpus.titles)
    assert not (tmp_path / article_links.LINKS_FILE).exists()
    monkeypatch.setattr(article_links, "build_links", lambda titles, texts: [[1], []])
    other = article_links.article_links(tmp_path, ["A", "B"], ["B is here.", "nothing"], "another corpus")
    assert other.pairs() == [(0, 1)] and (tmp_path / article_links.LINKS_FILE).is_file()
