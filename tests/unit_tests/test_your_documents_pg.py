"""`claimhop index FOLDER --pg`: the same passages, sources, BM25, vectors and links in PostgreSQL as in the
collection index, and an update after an edit replaces them."""

from __future__ import annotations

import json

import pytest
from postgres_db import new_database
from your_documents import EDITED_FACT, make_folder, write_docx

import claimhop.cli.main
from claimhop.retrieval.pg_search import pg_search
from claimhop.retrieval.service import index_search


@pytest.fixture
def postgres(postgres_server, tmp_path, monkeypatch):
    url = new_database(postgres_server, "your_documents")
    monkeypatch.setenv("CLAIMHOP_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CLAIMHOP_PG_URL", url)
    monkeypatch.setattr(claimhop.cli.main, "stop_at_once_on_ctrl_c", lambda: None)
    return url


def load(folder, index_dir, capsys) -> dict:
    assert claimhop.cli.main.main(["index", str(folder), "--index-dir", str(index_dir), "--pg",
                                   "--collection", "mine"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("mode", ["bm25", "dense", "hybrid"])
def test_a_folder_loads_into_postgresql_as_it_is_indexed(postgres, tmp_path, capsys, mode):
    folder = make_folder(tmp_path / "docs")
    report = load(folder, tmp_path / "idx", capsys)
    local = index_search(str(folder), index_dir=tmp_path / "idx")
    assert report["postgresql"]["documents"] == len(local.corpus) == report["passages"]
    engine = pg_search(postgres, "mine")
    query = "folk band formed in Norway"
    assert [(h.title, h.source) for h in engine.search(query, 4, mode=mode)] == \
           [(h.title, h.source) for h in local.search(query, 4, mode=mode)]
    assert engine.search(query, 1, mode=mode)[0].source == "bands/gray-tern.docx"
    assert engine.by_title("Gray Tern")[0].source == "bands/gray-tern.docx"
    assert sorted(engine.link_table().pairs(list(range(len(local.corpus))))) == sorted(local.link_table().pairs())


def test_an_update_replaces_the_collection(postgres, tmp_path, capsys):
    folder = make_folder(tmp_path / "docs")
    load(folder, tmp_path / "idx", capsys)
    write_docx(folder, EDITED_FACT)
    report = load(folder, tmp_path / "idx", capsys)
    assert report["files"]["changed"] == 1 and report["embedded"] == 1
    hit = pg_search(postgres, "mine").search("where was Gray Tern formed", 1)[0]
    assert "Reykjavík" in hit.text and hit.source == "bands/gray-tern.docx"
