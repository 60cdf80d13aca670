"""One real `langgraph dev` (offline, free port, loopback) shared by the server and browser tests, so the model
loads once."""

from __future__ import annotations

import pytest

from server.launch import dev_server


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    with dev_server(tmp_path_factory.mktemp("server") / "langgraph-dev.log") as url:
        yield url
