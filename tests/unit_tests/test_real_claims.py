"""Real claims of other domains as training items for a head that travels: their texts come from the user's folders
of the public sets (none committed), a set can be left out for a head measured on it, and none is SciFact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from claimhop.evaluation.verifier_data import is_synthetic, real_claim_items

COMMITTED = Path("docs/results/verifier/real-claims.jsonl")


def write_set(root: Path, name: str, claims: list[dict]) -> None:
    (root / name / "documents").mkdir(parents=True)
    (root / name / "claims.jsonl").write_text("".join(json.dumps(c) + "\n" for c in claims))


def test_real_claims_take_their_text_from_the_sets_folder_and_a_set_can_be_left_out(tmp_path):
    write_set(tmp_path, "health", [{"uid": "h1", "claim": "Vitamin D lowers mortality."}])
    write_set(tmp_path, "climate", [{"uid": "c1", "claim": "Sea level is falling."}])
    named = tmp_path / "named.jsonl"
    named.write_text(json.dumps({"set": "health", "uid": "h1", "label": "CONTRADICTED", "titles": ["a"],
                                 "group": "health:g1", "role": "train"}) + "\n"
                     + json.dumps({"set": "climate", "uid": "c1", "label": "SUPPORTED", "titles": ["b"],
                                   "group": "climate:g1", "role": "sample"}) + "\n")

    assert [i["uid"] for i in real_claim_items(named, tmp_path)] == ["h1"]  # a reported sample is never trained on
    items = real_claim_items(named, tmp_path, roles=("train", "sample"))
    assert [(i["claim"], i["folder"], i["kind"]) for i in items] == [
        ("Vitamin D lowers mortality.", str(tmp_path / "health" / "documents"), "CONTRADICTED"),
        ("Sea level is falling.", str(tmp_path / "climate" / "documents"), "SUPPORTED")]
    assert all(is_synthetic(i) for i in items)  # no HoVer dev fold holds them
    assert [i["uid"] for i in real_claim_items(named, tmp_path, without=("health",), roles=("sample",))] == ["c1"]


def test_a_missing_set_folder_says_how_to_make_it(tmp_path):
    named = tmp_path / "named.jsonl"
    named.write_text(json.dumps({"set": "health", "uid": "h1", "label": "SUPPORTED", "titles": [], "group": "g"}) + "\n")
    with pytest.raises(ValueError, match="benchmarks.claim_sets"):
        real_claim_items(named, tmp_path)


def test_the_committed_real_claims_name_no_text_and_no_scifact():
    rows = [json.loads(line) for line in COMMITTED.read_text().splitlines()]
    assert rows and all("claim" not in row for row in rows)  # the sets' texts stay in the user's folders
    assert {row["set"] for row in rows} == {"healthver", "climate-fever", "check-covid"}
    assert not any("scifact" in json.dumps(row).lower() for row in rows)
    # the reported samples are never a training claim's group
    samples = {(r["set"], r["group"]) for r in rows if r["role"] == "sample"}
    assert not any((r["set"], r["group"]) in samples for r in rows if r["role"] == "train")


def test_a_collections_made_claims_are_synthetic_items_read_in_that_collection(tmp_path, monkeypatch):
    from claimhop.evaluation.verifier_data import claims_file, collection_claim_items
    from claimhop.retrieval.collection import default_folder

    monkeypatch.setenv("CLAIMHOP_HOME", str(tmp_path / "home"))
    source = tmp_path / "papers"
    source.mkdir()
    with pytest.raises(ValueError, match=f"claimhop train-verifier --corpus {source}"):
        collection_claim_items(source)  # nothing made yet: says which command makes them
    made = claims_file(default_folder(source))
    made.parent.mkdir(parents=True)
    made.write_text(json.dumps({"id": "1-turned", "key": "collection:1-turned", "claim": "X lowers Y.",
                                "titles": ["a"], "group": "a", "label": "NOT_SUPPORTED", "kind": "CONTRADICTED",
                                "variant": "turned"}) + "\n")
    [item] = collection_claim_items(source)
    assert item["folder"] == str(source) and item["claim"] == "X lowers Y." and is_synthetic(item)


def test_a_head_trains_on_real_claims_and_a_collections_made_claims_together(tmp_path, monkeypatch):
    """Both read in their own folders beside the bundled data, and the provenance names each (the model's pass is
    replaced by states that carry the label: this test is about what is trained on, not how well)."""
    import numpy as np

    import claimhop.evaluation.train_verifier as trainer
    from claimhop.evaluation.verifier_data import claims_file
    from claimhop.retrieval.collection import default_folder

    monkeypatch.setenv("CLAIMHOP_HOME", str(tmp_path / "home"))
    kinds = {"SUPPORTED": ("SUPPORTED", "stated"), "CONTRADICTED": ("NOT_SUPPORTED", "swap"),
             "INSUFFICIENT_INFO": ("NOT_SUPPORTED", "removed")}
    synthetic = tmp_path / "synthetic.jsonl"
    synthetic.write_text("".join(json.dumps({"id": f"s{i}", "claim": f"Claim {i}.", "titles": ["a"], "group": f"g{i}",
                                             "kind": kind, "label": kinds[kind][0], "variant": kinds[kind][1]}) + "\n"
                                 for i, kind in enumerate(list(kinds) * 10)))
    write_set(tmp_path, "health", [{"uid": f"h{i}", "claim": f"Health claim {i}."} for i in range(6)])
    named = tmp_path / "named.jsonl"
    named.write_text("".join(json.dumps({"set": "health", "uid": f"h{i}", "label": kind, "titles": ["a"],
                                         "group": f"health:{i}", "role": "train"}) + "\n"
                             for i, kind in enumerate(list(kinds) * 2)))
    papers = tmp_path / "papers"
    papers.mkdir()
    made = claims_file(default_folder(papers))
    made.parent.mkdir(parents=True)
    made.write_text("".join(json.dumps({"id": f"{i}-x", "key": f"collection:{i}-x", "claim": f"Made {i}.",
                                        "titles": ["a"], "group": f"p{i}", "kind": kind, "label": kinds[kind][0],
                                        "variant": kinds[kind][1]}) + "\n" for i, kind in enumerate(list(kinds) * 2)))
    read: dict[str, list[str]] = {}

    def fake_read(items, corpus, rule=None, desc=""):
        read.setdefault(str(corpus), []).extend(item["key"] for item in items)

    def fake_states(items, corpus, rule=None):
        codes = {"SUPPORTED": 0, "CONTRADICTED": 1, "INSUFFICIENT_INFO": 2}
        states = np.random.default_rng(len(items)).normal(size=(len(items), 8))
        states[np.arange(len(items)), [codes[i["kind"]] for i in items]] += 4.0
        return states

    monkeypatch.setattr(trainer, "extract_features", fake_read)
    monkeypatch.setattr(trainer, "load_features", fake_states)
    monkeypatch.setattr(trainer, "answer_rows", lambda path: np.ones((4, 8)))
    monkeypatch.setattr(trainer, "folder_corpus", lambda folder: f"corpus of {folder}")
    monkeypatch.setattr("claimhop.retrieval.corpus.load_corpus", lambda: "bundled corpus")
    monkeypatch.setattr("claimhop.lm.weights.gguf_path", lambda model: tmp_path / "model.gguf")
    out = tmp_path / "head.npz"
    result = trainer.train_verifier(synthetic, tmp_path / "unused.jsonl", out, out.with_suffix(".json"), use_dev=False,
                                    real_claims=named, real_root=tmp_path, collections=(papers,))
    assert len(read[f"corpus of {tmp_path / 'health' / 'documents'}"]) == 6  # each read in its own folder
    assert read[f"corpus of {papers}"] == [f"collection:{i}-x" for i in range(6)]
    data = result["provenance"]["training_data"]
    assert data["real_claims"]["items"] == 6 and data["collections"]["items"] == 6
    assert data["collections"]["folders"] == [str(papers)] and len(result["items"]) == 30 + 6 + 6
    assert out.is_file()
