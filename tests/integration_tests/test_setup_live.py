"""`claimhop setup` as a user runs it (README's first command), with the real model files and the bundled corpus,
and the shipped link table against one computed again from the bundled corpus by the code that makes it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from claimhop.cache_root import cache_root

ROOT = Path(__file__).resolve().parents[2]


def test_setup_readies_the_model_the_verifiers_cut_and_the_bundled_indexes():
    done = subprocess.run([sys.executable, "-m", "claimhop.cli.main", "setup"], cwd=ROOT, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    said = done.stderr
    for step in ("the model", "the verifier's reader (the model's first 21 blocks)", "the corpus's indexes",
                 "the corpus's link table", "the plan's fixed prompt"):
        done_line = said.split(step, 1)[1].splitlines()[0]
        assert f"{step}" in said and ("ready (" in done_line or "1 kept (" in done_line), said
    assert "set up" in said.splitlines()[-1]


# a check's plan (default settings, worked examples included), alone, in a fresh process: how many of its calls
# restored a kept state, its prompt tokens and how many of them llama.cpp found cached
FIRST_PLAN = """
from claimhop.cli.main import preflight
from claimhop.lm.provider import local_engine
from claimhop.lm.usage import LEDGER
from claimhop.program import stages_for

plan = stages_for(preflight({})).plan(claim="Steve Augeri and Cherie Currie were both American.")
used = LEDGER.snapshot()["plan"]
print(local_engine().states.restored, used["prompt_tokens"], used["cached_tokens"], len(plan.sub_questions))
"""


def test_after_setup_the_first_checks_plan_reads_only_the_claim(tmp_path):
    """README's first command runs `claimhop setup`, then a check: the check's plan (its first model call, in a new
    process) finds its instructions' state kept by setup instead of reading them again (~6 s here)."""
    shutil.rmtree(cache_root() / "prompt-states", ignore_errors=True)  # setup, not an earlier check, must keep it
    done = subprocess.run([sys.executable, "-m", "claimhop.cli.main", "setup"], cwd=ROOT, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    env = {**os.environ, "DSPY_CACHEDIR": str(tmp_path / "dspy")}  # the model really answers
    plan = subprocess.run([sys.executable, "-c", FIRST_PLAN], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, env=env)
    assert plan.returncode == 0, plan.stderr[-2000:]
    restored, prompt, cached, facts = (int(x) for x in plan.stdout.split()[-4:])
    assert restored == 1 and facts >= 1, plan.stdout
    assert cached >= 0.7 * prompt, plan.stdout  # the claim and its JSON turn are all that is read


def test_the_shipped_link_table_is_what_the_code_computes_from_the_bundled_corpus():
    done = subprocess.run([sys.executable, "-m", "benchmarks.shipped_links", "--check"], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0 and "the same" in done.stdout, done.stdout[-500:] + done.stderr[-500:]
