"""What each graph step costs the model: calls, prompt and output tokens (apart), prompt tokens llama.cpp served
from its prompt cache, and seconds of model work. The step is whatever `model_step(name)` set around the call
(a context variable, so it follows a call into the worker thread that runs it); the ledger sums per step for
the whole process, and a run's share is the difference of two snapshots (`usage_between`).

DSPy's own response cache answers some calls without reaching the engine: `asked` counts the calls a step
made and `calls` those the model served, so `asked - calls` is the number of cache hits.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

FIELDS = ("asked", "calls", "prompt_tokens", "output_tokens", "cached_tokens", "seconds")
Usage = dict[str, dict[str, float]]

current_step: ContextVar[str] = ContextVar("claimhop_model_step", default="other")


@contextmanager
def model_step(name: str) -> Iterator[None]:
    """Charge the model calls made inside this block to step `name`."""
    token = current_step.set(name)
    try:
        yield
    finally:
        current_step.reset(token)


class UsageLedger:
    """Thread-safe running totals per step."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._totals: Usage = {}

    def _row(self, step: str) -> dict[str, float]:
        return self._totals.setdefault(step, dict.fromkeys(FIELDS, 0))

    def asked(self, step: str | None = None) -> None:
        """A step asked for a model answer (served by the model or by DSPy's cache)."""
        with self._lock:
            self._row(step or current_step.get())["asked"] += 1

    def record(self, prompt: int, output: int, cached: int, seconds: float, step: str | None = None,
               asked: bool = False) -> None:
        """One call the model served (with `asked`, for callers that bypass DSPy and so never hit its cache)."""
        with self._lock:
            row = self._row(step or current_step.get())
            row["calls"] += 1
            row["asked"] += 1 if asked else 0
            row["prompt_tokens"] += prompt
            row["output_tokens"] += output
            row["cached_tokens"] += cached
            row["seconds"] += seconds

    def snapshot(self) -> Usage:
        with self._lock:
            return {step: dict(row) for step, row in self._totals.items()}


LEDGER = UsageLedger()


def usage_between(before: Usage, after: Usage) -> Usage:
    """Per-step use between two snapshots; steps with no use are left out; seconds rounded to ms."""
    out: Usage = {}
    for step, row in after.items():
        old = before.get(step, {})
        diff = {f: row[f] - old.get(f, 0) for f in FIELDS}
        if any(diff.values()):
            diff["seconds"] = round(diff["seconds"], 3)
            out[step] = diff
    return out
