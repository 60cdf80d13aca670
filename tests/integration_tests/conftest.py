"""Servers shared by the integration tests: one real `langgraph dev` (offline, free port, loopback) for the server
and browser tests, so the model loads once; and `claimhop serve-model` for the tests that run claimhop on a
model server, once per test module that asks for it."""

from __future__ import annotations

import pytest
from served_model import serve_model

from benchmarks.launch import dev_server


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """Its own empty DSPy cache: the model really runs, whatever earlier runs on this machine cached (the health
    test counts the model's calls)."""
    folder = tmp_path_factory.mktemp("server")
    with dev_server(folder / "langgraph-dev.log", env={"DSPY_CACHEDIR": str(folder / "dspy")}) as url:
        yield url


@pytest.fixture(scope="module")
def model_server(tmp_path_factory):
    """`claimhop serve-model --parallel 2` on a free loopback port with a key: (its OPENAI_API_BASE, the key)."""
    with serve_model(tmp_path_factory.mktemp("model-server")) as served:
        yield served
