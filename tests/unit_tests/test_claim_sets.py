"""`benchmarks.claim_sets`: a tiny hand-written CLIMATE-FEVER file (the dataset's own JSON Lines format, in a plain
folder at its repository path) becomes Markdown documents and a claims file with mapped labels, connected-component
groups and a balanced sample drawn one claim per group; HealthVer's pair labels become claim labels by agreement."""

from __future__ import annotations

import json

import pytest

from benchmarks import claim_sets


def evidence(article: str, number: int, label: str, text: str) -> dict:
    return {"evidence_id": f"{article}:{number}", "evidence_label": label, "article": article, "evidence": text,
            "entropy": 0.0, "votes": [label, None, None, None, None]}


CLAIMS = [  # (claim_id, claim_label, evidences): groups {0, 1} share "Sea ice", {2, 5} share "Polar bear"
    ("0", "SUPPORTS", [evidence("Sea ice", 3, "SUPPORTS", "Arctic sea ice is shrinking."),
                       evidence("Ocean", 2, "NOT_ENOUGH_INFO", "Oceans cover most of Earth.")]),
    ("1", "REFUTES", [evidence("Sea ice", 1, "REFUTES", "Sea ice forms from frozen seawater."),
                      evidence("Ocean", 2, "NOT_ENOUGH_INFO", "Oceans cover most of Earth.")]),
    ("2", "NOT_ENOUGH_INFO", [evidence("Polar bear", 7, "NOT_ENOUGH_INFO", "Polar bears hunt seals."),
                              evidence("Glacier", 0, "NOT_ENOUGH_INFO", "Glaciers move slowly.")]),
    ("3", "DISPUTED", [evidence("Methane", 1, "SUPPORTS", "Methane traps heat."),
                       evidence("Cattle", 4, "REFUTES", "Cattle emit methane.")]),
    ("4", "REFUTES", [evidence("Carbon dioxide", 0, "REFUTES", "CO2 is a greenhouse gas.")]),
    ("5", "SUPPORTS", [evidence("Polar bear", 2, "SUPPORTS", "Polar bears depend on sea ice.")]),
]


@pytest.fixture
def snapshot(tmp_path):
    folder = tmp_path / "climate-fever-dataset"
    (folder / "dataset").mkdir(parents=True)
    lines = [json.dumps({"claim_id": cid, "claim": f"Claim {cid} .", "claim_label": label, "evidences": evs})
             for cid, label, evs in CLAIMS]
    (folder / "dataset" / "climate-fever.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def test_climate_fever_folder(snapshot, tmp_path):
    out = tmp_path / "out"
    claim_sets.main([str(snapshot), "--set", "climate-fever", "--out", str(out), "--per-label", "1"])
    claims = {c["uid"]: c for c in map(json.loads, (out / "claims.jsonl").read_text().splitlines())}
    assert {uid: c["label"] for uid, c in claims.items()} == {
        "climate-fever-0": "SUPPORTED", "climate-fever-1": "CONTRADICTED", "climate-fever-2": "INSUFFICIENT_INFO",
        "climate-fever-4": "CONTRADICTED", "climate-fever-5": "SUPPORTED"}  # DISPUTED dropped
    assert claims["climate-fever-0"]["supporting_titles"] == ["Sea ice"]  # only evidence labelled like the claim
    assert claims["climate-fever-2"]["supporting_titles"] == ["Polar bear", "Glacier"]  # NEI: all shown
    assert claims["climate-fever-2"]["num_hops"] == 2 and claims["climate-fever-2"]["claim"] == "Claim 2 ."
    group = {uid: c["group"] for uid, c in claims.items()}
    assert group["climate-fever-0"] == group["climate-fever-1"] and group["climate-fever-2"] == group["climate-fever-5"]
    assert len(set(group.values())) == 3

    # one per group, 1 per label: NEI (one group) takes g(2, 5), so SUPPORTED must be 0 and CONTRADICTED 4
    sample = [json.loads(line) for line in (out / "sample-3.jsonl").read_text().splitlines()]
    assert [c["uid"] for c in sample] == ["climate-fever-0", "climate-fever-2", "climate-fever-4"]
    assert len({c["group"] for c in sample}) == 3

    documents = sorted(p.name for p in (out / "documents").iterdir())
    assert len(documents) == 7  # every article shown, the DISPUTED claim's too (distractors)
    assert all(name.endswith(".md") for name in documents)
    sea_ice = next(out.joinpath("documents", n) for n in documents if n.startswith("sea-ice-"))
    assert sea_ice.read_text() == "# Sea ice\n\nSea ice forms from frozen seawater.\n\nArctic sea ice is shrinking.\n"
    assert "DISPUTED: 1" in (out / "PROVENANCE.md").read_text()


def test_sample_impossible_and_wrong_paths(snapshot, tmp_path):
    with pytest.raises(ValueError, match="one per group"):
        claim_sets.main([str(snapshot), "--set", "climate-fever", "--out", str(tmp_path / "o"), "--per-label", "2"])
    with pytest.raises(SystemExit, match="not a directory"):
        claim_sets.main([str(tmp_path / "nowhere"), "--set", "climate-fever", "--out", str(tmp_path / "o")])
    (tmp_path / "empty").mkdir()
    with pytest.raises(SystemExit, match="tdiggelm/climate-fever-dataset snapshot"):
        claim_sets.main([str(tmp_path / "empty"), "--set", "climate-fever", "--out", str(tmp_path / "o")])


def test_healthver_claim_label_by_agreement(tmp_path):
    rows = [("1", "E1", "Masks help.", "Supports"), ("2", "E2", "Masks help.", "Neutral"),
            ("3", "E1", "Zinc cures it.", "Refutes"), ("4", "E3", "Zinc cures it.", "Supports"),
            ("5", "E3", "Bats are mammals.", "Neutral")]
    text = "id,evidence,claim,label,topic_ip,question\n" + "".join(f"{i},{e},{c},{l},1,q\n" for i, e, c, l in rows)
    files = {"data/healthver_dev.csv": text}

    def read(path: str) -> str:
        if path not in files:
            raise claim_sets.MissingFile(path)
        return files[path]

    result = claim_sets.healthver(read)
    assert [(c.uid, c.label, c.supporting_titles) for c in result.claims] == [
        ("healthver-dev-1", "SUPPORTED", [claim_sets.healthver_title("E1")]),
        ("healthver-dev-5", "INSUFFICIENT_INFO", [claim_sets.healthver_title("E3")])]
    assert result.dropped == {"claim with both Supports and Refutes pairs": 1}
    assert result.missing == ["data/healthver_train.csv", "data/healthver_test.csv"]
    assert len(result.documents) == 3


def test_reads_a_git_snapshot_at_head(snapshot, tmp_path):
    import subprocess

    git = ["git", "-C", str(snapshot), "-c", "user.name=t", "-c", "user.email=t@t"]
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "data"]):
        subprocess.run(git + args, check=True)
    (snapshot / "dataset" / "climate-fever.jsonl").write_text("not json\n")  # the work tree is not what is read
    bare = snapshot / ".git"
    commit = subprocess.run(["git", f"--git-dir={bare}", "rev-parse", "HEAD"],
                            capture_output=True, text=True, check=True).stdout
    claim_sets.main([str(bare), "--set", "climate-fever", "--out", str(tmp_path / "out"), "--per-label", "1"])
    assert len((tmp_path / "out" / "claims.jsonl").read_text().splitlines()) == 5
    assert commit.strip() in (tmp_path / "out" / "PROVENANCE.md").read_text()
