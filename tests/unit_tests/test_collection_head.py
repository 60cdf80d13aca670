"""`claimhop train-verifier --corpus FOLDER`: a head for one collection, made from claims of its own documents, kept
with its index and used by checks on it. The real index is built; the model's pass is replaced by states that
carry the label (this test is about the plumbing; the real reads are measured by benchmarks.out_of_domain)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import claimhop.cli.main
from claimhop.evaluation import collection_head
from claimhop.program.verify.head import HEAD_FILE, head_file, load_head
from claimhop.program.verify.reading import NEW_HEAD_BLOCKS
from claimhop.retrieval.collection import default_folder

DRUGS = ["Amlodipine", "Losartan", "Metformin", "Atorvastatin", "Lisinopril", "Sertraline", "Omeprazole",
         "Simvastatin", "Levothyroxine", "Albuterol", "Gabapentin", "Hydrochlorothiazide", "Furosemide", "Warfarin"]


def write_collection(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for i, drug in enumerate(DRUGS):
        (folder / f"{drug.lower()}.md").write_text(
            f"# {drug} trial {i}\n\nA randomised trial enrolled {120 + i} adults with chronic disease. "
            f"Treatment with {drug} increased the rate of remission compared with placebo over two years. "
            f"Side effects were mild and were reported in a few patients of each group.\n", encoding="utf-8")
    return folder


def labelled_states(items, corpus, rule=None):
    """The model's pass replaced: a state that says the item's label, plus noise."""
    rng = np.random.default_rng(0)
    codes = {"SUPPORTED": 0, "CONTRADICTED": 1, "INSUFFICIENT_INFO": 2}
    states = rng.normal(size=(len(items), 8))
    states[np.arange(len(items)), [codes[i["kind"]] for i in items]] += 4.0
    return states


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAIMHOP_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLAIMHOP_VERIFIER_HEAD", raising=False)
    monkeypatch.setattr(claimhop.cli.main, "stop_at_once_on_ctrl_c", lambda: None)
    return tmp_path


def test_a_collection_gets_its_own_head_and_checks_on_it_use_it(home, monkeypatch, capsys):
    folder = write_collection(home / "trials")
    assert claimhop.cli.main.main(["index", str(folder)]) == 0
    assert head_file(str(folder)) == HEAD_FILE  # untrained: the bundled head
    read: list[str] = []

    def fake_read(items, corpus, desc="", rule=None):  # the model's pass, recorded
        read.extend(item["key"] for item in items)
        assert rule.name == "chain-order-1-relevant" and rule.blocks == NEW_HEAD_BLOCKS

    fake_states = labelled_states

    monkeypatch.setattr(collection_head, "extract_features", fake_read)
    monkeypatch.setattr(collection_head, "load_features", fake_states)
    monkeypatch.setattr(collection_head, "answer_rows", lambda path: np.ones((4, 8)))
    restated: list[str] = []

    def fake_restater(total):  # the model's restatement, recorded: a paraphrase a reader might write
        def restate(finding):
            restated.append(finding)
            return finding.replace("Treatment with", "Taking").replace("compared with placebo over two years", "")
        return restate

    monkeypatch.setattr(collection_head, "model_restater", fake_restater)
    assert claimhop.cli.main.main(["train-verifier", "--corpus", str(folder), "--sources", "12"]) == 0
    said = capsys.readouterr().out
    assert "claims made from 12 documents" in said and "about 10 s each" in said  # the cost, before reading
    assert "restating findings of 12 documents" in said and len(restated) == 12
    assert "an experiment" in said and "to go back" in said  # it has scored below the shipped head: the user is told
    head = default_folder(folder) / "verifier_head.npz"
    assert head.is_file() and head_file(str(folder)) == head  # the index remembers its head
    provenance = json.loads(head.with_suffix(".json").read_text())
    assert provenance["reading"] == "chain-order-1-relevant"
    assert provenance["training_data"]["collection"]["items"] == len(read) >= 30
    claims = [json.loads(line) for line in (default_folder(folder) / "verifier-claims.jsonl").read_text().splitlines()]
    assert {c["kind"] for c in claims} == {"SUPPORTED", "CONTRADICTED", "INSUFFICIENT_INFO"}
    assert all(c["claim"].startswith("Taking ") and "placebo" not in c["claim"] for c in claims)  # the restatements
    assert provenance["training_data"]["collection"]["restated"] is True
    trained = load_head(head)
    states = fake_states(claims, None)
    right = [trained.probabilities(s)["supported"] >= 0.5 for s, c in zip(states, claims) if c["kind"] == "SUPPORTED"]
    assert np.mean(right) > 0.9  # it learned what it was shown
    # a second run reads the same claims again from the index folder (a stopped training resumes)
    read.clear()
    assert claimhop.cli.main.main(["train-verifier", "--corpus", str(folder), "--sources", "12"]) == 0
    assert len(read) == len(claims)


def test_train_verifier_corpus_names_what_is_wrong(home, capsys):
    def error(*args: str) -> str:
        assert claimhop.cli.main.main(["train-verifier", *args]) != 0
        return capsys.readouterr().err

    assert "nothing-here is not a folder or table of documents" in error("--corpus", str(home / "nothing-here"))
    assert "--sources must be at least 10" in error("--corpus", str(home), "--sources", "3")
    folder = write_collection(home / "unindexed")
    assert f"run `claimhop index {folder}` first" in error("--corpus", str(folder))


def write_labelled(path: Path) -> Path:
    """Pairs a user labelled by hand, in the spellings public sets use (invented findings, in our own words)."""
    rows = [{"claim": f"Tiraxolin {verb} the rate of remission in trial {i}.",
             "evidence": f"In trial {i}, patients on tiraxolin had a {word} rate of remission than those on placebo.",
             "label": label}
            for i in range(6)
            for verb, word, label in (("raised", "higher", "SUPPORTS"), ("lowered", "higher", "refutes"),
                                      ("doubled", "similar", "not enough info"))]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_labelled_pairs_join_the_collection_head_read_among_its_passages(home, monkeypatch, capsys):
    folder = write_collection(home / "trials")
    index_dir = home / "elsewhere"
    assert claimhop.cli.main.main(["index", str(folder), "--index-dir", str(index_dir)]) == 0
    read: list[dict] = []

    def fake_read(items, corpus, desc="", rule=None):
        read.extend(items)

    monkeypatch.setattr(collection_head, "extract_features", fake_read)
    monkeypatch.setattr(collection_head, "load_features", labelled_states)
    monkeypatch.setattr(collection_head, "answer_rows", lambda path: np.ones((4, 8)))
    labelled = write_labelled(home / "mine.jsonl")
    assert claimhop.cli.main.main(["train-verifier", "--corpus", str(folder), "--sources", "12", "--verbatim",
                                   "--labelled", str(labelled), "--index-dir", str(index_dir)]) == 0
    said = capsys.readouterr().out
    assert f"and 18 labelled pairs of {labelled}" in said and "about 10 s each" in said
    head = index_dir / "verifier_head.npz"  # beside the index it was told of, not in the default folder
    assert head.is_file() and not (default_folder(folder) / "verifier_head.npz").exists()
    assert head_file(str(folder), str(index_dir)) == head  # a check with --set index_dir=DIR uses it
    provenance = json.loads(head.with_suffix(".json").read_text())
    assert provenance["training_data"]["labelled"]["by_label"] == {"SUPPORTED": 6, "CONTRADICTED": 6,
                                                                    "INSUFFICIENT_INFO": 6}
    mine = [item for item in read if item["source"] == "labelled"]
    assert len(mine) == 18
    for item in mine:  # the evidence is read among the collection's passages search finds for the claim
        titles = [d["title"] for d in item["documents"]]
        assert any(t.startswith("Evidence ") for t in titles) and len(titles) > 1
        assert any(d["text"].startswith("In trial") for d in item["documents"])


def test_labelled_files_are_checked_before_any_model_time(home, capsys):
    folder = write_collection(home / "trials")

    def error(*args: str) -> str:
        assert claimhop.cli.main.main(["train-verifier", *args]) != 0
        return capsys.readouterr().err

    bad = home / "bad.jsonl"
    bad.write_text('{"claim": "A", "evidence": "B", "label": "SUPPORTED"}\n{"claim": "A", "evidence": "B", '
                   '"label": "maybe"}\n', encoding="utf-8")
    assert "--corpus" in error("--labelled", str(bad))
    assert "bad.jsonl, line 2: unknown label 'maybe'" in error("--corpus", str(folder), "--labelled", str(bad))
    short = home / "short.csv"
    short.write_text("claim,evidence,label\nA claim,,SUPPORTED\n", encoding="utf-8")
    assert "short.csv, line 2: no evidence" in error("--corpus", str(folder), "--labelled", str(short))
    assert "labelled pairs file not found" in error("--corpus", str(folder), "--labelled", str(home / "none.jsonl"))
    assert "--index-dir" in error("--corpus", str(folder), "--index-dir", str(home / "no-such-folder"))
