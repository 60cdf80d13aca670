"""Start `langgraph dev` for this project on a free loopback port, offline, and wait until it answers.

Used by the tests and the latency benchmark; a person runs `langgraph dev` directly (see README)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONCURRENT_RUNS = 8
OFFLINE_ENV = {"LANGGRAPH_CLI_NO_ANALYTICS": "1", "LANGGRAPH_NO_VERSION_CHECK": "1"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def dev_server(log: Path, startup_timeout: float = 180.0, env: dict[str, str] | None = None, jobs: int = CONCURRENT_RUNS):
    """Yields the server's base URL; stops the server on exit. Its output goes to `log`.

    `jobs` runs are served at once (`langgraph dev` alone serves one at a time and queues the rest)."""
    port = free_port()
    # no --host: the tests check that langgraph dev's default binds to loopback only
    cmd = [str(Path(sys.executable).parent / "langgraph"), "dev", "--port", str(port),
           "--no-browser", "--no-reload", "--n-jobs-per-worker", str(jobs), "--config", str(ROOT / "langgraph.json")]
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env={**os.environ, **OFFLINE_ENV, **(env or {})},
                                stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + startup_timeout
        while True:
            try:
                with urllib.request.urlopen(f"{url}/ok", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                if proc.poll() is not None:
                    raise RuntimeError(f"langgraph dev exited: {log.read_text()[-2000:]}") from None
                if time.time() > deadline:
                    raise RuntimeError(f"langgraph dev did not start: {log.read_text()[-2000:]}") from None
                time.sleep(1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
