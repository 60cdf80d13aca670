"""`claimhop serve-model` as a user starts it for the tests that run claimhop on a model server (the bundled model
behind llama.cpp's own OpenAI-compatible server, on loopback, with a key, two slots), and what the server says
it has served (its /metrics counters)."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from benchmarks.launch import free_port

MODEL = "openai/claimhop-local"  # the server's model as claimhop names it (`--model`)


def status(url: str, key: str | None) -> int:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"} if key else {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as err:
        return err.code
    except urllib.error.URLError:
        return 0  # not listening yet


@contextmanager
def serve_model(folder: Path, parallel: int = 2) -> Iterator[tuple[str, str]]:
    """A running server, its log in `folder`: (its OPENAI_API_BASE, its key)."""
    port, key = free_port(), secrets.token_hex(12)
    log = folder / "serve-model.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "claimhop.cli.main", "serve-model", "--port", str(port),
                                 "--parallel", str(parallel)],
                                env={**os.environ, "CLAIMHOP_MODEL_API_KEY": key}, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.time() + 240
        while status(f"{base}/models", key) != 200:
            assert proc.poll() is None, log.read_text()[-2000:]
            assert time.time() < deadline, "the model server did not start in 240 s"
            time.sleep(1)
        yield base, key
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def tokens_predicted(base: str, key: str) -> float:
    """The tokens the server has generated since it started (llama.cpp's /metrics counter
    `llamacpp:tokens_predicted_total`): every completion it answers adds to it."""
    request = urllib.request.Request(base.removesuffix("/v1") + "/metrics", headers={"Authorization": f"Bearer {key}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        text = response.read().decode("utf-8")
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name == "llamacpp:tokens_predicted_total":
            return float(value.split()[0])
    raise AssertionError(f"the model server's /metrics has no llamacpp:tokens_predicted_total: {text[:1000]}")
