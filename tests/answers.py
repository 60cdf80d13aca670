"""What a user checks in any answer, whatever its verdict: the answer states the verdict it reached first, and every
reference it quotes is a document the check selected (a verdict alone is always one of three labels)."""

from __future__ import annotations

VERDICTS = ("SUPPORTED", "CONTRADICTED", "INSUFFICIENT_INFO")


def assert_a_consistent_answer(result: dict) -> None:
    assert result["verdict"] in VERDICTS
    assert result["answer"].startswith(f"Verdict: {result['verdict']}"), result["answer"][:200]
    if "selected" in result and "evidence" in result:
        selected = {d["title"] for d in result["selected"]}
        assert all(e["title"] in selected for e in result["evidence"]), "a reference quotes an unselected document"
