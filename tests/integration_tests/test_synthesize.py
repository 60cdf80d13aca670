"""`claimhop synthesize` as a user runs it: real bundled articles, a real `claimhop index --entity-graph` (Kuzu
graph, sections embedded by the real encoder), the real search, separate processes. The whole bundled corpus's
graph takes about 3 minutes to build, so the index is of 120 of its articles: those the questions need and a
seeded sample of the rest (about 5 s to build)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest

from claimhop.retrieval.corpus import load_corpus

pytestmark = pytest.mark.integration

QUESTION = "Who was the lead singer of The Runaways?"
NEEDED = ["Cherie Currie", "Foxes (soundtrack)", "Steve Augeri", "Heather Watts"]
SIZE = 120


def claimhop(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "claimhop.cli.main", *args], capture_output=True, text=True,
                          env=env, timeout=300, check=False)


def one_line_error(result: subprocess.CompletedProcess) -> str:
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    """Built as a user would: first without the graph (synthesize must say how to build it), then with it."""
    bundled = load_corpus()
    folder = tmp_path_factory.mktemp("synthesize")
    by_title = {title: i for i, title in enumerate(bundled.titles)}
    ids = [by_title[t] for t in NEEDED if t in by_title]
    ids += [i for i in random.Random(0).sample(range(len(bundled)), SIZE) if i not in ids][: SIZE - len(ids)]
    corpus = folder / "articles.jsonl"
    corpus.write_text("".join(json.dumps(bundled.document(i)) + "\n" for i in ids), encoding="utf-8")
    env = {**os.environ, "CLAIMHOP_HOME": str(folder / "home")}
    target = ["--corpus", str(corpus), "--index-dir", str(folder / "index")]
    assert claimhop("index", *target, env=env).returncode == 0
    without_graph = claimhop("synthesize", QUESTION, *target, env=env)
    built = claimhop("index", *target, "--entity-graph", env=env)
    assert built.returncode == 0, built.stderr
    assert json.loads(built.stdout)["entity_graph"]["articles"] == len(ids)
    texts = {bundled.titles[i]: bundled.texts[i] for i in ids}

    def run(*args: str) -> subprocess.CompletedProcess:
        return claimhop("synthesize", *args, *target, env=env)

    return {"run": run, "texts": texts, "without_graph": without_graph, "target": target}


def facts_of(result: subprocess.CompletedProcess) -> list[dict]:
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["articles"]


def check_facts(articles: list[dict], texts: dict[str, str], min_relevance: float) -> None:
    """Every fact is a sentence of the article it is listed under, at the relevance asked for, best first."""
    for article in articles:
        assert article["facts"]
        for fact in article["facts"]:
            assert fact["text"] in texts[article["title"]]
            assert min_relevance <= fact["relevance"] <= 1
        relevances = [fact["relevance"] for fact in article["facts"]]
        assert relevances == sorted(relevances, reverse=True)
        assert article["best_relevance"] == relevances[0]


def test_searched_articles_give_the_facts_that_answer_the_question(index):
    result = json.loads(index["run"](QUESTION, "--search", "10", "--json").stdout)
    candidates = [c["title"] for c in result["candidates"]]
    assert len(candidates) == 10 and "Cherie Currie" in candidates
    articles = result["articles"]
    assert 1 <= len(articles) <= 5 and {a["title"] for a in articles} <= set(candidates)
    assert set(result["no_facts_from"]) == set(candidates) - {a["title"] for a in articles}
    check_facts(articles, index["texts"], 0.7)
    assert articles[0]["title"] == "Cherie Currie"
    assert any("lead vocalist of the Runaways" in fact["text"] for fact in articles[0]["facts"])


def test_named_articles_are_read_and_printed_grouped_best_first(index):
    result = index["run"](QUESTION, "--title", "steve augeri", "--title", "Foxes (soundtrack)",
                          "--titles", "Cherie Currie")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "(titles)" in out.splitlines()[0] and "from 2 of 3 articles" in out.splitlines()[0]
    currie, foxes = out.index("\nCherie Currie  (best section"), out.index("\nFoxes (soundtrack)  (best section")
    assert currie < foxes
    assert "lead vocalist of the Runaways" in out[currie:foxes]
    assert "The Runaways' lead singer Cherie Currie" in out[foxes:]
    assert "no facts from 1" in out and out.rstrip().splitlines()[-3].endswith(": Steve Augeri")
    as_json = facts_of(index["run"](QUESTION, "--title", "Steve Augeri", "--title", "Foxes (soundtrack)",
                                    "--title", "Cherie Currie", "--json"))
    assert [a["title"] for a in as_json] == ["Cherie Currie", "Foxes (soundtrack)"]
    check_facts(as_json, index["texts"], 0.7)


def test_an_article_s_sections_come_best_first_and_are_capped(index):
    question = "Which ballets did Heather Watts dance in?"
    every = facts_of(index["run"](question, "--title", "Heather Watts", "--min-relevance", "0", "--json"))
    check_facts(every, index["texts"], 0.0)
    relevances = [fact["relevance"] for fact in every[0]["facts"]]
    assert len(set(relevances)) >= 2  # several sections, the most relevant first whatever its place in the text:
    places = [index["texts"]["Heather Watts"].index(fact["text"]) for fact in every[0]["facts"]]
    assert places != sorted(places)  # here its third section comes before its second
    best = facts_of(index["run"](question, "--title", "Heather Watts", "--min-relevance", "0", "--max-sections", "1",
                                 "--json"))
    assert {fact["relevance"] for fact in best[0]["facts"]} == {relevances[0]}
    assert [f["text"] for f in best[0]["facts"]] == [f["text"] for f in every[0]["facts"]
                                                     if f["relevance"] == relevances[0]]


def test_bad_input_is_one_line_naming_the_fix(index):
    missing = one_line_error(index["without_graph"])
    assert "no entity graph" in missing and "`claimhop index" in missing and "--entity-graph`" in missing
    corpus, folder = index["target"][1], index["target"][3]
    assert f"`claimhop index {corpus} --index-dir {folder} --entity-graph`" in missing  # the very command to run
    unknown = one_line_error(index["run"](QUESTION, "--title", "Cheri Curie"))
    assert "unknown title 'Cheri Curie'" in unknown and "did you mean 'Cherie Currie'" in unknown
    both = one_line_error(index["run"](QUESTION, "--title", "Cherie Currie", "--search", "5"))
    assert "not both" in both
    assert "--max-articles must be 1 to 10" in one_line_error(index["run"](QUESTION, "--max-articles", "11"))
    assert "question is empty" in one_line_error(index["run"]("  "))
