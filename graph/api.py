"""The one-call Python entry: check a claim, get the typed result."""

from __future__ import annotations

from typing import Any

from graph.builder import graph
from state.context import Context
from state.schema import OutputState
from state.validation import validate_claim


def check_claim(claim: str, **settings: Any) -> OutputState:
    """Run the whole graph on `claim`; keyword arguments are Context settings (e.g. max_iterations=1).

    Raises ValueError for an empty, non-string or over-long claim, or an unknown or out-of-range setting.
    """
    claim = validate_claim(claim)
    ctx = Context.from_any(settings)
    return graph.invoke({"claim": claim}, context=ctx)
