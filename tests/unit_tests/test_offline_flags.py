"""No run reaches past the package registries: claimhop sets the offline switches of the libraries it loads in code
(claimhop.retrieval.offline), so a user's machine without a network, or with one, never sees a library try."""

from __future__ import annotations

import os
import subprocess
import sys


def test_litellm_never_tries_to_fetch_its_price_list_once_claimhop_is_loaded():
    """A served model (`--model openai/...`) goes through LiteLLM, which on import fetches a price list from GitHub
    unless told not to (and warns here, where it cannot)."""
    env = {k: v for k, v in os.environ.items() if k != "LITELLM_LOCAL_MODEL_COST_MAP"}
    done = subprocess.run([sys.executable, "-c", "import claimhop.cli.main, litellm"], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "model cost map" not in done.stderr, done.stderr[-2000:]
