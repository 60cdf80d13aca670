"""`claimhop index`: a streamed, sharded build that resumes after a kill, is reused while its manifest matches,
reports a damaged index instead of using it, and offers exact or approximate FAISS indexes with measured recall."""

from __future__ import annotations

import json

import numpy as np
import pytest

import claimhop.cli.main
import claimhop.retrieval.shards
from claimhop.retrieval import ann
from claimhop.retrieval.corpus import corpus_file, load_corpus
from claimhop.retrieval.encoder import encode
from claimhop.retrieval.index_store import (
    IndexCorruptError,
    IndexNotBuiltError,
    build_indexes,
    load_indexes,
    open_indexes,
)
from claimhop.retrieval.service import IndexSearch


def index_cli(*args: str) -> int:
    return claimhop.cli.main.main(["index", *args])


def test_index_command_builds_then_reuses(small_corpus, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(claimhop.cli.main, "stop_at_once_on_ctrl_c", lambda: None)
    folder = tmp_path / "idx"
    assert index_cli(str(small_corpus), "--index-dir", str(folder)) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["count"] == 8 and first["index_type"] == "flat" and first["dense_index"] == "IndexFlatIP"
    assert first["folder"] == str(folder) and (folder / "manifest.json").is_file()
    assert index_cli(str(small_corpus), "--index-dir", str(folder)) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["build_seconds"] == first["build_seconds"]  # the same manifest: nothing was rebuilt


def test_a_killed_build_resumes_at_the_first_missing_shard(small_corpus, tmp_path, monkeypatch):
    corpus, folder = corpus_file(small_corpus), tmp_path / "idx"
    calls = []

    def dies_on_third_shard(texts):
        calls.append(len(texts))
        if len(calls) == 3:
            raise KeyboardInterrupt  # Ctrl-C while the third shard is being embedded
        return encode(texts)

    monkeypatch.setattr(claimhop.retrieval.shards, "encode", dies_on_third_shard)
    with pytest.raises(KeyboardInterrupt):
        build_indexes(corpus, folder, shard_size=2)
    assert sorted(p.name for p in (folder / "shards").glob("emb-*")) == ["emb-000000.f16.npy", "emb-000001.f16.npy"]
    with pytest.raises(IndexNotBuiltError):
        load_indexes(corpus, folder)  # no manifest: a half-built index is never used

    calls.clear()
    monkeypatch.setattr(claimhop.retrieval.shards, "encode", lambda texts: calls.append(len(texts)) or encode(texts))
    resumed = build_indexes(corpus, folder, shard_size=2)
    assert calls == [2, 2]  # only shards 3 and 4 were embedded
    assert resumed.manifest["embeddings_source"] == "encoded+resumed" and resumed.manifest["count"] == 8
    fresh = build_indexes(corpus, tmp_path / "fresh", shard_size=2)
    small = load_corpus(small_corpus)
    for mode in ("dense", "bm25"):
        a = IndexSearch(small, resumed).search("lead singer of The Runaways", 8, mode)
        b = IndexSearch(small, fresh).search("lead singer of The Runaways", 8, mode)
        assert [h.doc_id for h in a] == [h.doc_id for h in b]


def test_a_damaged_index_is_reported_and_rebuilt_on_request(small_corpus, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(claimhop.cli.main, "stop_at_once_on_ctrl_c", lambda: None)
    corpus, folder = corpus_file(small_corpus), tmp_path / "idx"
    build_indexes(corpus, folder)
    dense = folder / "dense.faiss"
    dense.write_bytes(dense.read_bytes()[: dense.stat().st_size // 2])
    with pytest.raises(IndexCorruptError, match="damaged"):
        open_indexes(corpus, folder=folder)
    assert index_cli(str(small_corpus), "--index-dir", str(folder)) == 2
    assert "--rebuild" in capsys.readouterr().err
    assert index_cli(str(small_corpus), "--index-dir", str(folder), "--rebuild") == 0
    assert len(load_indexes(corpus, folder).dense) == 8


def test_an_unreadable_file_of_the_right_size_is_reported(small_corpus, tmp_path):
    corpus, folder = corpus_file(small_corpus), tmp_path / "idx"
    build_indexes(corpus, folder)
    dense = folder / "dense.faiss"
    dense.write_bytes(b"\0" * dense.stat().st_size)
    with pytest.raises(IndexCorruptError, match="cannot be read"):
        load_indexes(corpus, folder)


def test_an_approximate_index_records_its_recall_against_exact_search(small_corpus, tmp_path):
    built = build_indexes(corpus_file(small_corpus), tmp_path / "hnsw", index_type="hnsw")
    assert built.manifest["index_type"] == "hnsw" and built.manifest["dense_index"] == "IndexHNSWFlat"
    assert built.manifest["recall_at_10_vs_exact"] == 1.0  # 8 documents: every search is exhaustive
    switched = open_indexes(corpus_file(small_corpus), folder=tmp_path / "hnsw", index_type="flat")
    assert switched.manifest["index_type"] == "flat" and switched.manifest["embeddings_source"] == "resumed"


def test_leftovers_of_a_killed_build_are_swept_and_ivfpq_needs_enough_documents(small_corpus, tmp_path):
    corpus, folder = corpus_file(small_corpus), tmp_path / "idx"
    good = build_indexes(corpus, folder)
    (folder / ".dense.faiss.abc.tmp").write_bytes(b"half")
    (folder / ".entity-graph.x.tmp").mkdir()
    with pytest.raises(ValueError, match="IVF-PQ index needs at least"):
        build_indexes(corpus, folder, index_type="ivfpq")
    assert load_indexes(corpus, folder).manifest == good.manifest  # the working index was not touched
    assert not list(folder.glob(".*.tmp"))


def clustered_vectors(count: int, dim: int = 64, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(64, dim))
    points = centres[rng.integers(0, 64, count)] + rng.normal(0, 0.4, (count, dim))
    return (points / np.linalg.norm(points, axis=1, keepdims=True)).astype(np.float32)


# IVF-PQ trades recall for memory (8 code bytes per 64-dim vector here): its recall is measured, not promised
@pytest.mark.parametrize(("kind", "at_least"), [("flat", 1.0), ("hnsw", 0.95), ("ivfpq", 0.2)])
def test_recall_against_exact_is_measured_shard_by_shard(kind, at_least):
    vectors = clustered_vectors(12_000)
    shards = np.array_split(vectors, 5)
    index = ann.new_index(kind, vectors.shape[1], len(vectors))
    if kind == "ivfpq":
        index.train(ann.train_sample(shards, len(vectors)))
    for shard in shards:
        index.add(shard)
    queries = ann.probe_queries(shards, 100)
    exact = ann.exact_top_k(queries, iter(shards), 10)
    reference = np.argsort(-(queries @ vectors.T), axis=1, kind="stable")[:, :10]
    assert (np.sort(exact, axis=1) == np.sort(reference, axis=1)).all()  # the streamed exact search is exact
    recall = ann.recall_against_exact(index, queries, exact)
    assert at_least <= recall <= 1.0


def test_auto_is_exact_for_small_corpora_and_hnsw_above_the_limit():
    assert ann.resolve("auto", 24_729) == "flat"
    assert ann.resolve("auto", ann.AUTO_EXACT_LIMIT + 1) == "hnsw"
    with pytest.raises(ValueError, match="index type must be one of"):
        ann.resolve("annoy", 10)
