"""A finished check is read back only while nothing that decides its verdict changed
(`claimhop.program.fingerprint`): the same command again resumes, while an upgrade of claimhop, another model file,
another verifier head, a changed corpus at the same path, another index kind or a CLAIMHOP_* default checks the
claim afresh, even into a new output file. The batch runs on the small real corpus with a fake LM (the thread naming
is under test, not the model)."""

from __future__ import annotations

import dataclasses
import json
import shutil

import pytest
from test_check_file import fake_model, run_cli, settings  # noqa: F401 - fake_model is a fixture

import claimhop
from claimhop.program.fingerprint import verdict_fingerprint, verdict_parts
from state.context import Context


@pytest.fixture
def corpus_copy(small_corpus, tmp_path):
    path = tmp_path / "corpus.jsonl"
    shutil.copy(small_corpus, path)
    return path


def test_the_same_configuration_gives_the_same_key_and_each_part_changes_it(corpus_copy, monkeypatch, tmp_path):
    import claimhop.lm.weights
    import claimhop.program.verify.head

    ctx = lambda: Context(corpus_path=str(corpus_copy))  # noqa: E731 - read afresh after each change
    before = verdict_fingerprint(ctx())
    assert verdict_fingerprint(ctx()) == before  # a plain rerun resumes
    changes = {
        "claimhop's version": lambda: monkeypatch.setattr(claimhop, "__version__", "99.0"),
        "the model file": lambda: monkeypatch.setattr(claimhop.lm.weights, "QWEN_CODER_1_5B", dataclasses.replace(
            claimhop.lm.weights.QWEN_CODER_1_5B, sha256="0" * 64)),
        "the verifier head": lambda: monkeypatch.setattr(claimhop.program.verify.head, "HEAD_FILE", head_copy(tmp_path)),
        "a head of one's own": lambda: monkeypatch.setenv("CLAIMHOP_VERIFIER_HEAD", str(head_copy(tmp_path, "own"))),
        "a CLAIMHOP_* default": lambda: monkeypatch.setenv("CLAIMHOP_MAX_ITERATIONS", "0"),
        "the corpus at the same path": lambda: corpus_copy.write_text(corpus_copy.read_text() + json.dumps(
            {"title": "New", "text": "A document added later."}) + "\n"),
    }
    for what, change in changes.items():
        change()
        after = verdict_fingerprint(ctx())
        assert after != before, f"{what} changed and the key did not"
        before = after
    assert verdict_fingerprint(Context(corpus_path=str(corpus_copy), model="openai/a")) != verdict_fingerprint(
        Context(corpus_path=str(corpus_copy), model="openai/b"))


def head_copy(tmp_path, name: str = "head"):
    from claimhop.program.verify.head import HEAD_FILE

    path = tmp_path / f"{name}.npz"
    path.write_bytes(HEAD_FILE.read_bytes() + name.encode() + b" retrained")
    return path


def test_an_index_built_by_hand_as_another_kind_changes_the_key_and_the_first_build_does_not(
        corpus_copy, tmp_path, monkeypatch):
    from claimhop.retrieval.corpus import corpus_file
    from claimhop.retrieval.index_store import open_indexes

    monkeypatch.setenv("CLAIMHOP_HOME", str(tmp_path / "home"))
    ctx = Context(corpus_path=str(corpus_copy))
    before = verdict_fingerprint(ctx)  # no index yet: the run will build the automatic kind
    open_indexes(corpus_file(corpus_copy))
    assert verdict_fingerprint(ctx) == before and verdict_parts(ctx)["search"]["index"] == "auto"
    open_indexes(corpus_file(corpus_copy), index_type="hnsw")  # `claimhop index --index-type hnsw`
    assert verdict_parts(ctx)["search"]["index"] == "hnsw" and verdict_fingerprint(ctx) != before


def batch(claims, out, corpus, capsys) -> dict:
    code, stdout, err = run_cli(["check", "--file", str(claims), "--out", str(out), *settings(corpus)], capsys)
    assert code == 0, err
    return json.loads(stdout)


def test_a_batch_reads_a_finished_claim_back_until_an_upgrade(small_corpus, tmp_path, fake_model, capsys,
                                                              monkeypatch):  # noqa: F811
    monkeypatch.setenv("CLAIMHOP_CHECKPOINTS", str(tmp_path / "checkpoints.sqlite"))
    claims = tmp_path / "claims.jsonl"
    claims.write_text(json.dumps({"id": "c0", "claim": "Steve Augeri is American."}) + "\n")
    batch(claims, tmp_path / "a.jsonl", small_corpus, capsys)
    calls = len(fake_model.calls)
    assert calls
    batch(claims, tmp_path / "b.jsonl", small_corpus, capsys)
    assert len(fake_model.calls) == calls  # same code and settings: read back from its finished thread
    monkeypatch.setattr(claimhop, "__version__", "99.0")  # an upgrade
    batch(claims, tmp_path / "c.jsonl", small_corpus, capsys)
    assert len(fake_model.calls) == 2 * calls  # checked afresh, not the old verdict under the new code
    monkeypatch.setenv("CLAIMHOP_MAX_ITERATIONS", "0")  # a changed default from the environment
    batch(claims, tmp_path / "d.jsonl", small_corpus, capsys)
    assert len(fake_model.calls) > 2 * calls


