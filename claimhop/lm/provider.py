"""Which language model the graph uses: the local GGUF by default, or any model name dspy.LM accepts."""

from __future__ import annotations

import logging
import os
import threading

import dspy

from claimhop.cache_root import cache_root

LOCAL = "local"
# A reply's tokens, at most. The local model's replies are JSON of a few short lists (the plan's: 80-92 tokens,
# docs/speed.md) and one that loops stops here; a served model, whose JSON no grammar keeps short, gets more room.
# Both set with the first graph (ff51bcf), not tuned.
LOCAL_MAX_TOKENS = 320  # the local model's reply, at most
SERVED_MAX_TOKENS = 512  # a served model's reply, at most
_LMS: dict[str, dspy.LM] = {}
_ENGINES: dict[str, object] = {}
_LOCK = threading.Lock()
_CACHE_READY = False
_LOADS: dict[str, int] = {}
log = logging.getLogger("claimhop")


def _configure_cache() -> None:
    """DSPy's response cache lives in claimhop's cache folder; keys include the model's name and hash."""
    global _CACHE_READY
    if not _CACHE_READY:
        folder = os.environ.get("DSPY_CACHEDIR") or str(cache_root() / "dspy")
        dspy.configure_cache(enable_disk_cache=True, enable_memory_cache=True, disk_cache_dir=folder)
        _CACHE_READY = True


def _local_lm() -> dspy.LM:
    from claimhop.lm.local_engine import AsyncLlamaCppEngine, LlamaCppEngine
    from claimhop.lm.weights import QWEN_CODER_1_5B, gguf_path

    engine = LlamaCppEngine(gguf_path(QWEN_CODER_1_5B))
    _ENGINES[LOCAL] = engine
    return dspy.LM(
        # DSPy's cache keys on this name: the grammar's JSON layout and speculative decoding (batched numerics)
        # change replies, so they are part of it
        f"local/{QWEN_CODER_1_5B.name}@{QWEN_CODER_1_5B.sha256[:12]}{'' if engine.options.compact_json else '+freejson'}"
        f"{f'+spec{engine.options.spec_draft}n{engine.options.spec_ngram}' if engine.options.spec_draft else ''}"
        f"{'+budget' if engine.options.reply_budget else ''}",
        engine=engine,
        async_engine=AsyncLlamaCppEngine(engine),
        temperature=0.0,
        max_tokens=LOCAL_MAX_TOKENS,
        num_retries=1,
    )


def get_lm(model: str = LOCAL) -> dspy.LM:
    """Loaded once per process and shared by every node and concurrent run."""
    name = (model or LOCAL).strip()
    with _LOCK:
        _configure_cache()
        if name not in _LMS:
            log.info("loading language model %s", name)
            _LMS[name] = (_local_lm() if name == LOCAL
                          else dspy.LM(name, temperature=0.0, max_tokens=SERVED_MAX_TOKENS))
            _LOADS[name] = _LOADS.get(name, 0) + 1
        return _LMS[name]


def describe_model(model: str = LOCAL) -> str:
    """The model as an answer names it: the bundled one spelled out, any other by the name it was given."""
    name = (model or LOCAL).strip()
    if name == LOCAL:
        return "local: Qwen2.5-Coder-1.5B-Instruct (q4_k_m GGUF), run in-process by llama.cpp"
    return name


def local_engine():
    """The in-process llama.cpp engine behind the local LM (loaded by get_lm)."""
    get_lm(LOCAL)
    return _ENGINES[LOCAL]


def loaded_local_engine():
    """The in-process engine if this process has loaded it already, else None (nothing is loaded)."""
    with _LOCK:
        return _ENGINES.get(LOCAL)


def model_loads() -> dict[str, int]:
    """How many times each model was loaded in this process (1 each, however many runs share it)."""
    return dict(_LOADS)


def local_engine_stats() -> dict[str, int]:
    """Calls and tokens the in-process model has served (cache hits do not count)."""
    engine = _ENGINES.get(LOCAL)
    if engine is None:
        return {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0}
    return {"calls": engine.calls, "prompt_tokens": engine.prompt_tokens, "completion_tokens": engine.completion_tokens}
