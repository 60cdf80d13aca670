"""The default LM: a GGUF model run in-process by llama.cpp (xllamacpp), exposed to DSPy as a custom engine.

One server per process, one generation at a time (on 2 cores concurrent decoding only slows every call),
shared by every node and every concurrent graph run.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from dspy.lm15 import Response, response_from_openai_chat, response_to_events

from claimhop.lm.call_watch import SerialModel
from claimhop.lm.chat_template import chatml
from claimhop.lm.engine_hint import say_once
from claimhop.lm.prompt_states import PromptStates, fixed_prefix, state_folder
from claimhop.lm.usage import LEDGER
from claimhop.signatures import MAX_REPLY_ITEMS

# RAM for llama.cpp's prompt-state cache: a 600-token prompt of the 1.5B model takes ~17 MB, so this holds
# every signature's prefix many times over while bounding memory.
PROMPT_CACHE_MIB = 512
log = logging.getLogger("claimhop")


@dataclass(frozen=True)
class EngineOptions:
    """How llama.cpp runs the local model. Process-wide (one engine per process), so these come from the
    environment (CLAIMHOP_LLM_<FIELD>), not from a run's settings. Defaults measured by `python -m
    benchmarks.lab.engine` (docs/speed.md): every core, flash attention and batch sizes as measured best."""

    threads: int = 0  # 0: every core this process may use
    n_batch: int = 2048
    n_ubatch: int = 512
    flash_attn: int = -1  # -1 auto, 0 off, 1 on
    n_ctx: int = 4096
    # 1: JSON replies with no whitespace, and the worked examples shown so. On by default since issue 58: on 100
    # HotpotQA questions the plan wrote 0.63x the tokens for the same documents (docs/speed.md); 0: pretty-printed
    compact_json: int = 1
    # Prompt-lookup speculative decoding (llama.cpp's ngram-simple): drafts of up to `spec_draft` tokens copied
    # from where the last `spec_ngram` tokens occurred before in the prompt or reply, verified in one batch.
    # Off: measured by `python -m benchmarks.lab.speculative`, the plan got no faster (11.9 -> 10.8-11.9 tokens/s)
    # and 3-4 of 10 replies changed (docs/speed.md).
    spec_draft: int = 0  # 0: off
    spec_ngram: int = 3
    # 1: the verifier's hidden states are read on the chat instance itself, as before issue 41: one model
    # in memory, but each pass overwrites the slot that kept the plan's prompt cached (docs/speed.md measures both)
    shared_reader: int = 0
    # 1: the fixed part of a chat call (system message, worked examples) is read once and its llama.cpp state kept on
    # disk, so a fresh process restores it instead of reading it again (claimhop.lm.prompt_states); 0: never kept
    prompt_states: int = 1
    # 1: every free string of a reply capped so that the longest reply its schema allows about fits max_tokens
    # (`budgeted`). 0: each string may take MAX_STRING characters, so a reply that copies long "title: sentence"
    # entries into several lists can run into max_tokens and fail to parse (a retry, ~30 s lost). Off: on every set,
    # cut-off replies 4 -> 1 but 20% more calls on two samples (docs/results/every-set/reply-budget)
    reply_budget: int = 0

    @classmethod
    def from_env(cls) -> EngineOptions:
        values: dict[str, int] = {}
        for name in cls.__dataclass_fields__:
            raw = os.environ.get(f"CLAIMHOP_LLM_{name.upper()}")
            if raw is not None:
                try:
                    values[name] = int(raw)
                except ValueError:
                    raise ValueError(f"environment variable CLAIMHOP_LLM_{name.upper()}={raw!r} is not an integer") from None
        return cls(**values)

    def thread_count(self) -> int:
        if self.threads > 0:
            return self.threads
        usable = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else range(os.cpu_count() or 1)
        return max(1, len(usable))


class LocalModelError(RuntimeError):
    """The local model failed to answer; the message says how."""


def _text_of(parts: Any) -> str:
    if parts is None:
        return ""
    if isinstance(parts, str):
        return parts
    return "".join(getattr(part, "text", "") or "" for part in parts)


def server_params(model_path: Path, options: EngineOptions):
    """llama.cpp's server parameters for the local model under these options (the in-process engine and
    `claimhop serve-model` run the same model the same way)."""
    import xllamacpp

    threads = options.thread_count()
    params = xllamacpp.CommonParams()
    params.model.path = str(model_path)
    params.n_ctx = options.n_ctx
    params.n_batch = options.n_batch
    params.n_ubatch = options.n_ubatch
    params.flash_attn_type = xllamacpp.llama_flash_attn_type(options.flash_attn)
    params.n_parallel = 1
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.verbosity = -1
    if options.spec_draft > 0:
        spec = params.speculative
        spec.types = [xllamacpp.common_speculative_type.COMMON_SPECULATIVE_TYPE_NGRAM_SIMPLE]
        spec.ngram_simple.size_n = options.spec_ngram
        spec.ngram_simple.size_m = options.spec_draft
        spec.draft.n_max = options.spec_draft
    # llama.cpp keeps recent prompt states in RAM and restores the longest matching prefix, so a
    # signature's long system message is processed once, not on every call (~2x faster prompts here).
    params.cache_prompt = True
    params.cache_ram_mib = PROMPT_CACHE_MIB
    # The same server also gives the final hidden state of a prompt's last token (llama.cpp's embeddings with
    # last-token pooling): what the passage verifier's learned head reads (claimhop.program.verify.reading).
    params.embedding = True
    params.pooling_type = xllamacpp.llama_pooling_type.LLAMA_POOLING_TYPE_LAST
    return params


def lock_listener(params) -> str:
    """Give an in-process instance's loopback HTTP listener (xllamacpp opens one; it cannot be turned off) a key
    only this process knows, so no other local program can use the model or its slot actions through it; the
    process's own calls (handle_chat_completions, handle_embeddings) do not go through HTTP and need none."""
    import secrets

    key = secrets.token_urlsafe(24)
    params.api_keys = [key]
    return key


@dataclass(frozen=True)
class StateReader:
    """A llama.cpp instance that reads hidden states (embeddings with last-token pooling), over the model or a copy
    cut to its first `blocks` blocks. Its passes leave the chat instance's slot alone, so the plan's prefix stays
    cached (measured in docs/speed.md); llama.cpp's embeddings mode itself reuses no cached prefix (every pass reads
    its whole prompt: the same prompt twice took 16.6 and 16.4 s; on 2026-12-02 an 868-token prompt three times
    22.1, 21.8, 18.1 s, and as much with cache_idle_slots off and no RAM cache, so the claim's opposite, read on
    the same passages, pays the whole pass again). The weights are memory-mapped, so the full model's pages are
    shared with the chat instance."""

    server: Any
    blocks: int | None = None

    @classmethod
    def load(cls, model_path: Path, options: EngineOptions, blocks: int | None = None) -> StateReader:
        import xllamacpp

        from claimhop.lm.cut_model import cut_path

        path = model_path if blocks is None else cut_path(blocks)
        params = server_params(path, options)
        lock_listener(params)
        return cls(xllamacpp.Server(params), blocks)


def embedding_pass(server, messages: list[dict]) -> tuple[Any, float, int]:
    """One embeddings pass of a llama.cpp instance over the chat-templated prompt: its reply, the seconds it took
    and the prompt's tokens (0 when the reply says none)."""
    started = time.perf_counter()
    result = server.handle_embeddings({"input": [chatml(messages)], "embd_normalize": -1})
    seconds = time.perf_counter() - started
    prompt = int(((result or {}).get("usage") or {}).get("prompt_tokens") or 0) if isinstance(result, dict) else 0
    return result, seconds, prompt


def state_from(result: Any) -> np.ndarray:
    """The hidden state an embeddings pass returned, or a clear error saying what came back instead."""
    try:
        return np.asarray(result["data"][0]["embedding"], dtype=np.float32)
    except (TypeError, KeyError, IndexError):
        message = result.get("error", result) if isinstance(result, dict) else result
        raise LocalModelError(f"local model returned no hidden state: {str(message)[:200]}") from None


class LlamaCppEngine:
    """Implements DSPy's engine contract (complete(Request) -> Response) over xllamacpp.Server."""

    supports_response_schema = True
    supported_params = frozenset({"temperature", "max_tokens", "top_p", "stop", "seed", "response_format"})

    def __init__(self, model_path: Path, options: EngineOptions | None = None):
        import xllamacpp

        options = options or EngineOptions.from_env()
        params = server_params(model_path, options)
        self.model_path = Path(model_path)
        self.options = options
        self.n_ctx = options.n_ctx
        key = lock_listener(params)
        states_folder = self._states_folder(params) if options.prompt_states else None
        self._server = xllamacpp.Server(params)
        self._xllamacpp = xllamacpp
        self.states = PromptStates(self._server, states_folder, key) if states_folder else None
        say_once(xllamacpp.get_system_info())
        # a build with llguidance turns JSON schemas into llguidance grammars, one without into GBNF
        self._llguidance = xllamacpp.json_schema_to_grammar('{"type": "string"}').startswith("%llguidance")
        self._lock = SerialModel()  # one call at a time; tells waiting calls' timeouts they are queued
        self._reader: StateReader | None = None
        self.calls = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0

    def _states_folder(self, params) -> Path | None:
        """Where this instance keeps its prompt states (claimhop.lm.prompt_states), with llama.cpp's slot actions
        switched on for that folder alone (on the listener lock_listener locked); None (no states kept) when
        claimhop's folder cannot be written."""
        import xllamacpp

        from claimhop.cache_root import cache_root

        # flash_attn -1 is resolved by llama.cpp per machine, so the CPU's features are part of the layout too
        layout = {"llama.cpp": xllamacpp.__version__, "cpu": xllamacpp.get_system_info(), "n_ctx": self.options.n_ctx,
                  "flash_attn": self.options.flash_attn}
        try:
            folder = state_folder(cache_root() / "prompt-states", self.model_path, layout)
        except (OSError, ValueError) as err:
            log.info("prompt states not kept: %s", err)
            return None
        params.endpoint_slots = True
        params.slot_save_path = f"{folder}{os.sep}"  # llama.cpp joins it to the file name as it is
        return folder

    def chat(self, body: dict) -> dict:
        """One OpenAI-style chat completion, serialised with every other call in the process."""
        body = {"temperature": 0.0, "cache_prompt": True, **body}
        with self._lock:
            started = time.perf_counter()
            keep = self.states.before_call(body.get("messages") or []) if self.states else None
            # a prefix with no state yet is read alone first and kept: the call then reads only the rest, and the
            # slot ends holding the whole call (an exact repeat, a retry, finds it all); its tokens count as read
            kept = self.states.keep(keep) if keep else 0
            result = self._server.handle_chat_completions(body)
            seconds = time.perf_counter() - started
            self.calls += 1
            usage = (result or {}).get("usage") or {}
            self.prompt_tokens += int(usage.get("prompt_tokens") or 0)
            self.completion_tokens += int(usage.get("completion_tokens") or 0)
            timings = (result or {}).get("timings") or {} if isinstance(result, dict) else {}
            LEDGER.record(prompt=int(usage.get("prompt_tokens") or 0), output=int(usage.get("completion_tokens") or 0),
                          cached=max(0, int(timings.get("cache_n") or 0) - kept), seconds=seconds)
        if not isinstance(result, dict) or "choices" not in result:
            message = result.get("error", result) if isinstance(result, dict) else result
            raise LocalModelError(f"local model returned no completion: {message}")
        return result

    def keep_prefix(self, messages: list[dict]) -> bool:
        """Make sure the fixed part of a call with these messages is kept on disk (`claimhop setup` does it for the
        plan, so even a machine's first check restores it): True when a state is there now."""
        prefix = fixed_prefix(messages)
        if self.states is None or prefix is None:
            return False
        with self._lock:
            return self.states.has(prefix) or self.states.keep(prefix) > 0

    def last_hidden_state(self, messages: list[dict], blocks: int | None = None) -> np.ndarray:
        """The model's hidden state (after its final norm) at the last token of the chat-templated prompt, where its
        reply would start: one prompt pass, no token generated. `blocks`: read after that many transformer blocks
        (a cut copy of the model, claimhop.lm.cut_model); None: after all of them.

        The pass runs on a second llama.cpp instance (StateReader), serialised with this one's calls, so it never
        evicts the prompt a chat call left cached on this instance's one slot."""
        reader = self.reader(blocks)
        with self._lock:
            result, seconds, prompt = embedding_pass(reader.server, messages)
            self.calls += 1
            self.prompt_tokens += prompt
            LEDGER.record(prompt=prompt, output=0, cached=0, seconds=seconds, asked=True)
        return state_from(result)

    def reader(self, blocks: int | None = None) -> StateReader:
        """The instance that reads hidden states after `blocks` blocks, loaded on first use; one at a time (a
        different cut replaces it), so a process holds at most two models."""
        with self._lock:
            if self.options.shared_reader and blocks is None:
                if self.states:
                    self.states.forget_slot()  # its passes overwrite the chat slot
                return StateReader(self._server)
            if self._reader is None or self._reader.blocks != blocks:
                self._reader = None  # the old instance goes before the next loads: never three models at once
                self._reader = StateReader.load(self.model_path, self.options, blocks)
            return self._reader

    def _body(self, request) -> dict:
        messages = []
        if request.system is not None:
            messages.append({"role": "system", "content": _text_of(request.system)})
        for message in request.messages:
            messages.append({"role": message.role, "content": message.text or ""})
        config = request.config
        body: dict[str, Any] = {"messages": messages}
        if config.temperature is not None:
            body["temperature"] = config.temperature
        if config.max_tokens is not None:
            body["max_tokens"] = config.max_tokens
        if config.top_p is not None:
            body["top_p"] = config.top_p
        if config.stop:
            body["stop"] = list(config.stop)
        if config.seed is not None:
            body["seed"] = config.seed
        if config.response_format:
            fmt = _openai_response_format(config.response_format,
                                          config.max_tokens if self.options.reply_budget else None)
            if self.options.compact_json and fmt.get("type") == "json_schema":
                # the server's own response_format path pretty-prints whatever the schema says, so the grammar
                # is sent as llguidance (the registry wheel) or GBNF (a build without llguidance) would write it
                schema = fmt["json_schema"]["schema"]
                if self._llguidance:
                    body["grammar"] = "%llguidance {}\nstart: %json " + json.dumps(compact_schema(schema))
                else:
                    body["grammar"] = compact_gbnf(self._xllamacpp.json_schema_to_grammar(json.dumps(schema)))
            else:
                body["response_format"] = fmt
        return body

    def complete(self, request) -> Response:
        result = self.chat(self._body(request))
        return response_from_openai_chat(result, model=request.model)

    def stream(self, request):
        return response_to_events(self.complete(request))

    def close(self) -> None:
        pass


# the characters of a free string in a reply, at most: a few sentences, more than a fact or a search query needs;
# set by hand with the list cap (6d5a164, against the same looping), not tuned
MAX_STRING = 240
# with reply_budget: characters a reply token carries (English words; names and numbers carry fewer), the characters
# each string spends on JSON around it (quotes, comma, its share of the keys), and the least a string keeps
CHARS_PER_TOKEN = 4
STRING_OVERHEAD = 8
MIN_STRING = 40


def bounded(schema: Any, string_cap: int = MAX_STRING) -> Any:
    """The schema with every list capped at MAX_REPLY_ITEMS (claimhop.signatures: the program keeps no more of a
    served model's facts, names or queries) and every free string at `string_cap` characters (MAX_STRING).

    A 1.5B model sometimes repeats one item until max_tokens cuts the JSON off; the grammar then cannot
    even start one item more, so replies stay short and always parse."""
    if isinstance(schema, list):
        return [bounded(item, string_cap) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: bounded(value, string_cap) for key, value in schema.items()}
    if out.get("type") == "array":
        out.setdefault("maxItems", MAX_REPLY_ITEMS)
    if out.get("type") == "string" and "enum" not in out:
        given = out.get("maxLength")  # a schema's own cap stands, unless a budget is tighter
        out["maxLength"] = string_cap if given is None else (min(given, string_cap) if string_cap < MAX_STRING
                                                               else given)
    return out


def string_slots(schema: Any) -> int:
    """How many free strings the longest reply a (bounded) schema allows holds: a list's items times its cap, an
    object's properties summed."""
    if not isinstance(schema, dict):
        return 0
    if schema.get("type") == "string":
        return 0 if "enum" in schema else 1
    if schema.get("type") == "array":
        return schema.get("maxItems", MAX_REPLY_ITEMS) * string_slots(schema.get("items", {}))
    return sum(string_slots(value) for value in schema.get("properties", {}).values())


def budgeted(schema: Any, max_tokens: int | None) -> Any:
    """`bounded`, with the strings' cap shared out so the longest reply the schema allows about fits `max_tokens`
    (reply_budget; at CHARS_PER_TOKEN, which text of short tokens can beat): the gap analysis's 15 strings get 77
    characters each at 320 tokens, the plan's 10 get 120. Only a string that would have run on is cut, yet what
    follows it in the reply then reads differently."""
    schema = bounded(schema)
    slots = string_slots(schema)
    if not max_tokens or not slots:
        return schema
    cap = max_tokens * CHARS_PER_TOKEN // slots - STRING_OVERHEAD
    return bounded(schema, max(MIN_STRING, min(MAX_STRING, cap)))


# Left free, the model pretty-prints JSON: a line break and indentation before every key and list item, tokens that
# cost as much to generate as words (at ~13 generated tokens/s on 2 cores, a large share of a reply's time).


# llguidance's JSON layout with no whitespace at all: its fixed separators default to Python's ", " and ": "
TIGHT_JSON = {"whitespace_flexible": False, "item_separator": ",", "key_separator": ":"}


def compact_schema(schema: dict) -> dict:
    """The schema with llguidance's options for compact JSON (no whitespace between tokens)."""
    return {**schema, "x-guidance": dict(TIGHT_JSON)}


def compact_gbnf(grammar: str) -> str:
    """llama.cpp's GBNF for a schema with the whitespace between JSON tokens limited to one optional space."""
    compact, found = re.subn(r"(?m)^space ::= .*$", 'space ::= " "?', grammar)
    return compact if found else grammar  # a grammar with no `space` rule: keep it as it is


def _openai_response_format(fmt: dict, max_tokens: int | None = None) -> dict:
    """lm15 carries response_format in OpenAI's shape or as a bare schema; llama.cpp wants OpenAI's. With
    `max_tokens` (reply_budget on) the strings share that budget (`budgeted`)."""
    if fmt.get("type") in {"json_object", "text"}:
        return dict(fmt)
    if fmt.get("type") == "json_schema" and "json_schema" in fmt:
        inner = fmt["json_schema"]
        return {"type": "json_schema",
                "json_schema": {**inner, "schema": budgeted(inner.get("schema", {}), max_tokens)}}
    schema = fmt.get("schema", fmt)
    return {"type": "json_schema",
            "json_schema": {"name": fmt.get("name", "output"), "schema": budgeted(schema, max_tokens)}}


class AsyncLlamaCppEngine:
    """Async face of the same engine: runs the blocking call in a worker thread."""

    def __init__(self, sync: LlamaCppEngine):
        self.sync = sync
        self.supports_response_schema = sync.supports_response_schema
        self.supported_params = sync.supported_params

    async def complete(self, request) -> Response:
        return await asyncio.to_thread(self.sync.complete, request)

    async def stream(self, request):
        for event in response_to_events(await self.complete(request)):
            yield event

    async def aclose(self) -> None:
        pass
