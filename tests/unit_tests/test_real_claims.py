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
