"""Two native libraries that abort the process when loaded in the wrong order (Kuzu, then xllamacpp): whatever a
process imports first, the project's own entry points must leave it able to load both."""

from __future__ import annotations

import subprocess
import sys

import pytest

ORDERS = {
    "graph first": "from claimhop.retrieval.entity_graph import require_kuzu; require_kuzu(); import claimhop.lm",
    "model first": "import claimhop.lm; from claimhop.retrieval.entity_graph import require_kuzu; require_kuzu()",
}


@pytest.mark.parametrize("order", sorted(ORDERS))
def test_the_entity_graph_and_the_local_model_load_in_one_process_in_either_order(order):
    code = ORDERS[order] + "; import xllamacpp, kuzu; kuzu.Database(':memory:'); print('both loaded')"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0 and "both loaded" in result.stdout, result.stderr[-2000:]
