"""`claimhop setup` as a user runs it (README's first command), with the real model files and the bundled corpus,
and the shipped link table against one computed again from the bundled corpus by the code that makes it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_setup_readies_the_model_the_verifiers_cut_and_the_bundled_indexes():
    done = subprocess.run([sys.executable, "-m", "claimhop.cli.main", "setup"], cwd=ROOT, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    said = done.stderr
    for step in ("the model", "the verifier's reader (the model's first 21 blocks)", "the corpus's indexes",
                 "the corpus's link table"):
        assert f"{step}" in said and "ready (" in said.split(step, 1)[1].splitlines()[0], said
    assert "set up" in said.splitlines()[-1]


def test_the_shipped_link_table_is_what_the_code_computes_from_the_bundled_corpus():
    done = subprocess.run([sys.executable, "-m", "benchmarks.shipped_links", "--check"], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0 and "the same" in done.stdout, done.stdout[-500:] + done.stderr[-500:]
