"""Start `langgraph dev` for this checkout on a free loopback port, offline, and wait until it answers.

Table: none; a tool of the integration tests and of benchmarks.load.

Used by the tests and the server benchmarks; a person runs `langgraph dev` directly (see README). It serves the
checkout's langgraph.json, so it lives in the checkout, not in the installed package."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the checkout's root: its langgraph.json
CONCURRENT_RUNS = 8
OFFLINE_ENV = {"LANGGRAPH_CLI_NO_ANALYTICS": "1", "LANGGRAPH_NO_VERSION_CHECK": "1"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def absolute(spec: str) -> str:
    """"./graph/builder.py:graph" -> "/abs/graph/builder.py:graph"."""
    path, _, attribute = spec.partition(":")
    return str((ROOT / path).resolve()) + (f":{attribute}" if attribute else "")


def absolute_config() -> dict:
    """The project's langgraph.json with every path made absolute, so the server can run in another folder."""
    config = json.loads((ROOT / "langgraph.json").read_text(encoding="utf-8"))
    config["dependencies"] = [absolute(d) for d in config["dependencies"]]
    config["graphs"] = {name: {**spec, "path": absolute(spec["path"])} if isinstance(spec, dict) else absolute(spec)
                        for name, spec in config["graphs"].items()}
    config["http"] = {**config["http"], "app": absolute(config["http"]["app"])}
    if "auth" in config:
        config["auth"] = {**config["auth"], "path": absolute(config["auth"]["path"])}
    return config


def dev_command(port: int, jobs: int, host: str | None = None) -> list[str]:
    """`langgraph dev` on `port`, without a browser or reloads, serving `jobs` runs at once."""
    return [str(Path(sys.executable).parent / "langgraph"), "dev", *(["--host", host] if host else []),
            "--port", str(port), "--no-browser", "--no-reload", "--n-jobs-per-worker", str(jobs),
            "--config", "langgraph.json"]


def server_folder() -> Path:
    """A new working folder holding the project's langgraph.json: langgraph dev keeps its runs and queue in
    ./.langgraph_api and retries runs a killed server left there, so servers sharing a folder would inherit each
    other's unfinished runs."""
    workdir = Path(tempfile.mkdtemp(prefix="claimhop-server-"))
    (workdir / "langgraph.json").write_text(json.dumps(absolute_config()), encoding="utf-8")
    return workdir


def start_refused(host: str, env: dict[str, str], timeout: float = 180.0) -> subprocess.CompletedProcess:
    """Run `langgraph dev --host HOST` expecting it to refuse to start; its exit code and output. A server that
    starts anyway is stopped after `timeout` seconds (exit code None in the result then)."""
    workdir = server_folder()
    try:
        proc = subprocess.Popen(dev_command(free_port(), 1, host), cwd=workdir, env={**OFFLINE_ENV, **env},
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            out, _ = proc.communicate(timeout=timeout)
            return subprocess.CompletedProcess(proc.args, proc.returncode, out)
        except subprocess.TimeoutExpired:
            proc.terminate()
            out, _ = proc.communicate(timeout=30)
            return subprocess.CompletedProcess(proc.args, None, out)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


@contextmanager
def dev_server(log: Path, startup_timeout: float = 600.0, env: dict[str, str] | None = None, jobs: int = CONCURRENT_RUNS):
    """Yields the server's base URL; stops the server on exit. Its output goes to `log`.

    `jobs` runs are served at once (`langgraph dev` alone serves one at a time and queues the rest)."""
    port = free_port()
    # no --host: the tests check that langgraph dev's default binds to loopback only
    cmd = dev_command(port, jobs)
    workdir = server_folder()
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, cwd=workdir, env={**os.environ, **OFFLINE_ENV, **(env or {})},
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
        shutil.rmtree(workdir, ignore_errors=True)
