"""One real `langgraph dev` (offline, free port, loopback) shared by the server and browser tests, so the model
loads once."""

from __future__ import annotations

import pytest

from benchmarks.launch import dev_server


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """Its own empty DSPy cache: the model really runs, whatever earlier runs on this machine cached (the health
    test counts the model's calls)."""
    folder = tmp_path_factory.mktemp("server")
    with dev_server(folder / "langgraph-dev.log", env={"DSPY_CACHEDIR": str(folder / "dspy")}) as url:
        yield url
