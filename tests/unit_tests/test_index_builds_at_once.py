"""Processes that open the same missing index at once (Ray workers on one machine, two `claimhop check`s): one
builds it, the others wait and load it; none fails on another's half-written files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OPEN = """
import json, sys
from claimhop.retrieval.corpus import load_corpus
from claimhop.retrieval.index_store import open_indexes
indexes = open_indexes(load_corpus(sys.argv[1]), folder=__import__("pathlib").Path(sys.argv[2]))
print(json.dumps({"count": indexes.manifest["count"], "built": indexes.manifest["build_seconds"]}))
"""


def test_three_processes_opening_a_missing_index_at_once_all_get_it(small_corpus, tmp_path):
    env = {**os.environ, "CLAIMHOP_HOME": str(tmp_path / "home")}
    folder = tmp_path / "index"
    runs = [subprocess.Popen([sys.executable, "-c", OPEN, str(small_corpus), str(folder)], cwd=ROOT, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    results = [run.communicate(timeout=600) for run in runs]
    assert all(run.returncode == 0 for run in runs), [err[-800:] for _, err in results]
    opened = [json.loads(out.strip().splitlines()[-1]) for out, _ in results]
    assert len({o["count"] for o in opened}) == 1 and opened[0]["count"] > 0
    assert len({o["built"] for o in opened}) == 1  # one build, loaded by the others (each build times itself)
