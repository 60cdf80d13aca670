"""Retrieval on a small real corpus with the real encoder: persisted indexes, hybrid search, title lookup."""

import json

import pytest

from claimhop.retrieval.corpus import CorpusError, load_corpus
from claimhop.retrieval.index_store import (
    IndexNotBuiltError,
    build_indexes,
    load_indexes,
    open_indexes,
)
from claimhop.retrieval.service import IndexSearch
from claimhop.retrieval.titles import TitleIndex, normalize_title


@pytest.fixture(scope="module")
def retriever(small_corpus, tmp_path_factory):
    corpus = load_corpus(small_corpus)
    return IndexSearch(corpus, build_indexes(corpus, tmp_path_factory.mktemp("idx")))


def test_search_before_an_index_exists_is_a_clear_error(small_corpus, tmp_path):
    with pytest.raises(IndexNotBuiltError, match="claimhop index"):
        load_indexes(load_corpus(small_corpus), tmp_path / "none")


def test_index_is_reused_while_the_manifest_matches(small_corpus, tmp_path):
    corpus = load_corpus(small_corpus)
    built = open_indexes(corpus, folder=tmp_path)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["corpus_sha256"] == corpus.sha256 and manifest["count"] == len(corpus)
    assert manifest["encoder"].endswith("all-MiniLM-L6-v2")
    again = open_indexes(corpus, folder=tmp_path)
    assert again.manifest == built.manifest


def test_an_index_from_another_corpus_is_not_used(small_corpus, tmp_path):
    corpus = load_corpus(small_corpus)
    build_indexes(corpus, tmp_path)
    other = tmp_path / "other.jsonl"
    other.write_text(small_corpus.read_text() + '{"title": "Extra", "text": "Another document."}\n')
    with pytest.raises(IndexNotBuiltError):
        load_indexes(load_corpus(other), tmp_path)


@pytest.mark.parametrize("mode", ["hybrid", "bm25", "dense"])
def test_the_answer_document_ranks_first(retriever, mode):
    hits = retriever.search("lead vocalist of Journey from 1998 to 2006", 3, mode)
    assert hits[0].title == "Steve Augeri"


def test_k_larger_than_the_corpus_returns_the_whole_corpus(retriever):
    assert len({h.doc_id for h in retriever.search("singer", 1000, "dense")}) == len(retriever.corpus)
    assert len({h.doc_id for h in retriever.search("singer", 1000, "hybrid")}) == len(retriever.corpus)


def test_title_lookup_exact_base_and_fuzzy(retriever):
    assert retriever.by_title("steve augeri")[0].title == "Steve Augeri"
    assert "Foxes (soundtrack)" in [h.title for h in retriever.by_title("Foxes")]
    assert retriever.by_title("Steve Augerri")[0].title == "Steve Augeri"
    assert retriever.by_title("Nobody At All") == []


def test_title_normalisation_matches_dspy():
    from dspy.evaluate.metrics import normalize_text

    for title in ["The Runaways", "Foxes (soundtrack)", "Beyoncé", "A Tale of Two Cities", "AC/DC"]:
        assert normalize_title(title) == normalize_text(title)
    assert TitleIndex(["&quot;Q&quot; Is for Quarry"]).lookup('"Q" Is for Quarry') == [0]


@pytest.mark.parametrize(
    "content, problem",
    [("", "no documents"), ("not json\n", "not valid JSON"), ('{"text": "x"}\n', "missing 'title'"),
     ('{"title": "x"}\n', "missing 'text'"), ("[1, 2]\n", "JSON object")],
)
def test_malformed_corpus_names_the_problem(tmp_path, content, problem):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(CorpusError, match=problem):
        load_corpus(path)


def test_missing_corpus_file_is_named(tmp_path):
    with pytest.raises(CorpusError, match="not found"):
        load_corpus(tmp_path / "nope.jsonl")


def test_duplicate_titles_keep_the_first_and_ids_accepted(tmp_path):
    path = tmp_path / "dups.jsonl"
    path.write_text('{"title": "A", "text": "first"}\n{"title": "A", "text": "second"}\n{"id": 7, "text": "seven"}\n')
    corpus = load_corpus(path)
    assert corpus.titles == ["A", "7"] and corpus.texts[0] == "first"
