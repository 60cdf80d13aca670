"""Prompt states kept on disk (claimhop.lm.prompt_states) with the real local model: a fresh engine reads a call's
fixed part back instead of computing it, and replies as an engine that computed it afresh; a torn state file is
made again; the instance's loopback listener answers nobody without the process's key."""

from __future__ import annotations

import gc
import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from claimhop.lm.local_engine import EngineOptions, LlamaCppEngine
from claimhop.lm.weights import gguf_path

pytestmark = pytest.mark.integration

SYSTEM = ("You check a claim against what you know. Answer with one word: true or false. A claim is true when every "
          "part of it holds: the names, the dates, the places and the relations between them. ") * 4
OTHER = ("You name the people, places and works a claim mentions, one per line, and nothing else. Titles keep their "
         "own spelling; a person is named in full as the claim names them. ") * 4


@pytest.fixture(scope="module")
def model() -> Path:
    """The assembled model, from the usual cache (before a test moves CLAIMHOP_HOME to its own folder)."""
    return gguf_path()


def ask(engine: LlamaCppEngine, claim: str, system: str = SYSTEM) -> dict:
    return engine.chat({"messages": [{"role": "system", "content": system}, {"role": "user", "content": claim}],
                        "max_tokens": 6})


def cached(result: dict) -> int:
    return int(result["timings"]["cache_n"])


def reply(result: dict) -> str:
    return result["choices"][0]["message"]["content"]


def test_a_fresh_engine_restores_the_fixed_part_an_earlier_one_kept(model, tmp_path, monkeypatch):
    monkeypatch.setenv("CLAIMHOP_HOME", str(tmp_path))
    first = LlamaCppEngine(model)
    made = ask(first, "Claim: Paris is the capital of France.")
    assert reply(made) and first.states.saved == 1 and first.states.restored == 0
    again = ask(first, "Claim: Paris is the capital of France.")  # the slot holds the whole call, not the prefix alone
    assert cached(again) >= again["usage"]["prompt_tokens"] - 1, again["timings"]
    states = list((tmp_path / "prompt-states").rglob("*.bin"))
    assert len(states) == 1
    del first
    gc.collect()

    second = LlamaCppEngine(model)
    restored = ask(second, "Claim: Berlin is the capital of Spain.")
    prompt = restored["usage"]["prompt_tokens"]
    assert second.states.restored == 1 and cached(restored) >= prompt - 16, restored["timings"]
    del second
    gc.collect()

    afresh = LlamaCppEngine(model, EngineOptions(prompt_states=0))
    computed = ask(afresh, "Claim: Berlin is the capital of Spain.")
    assert afresh.states is None and cached(computed) == 0
    assert reply(computed) == reply(restored)


def test_a_torn_state_file_is_made_again(model, tmp_path, monkeypatch):
    monkeypatch.setenv("CLAIMHOP_HOME", str(tmp_path))
    first = LlamaCppEngine(model)
    ask(first, "Claim: Paris is the capital of France.")
    (state,) = (tmp_path / "prompt-states").rglob("*.bin")
    del first
    gc.collect()
    state.write_bytes(state.read_bytes()[:4096])  # a crash mid-write elsewhere, or a copy cut short

    second = LlamaCppEngine(model)  # llama.cpp aborts the process on such a file: it must not be read
    result = ask(second, "Claim: Berlin is the capital of Spain.")
    assert reply(result) and second.states.restored == 0 and second.states.saved == 1
    (again,) = (tmp_path / "prompt-states").rglob("*.bin")
    assert again.stat().st_size > 1_000_000  # a whole state again, read by the next process
    del second
    gc.collect()
    third = LlamaCppEngine(model)
    ask(third, "Claim: Rome is the capital of Italy.")
    assert third.states.restored == 1


def test_the_in_process_listener_answers_no_one_without_the_key(model, tmp_path, monkeypatch):
    monkeypatch.setenv("CLAIMHOP_HOME", str(tmp_path))
    engine = LlamaCppEngine(model)
    address = engine._server.listening_address.rstrip("/")
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def post(path: str, body: dict) -> urllib.request.Request:
        return urllib.request.Request(f"{address}{path}", method="POST", data=json.dumps(body).encode(),
                                      headers={"Content-Type": "application/json"})

    chat = post("/v1/chat/completions", {"messages": [{"role": "user", "content": "Say yes."}], "max_tokens": 2})
    for request in (chat, post("/completion", {"prompt": "Paris is", "n_predict": 2}),
                    post("/slots/0?action=save", {"filename": "taken.bin"}), f"{address}/slots"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            opener.open(request, timeout=30)
        assert refused.value.code == 401
    assert not list((tmp_path / "prompt-states").rglob("taken.bin"))


def test_a_signatures_state_comes_back_after_another_signatures_call(model, tmp_path, monkeypatch):
    """A batch or server alternates signatures (the plan, the gap loop, the claim's opposite): a restore replaces the
    slot without caching what it held, so each signature's state is restored again when it comes back."""
    monkeypatch.setenv("CLAIMHOP_HOME", str(tmp_path))
    first = LlamaCppEngine(model)
    ask(first, "Claim: Paris is the capital of France.")
    ask(first, "Claim: Paris is the capital of France.", system=OTHER)
    assert first.states.saved == 2
    del first
    gc.collect()

    engine = LlamaCppEngine(model)
    for claim in ("Claim: Berlin is the capital of Spain.", "Claim: Rome is the capital of Italy."):
        plan = ask(engine, claim)
        names = ask(engine, claim, system=OTHER)
        assert cached(plan) >= plan["usage"]["prompt_tokens"] - 16, plan["timings"]
        assert cached(names) >= names["usage"]["prompt_tokens"] - 16, names["timings"]
    assert engine.states.restored == 4 and engine.states.saved == 0
