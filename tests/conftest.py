"""Shared fixtures: a small real corpus with real indexes in a temporary CLAIMHOP_HOME."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

SMALL_CORPUS = [
    {"title": "Steve Augeri", "text": "Steve Augeri (born January 30, 1959) is an American rock singer, best known as the lead vocalist for Journey from 1998 to 2006."},
    {"title": "Foxes (soundtrack)", "text": "Foxes is the soundtrack to the 1980 film Foxes, starring Jodie Foster and Cherie Currie, the former lead singer of The Runaways."},
    {"title": "Cherie Currie", "text": "Cherie Currie (born November 30, 1959) is an American singer, musician, and actress. She was the lead singer of The Runaways."},
    {"title": "The Runaways", "text": "The Runaways were an American all-female rock band that recorded and performed in the second half of the 1970s."},
    {"title": "Journey (band)", "text": "Journey is an American rock band that formed in San Francisco in 1973."},
    {"title": "Jodie Foster", "text": "Alicia Christian Foster, known professionally as Jodie Foster, is an American actress and director."},
    {"title": "Foxes", "text": "Foxes are small to medium-sized, omnivorous mammals belonging to several genera of the family Canidae."},
    {"title": "San Francisco", "text": "San Francisco is a city in the U.S. state of California."},
]


@pytest.fixture(scope="session")
def small_corpus(tmp_path_factory) -> Path:
    """Indexes are keyed by the corpus's content hash, so this never collides with a user's own indexes."""
    path = tmp_path_factory.mktemp("corpus") / "small.jsonl"
    path.write_text("\n".join(json.dumps(row) for row in SMALL_CORPUS) + "\n", encoding="utf-8")
    return path