def test_check_claim_on_a_thread_holding_another_claim_checks_the_new_one(small_corpus, tmp_path, fake_model,
                                                                          monkeypatch):  # noqa: F811
    import graph.durable
    from graph import check_claim

    monkeypatch.setenv("CLAIMHOP_CHECKPOINTS", str(tmp_path / "checkpoints.sqlite"))
    monkeypatch.setattr(graph.durable, "_SHARED", {})
    given = {"corpus_path": str(small_corpus), "use_optimized_program": False, "verifier": "single"}
    first = check_claim("Steve Augeri is American.", thread_id="mine", **given)
    calls = len(fake_model.calls)
    assert first["claim"] == "Steve Augeri is American."
    again = check_claim("Steve Augeri is American.", thread_id="mine", **given)
    assert len(fake_model.calls) == calls and again["answer"] == first["answer"]  # the same claim: read back
    second = check_claim("Cherie Currie sang for The Runaways.", thread_id="mine", **given)
    assert second["claim"] == "Cherie Currie sang for The Runaways." and len(fake_model.calls) > calls
    assert second["answer"] and "Cherie Currie" in second["answer"]


# --- what else decides a verdict (issue 56) ----------------------------------------------------------------------

def test_a_collection_rebuilt_with_another_encoder_changes_the_key_though_its_passages_are_the_same(tmp_path,
                                                                                                   monkeypatch):
    """`claimhop index DOCS --encoder X --rebuild`: the same passages file, other vectors, other documents found."""
    import numpy as np

    import claimhop.retrieval.collection as collection

    monkeypatch.setenv("CLAIMHOP_HOME", str(tmp_path / "home"))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tern.md").write_text("# Gray Tern\n\nGray Tern is a folk band formed in Bergen, Norway, in 2009.\n")
    (docs / "harbor.md").write_text("# Harbor Lights\n\nHarbor Lights is the second album by Gray Tern.\n")
    real = collection.encoder_for

    def other_encoder(name):  # a sentence-transformers model, as the index sees one: texts in, unit vectors out
        if name != "acme/other-encoder":
            return real(name)
        return lambda texts: np.tile(np.eye(1, 384, dtype=np.float32), (len(texts), 1))

    monkeypatch.setattr(collection, "encoder_for", other_encoder)
    collection.update_collection(docs, tmp_path / "idx")
    ctx = Context(corpus_path=str(docs), index_dir=str(tmp_path / "idx"))
    before, parts = verdict_fingerprint(ctx), verdict_parts(ctx)
    collection.update_collection(docs, tmp_path / "idx", encoder="acme/other-encoder", rebuild=True)
    assert verdict_parts(ctx)["search"]["corpus_sha256"] == parts["search"]["corpus_sha256"]  # the same passages
    assert verdict_fingerprint(ctx) != before, "the index was embedded with another encoder and the key did not change"
    assert verdict_parts(ctx)["search"]["built"]["encoder"] == "acme/other-encoder"


def test_another_server_for_a_remote_model_changes_the_key_and_its_key_is_never_in_it(corpus_copy, monkeypatch):
    secret = "sk-claimhop-test-0123456789abcdef"
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    ctx = Context(corpus_path=str(corpus_copy), model="openai/claimhop-local")
    monkeypatch.setenv("OPENAI_API_BASE", "http://10.0.0.5:8000/v1")
    first = verdict_fingerprint(ctx)
    monkeypatch.setenv("OPENAI_API_BASE", "http://10.0.0.6:8000/v1")  # the same model name, another server
    second = verdict_fingerprint(ctx)
    assert second != first, "the model's server changed and the key did not"
    assert "http://10.0.0.6:8000/v1" in verdict_parts(ctx)["model"]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-another-key")
    assert verdict_fingerprint(ctx) == second  # the API key decides nothing and is never part of it
    monkeypatch.setenv("OPENAI_API_BASE", f"http://user:{secret}@10.0.0.6:8000/v1?api_key={secret}")
    assert secret not in json.dumps(verdict_parts(ctx), default=str)


@pytest.mark.parametrize("package", ["xllamacpp", "dspy", "litellm"])
def test_an_upgrade_of_a_package_that_decides_a_verdict_changes_the_key(package, corpus_copy, monkeypatch):
    import importlib.metadata

    ctx = Context(corpus_path=str(corpus_copy))
    before = verdict_fingerprint(ctx)
    real = importlib.metadata.version
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "99.0" if name == package else real(name))
    assert verdict_fingerprint(ctx) != before, f"{package} was upgraded and the key did not change"


def test_a_named_thread_checked_under_another_fingerprint_checks_the_claim_afresh_and_says_so(
        small_corpus, tmp_path, fake_model, monkeypatch, caplog):  # noqa: F811
    import logging

    import graph.durable
    from graph import check_claim

    monkeypatch.setenv("CLAIMHOP_CHECKPOINTS", str(tmp_path / "checkpoints.sqlite"))
    monkeypatch.setattr(graph.durable, "_SHARED", {})
    given = {"corpus_path": str(small_corpus), "use_optimized_program": False, "verifier": "single"}
    claim = "Steve Augeri is American."
    check_claim(claim, thread_id="mine", **given)
    calls = len(fake_model.calls)
    check_claim(claim, thread_id="mine", **given)
    assert len(fake_model.calls) == calls  # nothing changed: read back
    monkeypatch.setattr(claimhop, "__version__", "99.0")  # an upgrade
    with caplog.at_level(logging.WARNING, logger="claimhop"):
        upgraded = check_claim(claim, thread_id="mine", **given)
    assert len(fake_model.calls) > calls, "the thread's old verdict was read back after an upgrade"
    assert upgraded["claim"] == claim and upgraded["verdict"]
    assert "thread 'mine'" in caplog.text and "checking the claim afresh on the same thread" in caplog.text
    calls = len(fake_model.calls)
    check_claim(claim, thread_id="mine", **given)
    assert len(fake_model.calls) == calls  # the fresh check is read back under its own fingerprint
    check_claim(claim, thread_id="mine", **given, max_iterations=0)  # a changed setting
    assert len(fake_model.calls) > calls
