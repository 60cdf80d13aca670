"""The one-call Python entry: check a claim, get the typed result."""

from __future__ import annotations

import os
from typing import Any

from graph.builder import graph
from graph.durable import CHECKPOINTS_ENV, shared_checks
from state.context import Context
from state.schema import OutputState
from state.validation import validate_claim


def check_claim(claim: str, thread_id: str | None = None, **settings: Any) -> OutputState:
    """Run the whole graph on `claim`; keyword arguments are Context settings (e.g. max_iterations=1).

    With CLAIMHOP_CHECKPOINTS set (a SQLite path or a postgresql:// URL), or a `thread_id` given, the run is
    checkpointed node by node on that thread (by default one named by the claim and the verdict fingerprint,
    `claimhop.program.fingerprint`): a call that was killed resumes where it stopped when made again, on any machine
    sharing the checkpoints, and a finished one is read back. A thread named by `thread_id` records the fingerprint
    too: when it changed since the thread's check (an upgrade, another setting, model, head, corpus or index), the
    claim is checked afresh on that thread and a warning on the `claimhop` logger says so, as a thread holding
    another claim gets a fresh check of the one given.

    Raises ValueError for an empty, non-string or over-long claim, or an unknown or out-of-range setting.
    """
    claim = validate_claim(claim)
    ctx = Context.from_any(settings)
    if thread_id is None and not os.environ.get(CHECKPOINTS_ENV):
        return graph.invoke({"claim": claim}, context=ctx)
    checks = shared_checks()
    if thread_id is None:
        return checks.run_claim("", claim, settings, ctx)
    from claimhop.program.fingerprint import verdict_fingerprint

    return checks.run(claim, checks.start(settings, thread_id), ctx, fingerprint=verdict_fingerprint(ctx))
