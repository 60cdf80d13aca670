"""`claimhop index FOLDER`: real files read and split, an index that re-reads only what changed (and says so),
keeps serving the previous version when an update dies, and a link table that matches a full rebuild's."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from your_documents import ALBUM_FACT, BAND_FACT, EDITED_FACT, make_folder, write_docx

import claimhop.cli.main
import claimhop.retrieval.collection as collection
from claimhop.retrieval.article_links import ArticleLinks, build_links
from claimhop.retrieval.collection import current_version, update_collection
from claimhop.retrieval.corpus import load_corpus
from claimhop.retrieval.documents import collection_files, read_file
from claimhop.retrieval.sections import split_document
from claimhop.retrieval.service import index_search


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAIMHOP_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(claimhop.cli.main, "stop_at_once_on_ctrl_c", lambda: None)
    return tmp_path


def index(folder: Path, index_dir: Path, capsys, *extra: str) -> dict:
    assert claimhop.cli.main.main(["index", str(folder), "--index-dir", str(index_dir), *extra]) == 0
    out = capsys.readouterr()
    assert out.err.count("indexed ") == 1  # the one line saying what was done
    return json.loads(out.out)


def texts_of(index_dir: Path) -> dict[str, tuple[str, str]]:
    corpus = load_corpus(current_version(index_dir) / "corpus.jsonl")
    return {t: (x, corpus.source(i)) for i, (t, x) in enumerate(zip(corpus.titles, corpus.texts))}


def test_every_kind_of_file_is_read_with_its_title_and_source(home, capsys):
    folder = make_folder(home / "docs")
    report = index(folder, home / "idx", capsys)
    assert report["files"] == {"added": 5, "changed": 0, "removed": 0, "unchanged": 0}
    docs = texts_of(home / "idx")
    assert docs["Harbor Lights"] == (ALBUM_FACT + " It was recorded over three weeks in a converted boathouse.",
                                     "albums/harbor-lights.md")
    assert BAND_FACT in docs["Gray Tern"][0] and docs["Gray Tern"][1] == "bands/gray-tern.docx"  # heading = title
    assert "Cork, Ireland" in docs["Copper Finch"][0] and docs["Copper Finch"][1] == "web/copper-finch.html"
    assert "Bodø" in docs["festivals"][0] and docs["festivals"][1] == "festivals.pdf"  # a PDF has no heading: its name
    assert docs["Fjordline Records"][1] == "labels.csv#1" and docs["Stillwater Music"][1] == "labels.csv#2"
    engine = index_search(str(folder), index_dir=home / "idx")
    top = engine.search("folk band formed in Norway", 3)
    assert top[0].title == "Gray Tern" and top[0].source == "bands/gray-tern.docx"
    assert ("Harbor Lights", "Gray Tern") in {(engine.corpus.titles[a], engine.corpus.titles[b])
                                              for a, b in engine.link_table().pairs()}  # the album names the band


def test_a_long_document_becomes_titled_sections_of_readable_size():
    body = "# Annual Report\n\nThe lead.\n\n## Findings\n\n" + "A finding is stated here. " * 120 + "\n\n## Method\n\nWe asked."
    sections = split_document("Annual Report", body)
    assert [s.title for s in sections] == ["Annual Report", "Annual Report > Findings", "Annual Report > Findings (2)",
                                           "Annual Report > Findings (3)", "Annual Report > Method"]
    assert all(len(s.text) <= 1200 and s.text.endswith(".") for s in sections)
    assert split_document("Note", "# Note\n\nShort text.") == [split_document("Note", "Short text.")[0]]


def test_an_edit_rereads_only_that_file_and_embeds_only_its_passages(home, capsys):
    folder = make_folder(home / "docs")
    index(folder, home / "idx", capsys)
    first = current_version(home / "idx")
    write_docx(folder, EDITED_FACT)
    report = index(folder, home / "idx", capsys)
    assert report["files"] == {"added": 0, "changed": 1, "removed": 0, "unchanged": 4}
    assert report["embedded"] == 1 and report["reused_vectors"] == report["passages"] - 1
    assert not first.exists() and current_version(home / "idx") != first  # the old version is gone
    engine = index_search(str(folder), index_dir=home / "idx")
    assert "Reykjavík" in engine.search("where was Gray Tern formed", 1)[0].text
    assert not any("Tromsø" in t for t in engine.corpus.texts)
    assert engine.search("Tromsø", 5, mode="bm25") == []  # BM25 no longer knows the old words
    again = index(folder, home / "idx", capsys)
    assert again["files"]["unchanged"] == 5 and again["embedded"] == 0


def test_adding_and_removing_files_updates_search_and_links_like_a_full_build(home, capsys):
    folder = make_folder(home / "docs")
    index(folder, home / "idx", capsys)
    (folder / "albums" / "salt-roads.md").write_text("# Salt Roads\n\nSalt Roads is the debut album of Copper Finch.\n",
                                                     encoding="utf-8")
    (folder / "web" / "copper-finch.html").unlink()
    report = index(folder, home / "idx", capsys)
    assert report["files"] == {"added": 1, "changed": 0, "removed": 1, "unchanged": 4}
    assert report["links_scanned"] == 1  # only the new passage was read in full for titles
    version = current_version(home / "idx")
    corpus = load_corpus(version / "corpus.jsonl")
    assert "Copper Finch" not in corpus.titles and "Salt Roads" in corpus.titles
    kept = ArticleLinks.load(version / "links.npz")
    full = ArticleLinks.from_lists(build_links(corpus.titles, corpus.texts), corpus.sha256)
    assert kept.pairs() == full.pairs()
    # a later file naming a title the collection already has: the old passages are scanned for the new title only
    (folder / "bands" / "more.md").write_text("# Gray Tern live\n\nGray Tern live recordings from Harbor Lights tours.",
                                              encoding="utf-8")
    index(folder, home / "idx", capsys)
    version = current_version(home / "idx")
    corpus = load_corpus(version / "corpus.jsonl")
    full = ArticleLinks.from_lists(build_links(corpus.titles, corpus.texts), corpus.sha256)
    assert ArticleLinks.load(version / "links.npz").pairs() == full.pairs()
    stored = collection.vectors_in(version)
    assert stored.shape == (len(corpus), 384) and np.isfinite(stored).all()


def test_a_killed_update_leaves_the_previous_index_serving(home, capsys, monkeypatch):
    folder = make_folder(home / "docs")
    index(folder, home / "idx", capsys)
    serving = current_version(home / "idx")
    write_docx(folder, EDITED_FACT)

    def killed(*args, **kwargs):
        raise KeyboardInterrupt  # what a kill between the embeddings and the switch looks like from here

    monkeypatch.setattr(collection, "fill_dense", killed)
    with pytest.raises(KeyboardInterrupt):
        update_collection(folder, home / "idx")
    assert current_version(home / "idx") == serving and [p.name for p in (home / "idx").glob("v*")] == [serving.name]
    (home / "idx" / ".v000002.killed.tmp").mkdir()  # what a SIGKILL mid-write leaves: swept by the next update
    claimhop.retrieval.service._CACHE.clear()
    assert "Tromsø" in index_search(str(folder), index_dir=home / "idx").search("Gray Tern formed", 1)[0].text
    monkeypatch.undo()
    monkeypatch.setenv("CLAIMHOP_HOME", str(home / "home"))
    report = update_collection(folder, home / "idx")
    assert report["files"]["changed"] == 1 and not list((home / "idx").glob(".v*.tmp"))


def test_tables_need_a_title_and_a_text_column(home, capsys):
    (home / "t.csv").write_text("name,body\nA Name,Some body text.\n", encoding="utf-8")
    assert [d.title for f in collection_files(home / "t.csv") for d in read_file(f)] == ["A Name"]
    (home / "bad.csv").write_text("heading,words\nx,y\n", encoding="utf-8")
    assert claimhop.cli.main.main(["index", str(home / "bad.csv"), "--index-dir", str(home / "i")]) == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("claimhop: error:")]
    assert len(errors) == 1 and "needs a title column" in errors[0] and "bad.csv" in errors[0]
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"title": ["P One"], "text": ["Parquet text one."]}), home / "t.parquet")
    report = index(home / "t.parquet", home / "pidx", capsys)
    assert report["passages"] == 1 and texts_of(home / "pidx")["P One"] == ("Parquet text one.", "t.parquet#1")


@pytest.mark.parametrize("argv, message", [
    (["index", "{docs}", "--index-dir", "{idx}", "--encoder", "{home}"], "not a sentence-transformers model folder"),
    (["check", "a claim to check", "--corpus", "{docs}"], "has no index"),
    (["index", "{home}/missing-folder.csv"], "no such file or folder"),
])
def test_bad_input_is_one_line(home, capsys, argv, message):
    docs = make_folder(home / "docs")
    args = [a.format(docs=docs, idx=home / "idx", home=home) for a in argv]
    assert claimhop.cli.main.main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len([line for line in err if line.startswith("claimhop: error:")]) == 1, err
    assert message in err[-1] and "Traceback" not in "\n".join(err)


def test_another_encoder_than_the_index_was_built_with_is_refused(home, capsys):
    docs = make_folder(home / "docs")
    index(docs, home / "idx", capsys)
    model = home / "fake-model"
    model.mkdir()
    (model / "modules.json").write_text("[]", encoding="utf-8")
    assert claimhop.cli.main.main(["index", str(docs), "--index-dir", str(home / "idx"), "--encoder", str(model)]) == 2
    err = capsys.readouterr().err.strip()
    assert "was embedded with sentence-transformers/all-MiniLM-L6-v2" in err and "--rebuild" in err
