"""Issue 55 as a user runs it: a folder of abstracts indexed with `claimhop index FOLDER`, a claim that names none
of them checked with `claimhop check --corpus FOLDER` on the defaults (`opposite_check=unnamed`), the real local model
and the bundled head. The passages do
not support the claim, so the model writes the claim's opposite and reads it on the same passages; the answer says
which of the two they support better (docs/evaluation.md: the head's own kind tells a contradicted scientific claim
from an unsettled one worse than chance)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import claimhop.cli.main

ABSTRACTS = {
    "hot-drinks.md": "# Hot drinks and SARS-CoV-2 in the throat\n\nWe tested whether drinking hot tea or water "
                     "inactivates SARS-CoV-2 in the throat. At drinking temperatures the virus was not inactivated, "
                     "and patients who drank hot tea shed as much virus as those who did not. Hot drinks do not kill "
                     "the coronavirus.",
    "masks.md": "# Face masks in households\n\nIn 2,000 households, wearing face masks at home lowered the "
                "transmission of respiratory viruses to other household members.",
    "vitamin-d.md": "# Vitamin D and respiratory infection\n\nVitamin D supplementation had a small protective "
                    "effect against acute respiratory tract infection in a meta-analysis of 25 trials.",
}
CLAIM = "Hot tea kills the coronavirus in the throat."


@pytest.fixture(autouse=True)
def no_signal_handler(monkeypatch):
    monkeypatch.setattr(claimhop.cli.main, "stop_at_once_on_ctrl_c", lambda: None)


def test_a_claim_naming_no_document_is_read_again_as_its_opposite(tmp_path: Path, capsys):
    folder = tmp_path / "abstracts"
    folder.mkdir()
    for name, text in ABSTRACTS.items():
        (folder / name).write_text(text, encoding="utf-8")
    index_dir = tmp_path / "index"
    assert claimhop.cli.main.main(["index", str(folder), "--index-dir", str(index_dir)]) == 0
    capsys.readouterr()
    assert claimhop.cli.main.main(["check", CLAIM, "--corpus", str(folder), "--set", f"index_dir={index_dir}",
                                   "--json", "--quiet"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["verdict"] == "CONTRADICTED", result["answer"]
    assert "support the claim's opposite better than the claim" in result["verdict_reason"], result["verdict_reason"]
    assert "Hot drinks and SARS-CoV-2 in the throat" in result["answer"]
