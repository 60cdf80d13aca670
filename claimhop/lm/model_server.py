"""`claimhop serve-model`: the bundled model behind llama.cpp's own OpenAI-compatible HTTP server, on loopback.

For running claimhop against a model server as users of Ollama, vLLM or a hosted API do (`--model
openai/claimhop-local` with OPENAI_API_BASE), and for sharing one loaded model between processes."""

from __future__ import annotations

import os
import signal
import threading

from claimhop.lm.local_engine import EngineOptions, server_params
from claimhop.lm.weights import QWEN_CODER_1_5B, gguf_path

MODEL_ALIAS = "claimhop-local"


def use_key(api_key: str) -> str:
    """What the usage line says for the key: never the key itself (terminals, logs and CI output keep it)."""
    return "<your key>" if api_key else "none"


def serve_model(port: int, host: str = "127.0.0.1", api_key: str = "", parallel: int = 1) -> None:
    """Serve until Ctrl-C or SIGTERM. The key, when given, is required of every request (Bearer). With
    `parallel` N, llama.cpp answers N requests at once in slots of one batch (continuous batching), each slot
    with the context one request has alone; /slots and /metrics show what each slot did."""
    import xllamacpp

    if not 0 < port < 65536:
        raise ValueError(f"--port must be between 1 and 65535, got {port}")
    if not 1 <= parallel <= 16:
        raise ValueError(f"--parallel must be between 1 and 16, got {parallel}")
    options = EngineOptions.from_env()
    params = server_params(gguf_path(QWEN_CODER_1_5B), options)
    params.n_parallel = parallel
    params.n_ctx = options.n_ctx * parallel  # llama.cpp divides the context among the slots
    params.cont_batching = True
    params.endpoint_slots = True
    params.endpoint_metrics = True
    params.port = port
    params.hostnames = [host]
    params.model_alias = {MODEL_ALIAS}
    if api_key:
        params.api_keys = [api_key]
    server = xllamacpp.Server(params)  # noqa: F841 - its HTTP listener lives as long as this object
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    print(f"serving {QWEN_CODER_1_5B.name} as '{MODEL_ALIAS}' at http://{host}:{port}/v1 "
          f"({parallel} slot{'s' if parallel > 1 else ''}; OpenAI-compatible; Ctrl-C stops)", flush=True)
    print(f"  use it: OPENAI_API_BASE=http://{host}:{port}/v1 OPENAI_API_KEY={use_key(api_key)} "
          f"claimhop check --model openai/{MODEL_ALIAS} \"CLAIM\"", flush=True)
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    os._exit(0)  # llama.cpp's listener thread does not stop on its own
