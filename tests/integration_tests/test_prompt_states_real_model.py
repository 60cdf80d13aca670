"""Prompt states kept on disk (claimhop.lm.prompt_states) with the real local model: a fresh engine reads a call's
fixed part back instead of computing it, and replies as an engine that computed it afresh; a torn state file is
made again; the instance's loopback listener answers nobody without the process's key."""

from __future__ import annotations

import gc
import json
import urllib.error
import urllib.request

import pytest

from claimhop.lm.local_engine import EngineOptions, LlamaCppEngine
from claimhop.lm.weights import gguf_path

pytestmark = pytest.mark.integration

SYSTEM = ("You check a claim against what you know. Answer with one word: true or false. A claim is true when every "
          "part of it holds: the names, the dates, the places and the relations between them. ") * 4


def ask(engine: LlamaCppEngine, claim: str) -> dict:
    return engine.chat({"messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": claim}],
                        "max_tokens": 6})


def cached(result: dict) -> int:
    return int(result["timings"]["cache_n"])


def reply(result: dict) -> str:
    return result["choices"][0]["message"]["content"]


def test_a_fresh_engine_restores_the_fixed_part_an_earlier_one_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAIMHOP_HOME", str(tmp_path))
    first = LlamaCppEngine(gguf_path())
    made = ask(first, "Claim: Paris is the capital of France.")
    assert cached(made) == 0 and first.states.saved == 1
    states = list((tmp_path / "prompt-states").rglob("*.bin"))
    assert len(states) == 1
    del first
    gc.collect()

    second = LlamaCppEngine(gguf_path())
    restored = ask(second, "Claim: Berlin is the capital of Spain.")
    prompt = restored["usage"]["prompt_tokens"]
    assert second.states.restored == 1 and cached(restored) >= prompt - 16, restored["timings"]
    del second
    gc.collect()

    afresh = LlamaCppEngine(gguf_path(), EngineOptions(prompt_states=0))
    computed = ask(afresh, "Claim: Berlin is the capital of Spain.")
    assert afresh.states is None and cached(computed) == 0
    assert reply(computed) == reply(restored)


def test_a_torn_state_file_is_made_again(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAIMHOP_HOME", str(tmp_path))
    first = LlamaCppEngine(gguf_path())
    ask(first, "Claim: Paris is the capital of France.")
    (state,) = (tmp_path / "prompt-states").rglob("*.bin")
    del first
    gc.collect()
    state.write_bytes(state.read_bytes()[:4096])  # a crash mid-write elsewhere, or a copy cut short

    second = LlamaCppEngine(gguf_path())  # llama.cpp aborts the process on such a file: it must not be read
    result = ask(second, "Claim: Berlin is the capital of Spain.")
    assert reply(result) and second.states.restored == 0 and second.states.saved == 1
    (again,) = (tmp_path / "prompt-states").rglob("*.bin")
    assert again.stat().st_size > 1_000_000  # a whole state again, read by the next process
    del second
    gc.collect()
    third = LlamaCppEngine(gguf_path())
    ask(third, "Claim: Rome is the capital of Italy.")
    assert third.states.restored == 1


def test_the_in_process_listener_answers_no_one_without_the_key(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAIMHOP_HOME", str(tmp_path))
    engine = LlamaCppEngine(gguf_path())
    address = engine._server.listening_address.rstrip("/")
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    save = urllib.request.Request(f"{address}/slots/0?action=save", method="POST",
                                  data=json.dumps({"filename": "taken.bin"}).encode(),
                                  headers={"Content-Type": "application/json"})
    for request in (f"{address}/v1/models", save):
        with pytest.raises(urllib.error.HTTPError) as refused:
            opener.open(request, timeout=30)
        assert refused.value.code == 401
    assert not list((tmp_path / "prompt-states").rglob("taken.bin"))
