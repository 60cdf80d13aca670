"""The refactoring check: two runs' rows compared claim by claim, and any difference fails it."""

import json

from benchmarks.same_behaviour import main


def row(uid: str, verdict: str = "SUPPORTED", prompt_tokens: int = 290, seconds: float = 20.0) -> dict:
    return {"system": "claimhop", "uid": uid, "titles": ["A", "B"], "candidate_titles": ["A", "B", "C"],
            "hops": [{"step": "claim", "query": "q", "titles": ["A"]}], "recall@21": 1.0, "verdict": verdict,
            "degraded": [], "lm_calls": 2, "tokens": 1000, "seconds": seconds,
            "steps": {"plan": {"asked": 1, "calls": 1, "prompt_tokens": prompt_tokens, "output_tokens": 100}}}


def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def test_the_same_rows_pass_whatever_the_time_and_a_changed_verdict_or_prompt_fails(tmp_path, capsys):
    before = write(tmp_path / "before.jsonl", [row("a"), row("b")])
    assert main([before, write(tmp_path / "slower.jsonl", [row("a", seconds=30.0), row("b")])]) == 0
    assert main([before, write(tmp_path / "verdict.jsonl", [row("a"), row("b", "CONTRADICTED")])]) == 1
    assert "| verdict | 1 | 1 | b |" in capsys.readouterr().out
    assert main([before, write(tmp_path / "prompt.jsonl", [row("a", prompt_tokens=300), row("b")])]) == 1
    assert main([before, write(tmp_path / "fewer.jsonl", [row("a")])]) == 1  # a claim missing is a difference
