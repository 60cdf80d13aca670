"""How long a model call has really been running, so a timeout counts the model's work and not the queue.

The local model serves one call at a time. Under load (8 concurrent runs) a call may wait minutes for its turn
while the model is working fine; counting that wait against `model_timeout_s` would time out healthy calls, and
their retries would queue behind the abandoned calls they replace. So the engine reports when a call starts
waiting and when it gets the model; a waiting call only gives up when the call holding the model has itself run
longer than the timeout (the model is stuck). A model without a queue (a remote API) is timed from the start.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections import deque
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol, Self, TypeVar

T = TypeVar("T")
WATCH_INTERVAL_S = 0.25  # how often a waiting call checks its clock


class ModelQueue(Protocol):
    def holder_running_for(self) -> float | None:
        """Seconds the call now holding the model has been running, or None when it is free."""


@dataclass
class CallWatch:
    """One model call's clock: when its model work began, and the queue it waits in, if any."""

    started_at: float = field(default_factory=time.monotonic)
    queue: ModelQueue | None = None
    cancelled: bool = False  # set by the caller when it gives up; a call still waiting is then not made

    def waiting(self, queue: ModelQueue) -> None:
        self.queue = queue

    def serving(self) -> None:
        self.started_at = time.monotonic()  # first: `overdue` in another thread reads it once `queue` is None
        self.queue = None

    def overdue(self, seconds: float) -> str | None:
        """Why this call should be given up on after `seconds` of model work, or None."""
        if self.queue is not None:
            holder = self.queue.holder_running_for()
            if holder is not None and holder > seconds:
                return f"the model has been busy with another call for {holder:.0f} s (limit {seconds:g} s)"
            return None
        if time.monotonic() - self.started_at > seconds:
            return f"no answer within {seconds:g} s"
        return None


current_watch: ContextVar[CallWatch | None] = ContextVar("claimhop_model_call_watch", default=None)


class CallCancelled(RuntimeError):
    """The caller gave up while waiting for the model, so the call is not made at all."""


class SerialModel:
    """One call at a time, first come first served; tells each caller's CallWatch when it waits and when it is
    served, and drops a waiting call whose caller has given up (it would otherwise run for nobody)."""

    def __init__(self) -> None:
        self._turns = threading.Condition()
        self._queue: deque[object] = deque()
        self._busy = False
        self._holder_since: float | None = None

    def holder_running_for(self) -> float | None:
        since = self._holder_since
        return None if since is None else time.monotonic() - since

    def __enter__(self) -> Self:
        watch = current_watch.get()
        ticket = object()
        with self._turns:
            self._queue.append(ticket)
            if watch is not None:
                watch.waiting(self)
            while self._busy or self._queue[0] is not ticket:
                self._turns.wait(0.25)
                if watch is not None and watch.cancelled:
                    self._queue.remove(ticket)
                    self._turns.notify_all()
                    raise CallCancelled("the caller stopped waiting for the model")
            self._queue.popleft()
            self._busy = True
            self._holder_since = time.monotonic()
        if watch is not None:
            watch.serving()
        return self

    def __exit__(self, *exc) -> None:
        with self._turns:
            self._busy = False
            self._holder_since = None
            self._turns.notify_all()


class ModelTimeout(TimeoutError):
    """A model call gave no answer within `model_timeout_s`."""


def with_timeout(fn: Callable[[], T], seconds: float) -> T:
    """Run `fn` in a worker thread (with this context's settings) and give up after `seconds` of model work.

    Time spent queued behind other runs' calls to the local model does not count (see CallWatch).
    llama.cpp cannot be interrupted mid-call; an abandoned call finishes in the background."""
    box: dict[str, Any] = {}
    done = threading.Event()
    watch = CallWatch()
    context = contextvars.copy_context()
    context.run(current_watch.set, watch)

    def work() -> None:
        try:
            box["value"] = context.run(fn)
        except BaseException as err:  # noqa: BLE001 - handed back to the caller's thread as is
            box["error"] = err
        finally:
            done.set()

    threading.Thread(target=work, name="claimhop-model-call", daemon=True).start()
    while not done.wait(min(seconds, WATCH_INTERVAL_S)):
        reason = watch.overdue(seconds)
        if reason:
            watch.cancelled = True  # if still queued, the call is dropped instead of run for nobody
            raise ModelTimeout(reason)
    if "error" in box:
        raise box["error"]
    return box["value"]
