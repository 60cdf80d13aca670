"""The labelled pairs of many genres (benchmarks.pair_sets) and the resumable job that reads them
(benchmarks.read_pairs): a pair is read among distractors of its own set, never of its own group; a stop keeps a
balanced mix; what was read is packed with its ids and never read again. The model's pass is replaced by a state
that records the prompt (this test is about the job's bookkeeping; the reads are measured by benchmarks.pair_heads)."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from benchmarks import pair_sets, read_pairs
from benchmarks.pair_sets import (
    Pair,
    detokenize,
    distractor_pool,
    stratified_order,
    with_distractors,
)


def pair(i: int, label: str, name: str = "toy", group: str | None = None) -> Pair:
    return Pair(f"{name}:{i}", name, group or f"{name}:g{i}", f"Claim {i} about lake {i}.",
                ({"title": f"Lake {i}", "text": f"Lake {i} is {10 + i} metres deep and lies in valley {i}."},), label)


def test_evidence_is_read_among_other_groups_passages_within_the_context():
    pairs = [pair(i, "SUPPORTED", group="toy:shared" if i < 3 else None) for i in range(30)]
    pool = distractor_pool(pairs)
    documents = with_distractors(pairs[0], pool, context=300)
    titles = [d["title"] for d in documents]
    assert "Lake 0" in titles and len(titles) > 1
    assert not {"Lake 1", "Lake 2"} & set(titles)  # its own group's evidence is never a distractor
    assert sum(len(d["title"]) + len(d["text"]) for d in documents) <= 300
    assert with_distractors(pairs[0], pool, context=300) == documents  # seeded: the same reading every time
    positions = {[d["title"] for d in with_distractors(p, pool, 300)].index(p.evidence[0]["title"]) for p in pairs}
    assert len(positions) > 1  # the evidence is not always first


def test_a_stop_anywhere_leaves_every_set_and_label_about_equal():
    pairs = ([pair(i, "SUPPORTED", "big") for i in range(100)]
             + [pair(i, "CONTRADICTED", "big") for i in range(100, 150)]
             + [pair(i, "INSUFFICIENT_INFO", "small") for i in range(10)])
    order = stratified_order(pairs)
    assert sorted(p.id for p in order) == sorted(p.id for p in pairs)
    first = Counter((p.set, p.label) for p in order[:30])
    assert first == {("big", "SUPPORTED"): 10, ("big", "CONTRADICTED"): 10, ("small", "INSUFFICIENT_INFO"): 10}


def test_fever_tokens_read_as_plain_text():
    assert detokenize("`` 2 hearts '' was Madonna 's first single -LRB- 2005 -RRB- .") == \
        "\" 2 hearts \" was Madonna's first single (2005)."


@pytest.fixture
def job(tmp_path, monkeypatch):
    """read_pairs with a toy set, a fake model and a git repository of its own for --commit."""
    monkeypatch.setenv("CLAIMHOP_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    subprocess.run(["git", "init", "-q"], check=True)
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "0"],
                   check=True)
    monkeypatch.setenv("GIT_AUTHOR_NAME", "t")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "t@t")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "t")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "t@t")
    toy = [pair(i, label) for i, label in enumerate(["SUPPORTED", "CONTRADICTED", "INSUFFICIENT_INFO"] * 4)]
    monkeypatch.setattr(read_pairs, "load_pairs", lambda name, mirror, ood: toy)
    monkeypatch.setattr(read_pairs, "PAIR_SETS", {"toy": None})
    prompts: list[str] = []

    def fake_state(engine, messages, blocks):
        prompts.append(messages[-1]["content"])
        return np.full(1536, float(len(prompts)), dtype=np.float32)

    monkeypatch.setattr(read_pairs, "hidden_state", fake_state)
    import claimhop.lm.provider

    monkeypatch.setattr(claimhop.lm.provider, "local_engine", lambda: object())
    return prompts


def test_the_job_packs_and_commits_what_it_read_and_resumes_without_reading_again(job, tmp_path):
    rule = read_pairs.reading_rule()
    folder = read_pairs.read(["toy"], tmp_path, tmp_path, 300, limit=7, chunk_size=3, commit=True, rule=rule)
    assert len(job) == 7
    rows = read_pairs.read_manifest(folder)
    assert [r["chunk"] for r in rows] == ["chunk-0000.npz"] * 3 + ["chunk-0001.npz"] * 3 + ["chunk-0002.npz"]
    assert all(r["evidence_read"] == 1 for r in rows)  # the evidence is among what was read
    states = read_pairs.packed_states(folder)
    assert set(states) == {r["id"] for r in rows} and states[rows[0]["id"]].shape == (1536,)
    log = subprocess.run(["git", "log", "--format=%s"], capture_output=True, text=True, check=True).stdout
    assert "pairs read: 7" in log and "pairs read: 3" in log  # committed chunk by chunk
    # the next session goes on: nothing read is read again, and the limit counts what the repository holds
    job.clear()
    read_pairs.read(["toy"], tmp_path, tmp_path, 300, limit=12, chunk_size=3, commit=False, rule=rule)
    assert len(job) == 5 and len(read_pairs.read_manifest(folder)) == 12
    status = read_pairs.status(folder)
    assert "12 pairs" in status and "SUPPORTED 4, CONTRADICTED 4, INSUFFICIENT_INFO 4" in status


def test_a_crash_mid_chunk_packs_what_was_read(job, tmp_path, monkeypatch):
    rule = read_pairs.reading_rule()
    calls = {"n": 0}
    real = read_pairs.hidden_state

    def dies_on_the_fifth(engine, messages, blocks):
        calls["n"] += 1
        if calls["n"] == 5:
            raise KeyboardInterrupt
        return real(engine, messages, blocks)

    monkeypatch.setattr(read_pairs, "hidden_state", dies_on_the_fifth)
    with pytest.raises(KeyboardInterrupt):
        read_pairs.read(["toy"], tmp_path, tmp_path, 300, limit=12, chunk_size=3, commit=False, rule=rule)
    folder = read_pairs.archive_dir(rule, 300)
    assert len(read_pairs.read_manifest(folder)) == 4  # one chunk of 3 and the 1 read before the stop


def test_an_unknown_set_is_named(capsys):
    with pytest.raises(SystemExit):
        read_pairs.main(["--sets", "scifact"])
    assert "unknown pair set(s) scifact" in capsys.readouterr().err


def test_measured_samples_groups_are_never_pairs(tmp_path):
    folder = tmp_path / "healthver"
    (folder / "documents").mkdir(parents=True)
    for title in ("Doc A", "Doc B"):
        (folder / "documents" / f"{title}.md").write_text(f"# {title}\n\nText of {title}.\n", encoding="utf-8")
    claims = [{"uid": "c1", "claim": "One.", "label": "SUPPORTED", "supporting_titles": ["Doc A"], "group": "g1"},
              {"uid": "c2", "claim": "Two.", "label": "CONTRADICTED", "supporting_titles": ["Doc B"], "group": "g2"}]
    (folder / "claims.jsonl").write_text("".join(json.dumps(c) + "\n" for c in claims), encoding="utf-8")
    (folder / "sample-45.jsonl").write_text(json.dumps(claims[0]) + "\n", encoding="utf-8")
    pairs = pair_sets.load_pairs("healthver", Path("/nowhere"), tmp_path)
    assert [p.id for p in pairs] == ["healthver:c2"] and pairs[0].evidence[0]["text"] == "Text of Doc B."


def test_another_reading_reads_only_the_prompts_it_changes(job, tmp_path):
    """Pairs read once, then under chain-order-1-relevant: a pair whose prompt is the same (its passages fit the
    rule's caps) finds its state in the cache the other reading left there (feature_archive load --into), so
    nothing is read again and the new reading's archive holds every pair."""
    old, new = read_pairs.reading_rule(), read_pairs.reading_rule("chain-order-1-relevant")
    first = read_pairs.read(["toy"], tmp_path, tmp_path, 300, limit=6, chunk_size=6, commit=False, rule=old)
    shutil.copytree(read_pairs.features_dir(old), read_pairs.features_dir(new))
    job.clear()
    folder = read_pairs.read(["toy"], tmp_path, tmp_path, 300, limit=100, chunk_size=6, commit=False, rule=new,
                             same_as=first)
    assert job == [] and folder.name.startswith(read_pairs.features_dir(new).name)
    assert {r["id"] for r in read_pairs.read_manifest(folder)} == {r["id"] for r in read_pairs.read_manifest(first)}


def test_the_opposite_is_asked_about_the_passages_chosen_for_the_claim(job, tmp_path, monkeypatch):
    """`--prompt opposite`: the same pairs and passages as their support read, the question asked of the opposite
    the stage's writer gives (here a fake: this test is about what is read, not how well it is written)."""
    rule = read_pairs.reading_rule()
    first = read_pairs.read(["toy"], tmp_path, tmp_path, 300, limit=4, chunk_size=4, commit=False, rule=rule)
    claims_read = list(job)
    job.clear()
    monkeypatch.setattr(read_pairs, "opposite_writer", lambda: lambda claim: claim.replace("about", "not about"))
    folder = read_pairs.read(["toy"], tmp_path, tmp_path, 300, limit=100, chunk_size=4, commit=False, rule=rule,
                             prompt="opposite", same_as=first)
    assert folder.name.endswith("-opposite") and len(job) == 4
    assert all("not about lake" in prompt for prompt in job)
    assert [p.replace("not about", "about") for p in job] == claims_read  # the same passages, only the claim turned
    with pytest.raises(ValueError, match="opposite"):
        read_pairs.pair_messages(pair(0, "SUPPORTED"), [], rule, 300, prompt="opposite")
