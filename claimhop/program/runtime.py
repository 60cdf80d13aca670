"""The plumbing every stage and node shares: the run's settings from LangGraph's runtime, progress events, and the
guarded model call (bounded time, retry through LangGraph's RetryPolicy, a deterministic fallback at the end)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

import dspy
from langchain_core.messages import AIMessage
from langgraph.config import get_stream_writer
from langgraph.runtime import get_runtime
from langgraph.types import RetryPolicy

import claimhop.program.client_policy as client_policy  # not `from claimhop.program`: no import loop
from claimhop.lm.adapter import adapter_for
from claimhop.lm.call_watch import with_timeout
from claimhop.lm.provider import get_lm
from claimhop.lm.usage import LEDGER, model_step
from claimhop.redact import client_message
from state.context import Context

log = logging.getLogger("claimhop")
T = TypeVar("T")


def settings_of(runtime: Any) -> Context:
    """The run's settings from LangGraph's runtime (a Context, a dict from the server, or nothing). In a server,
    a client's empty values mean the operator's, and settings a client may not choose (engine, paths outside the
    allowed folders, values over the operator's limits) are refused here too."""
    raw = getattr(runtime, "context", None)
    if client_policy.enforced():
        raw = client_policy.with_operator_values(raw)
        problem = client_policy.client_settings_problem(raw)
        if problem:
            raise ValueError(problem)
    return Context.from_any(raw)


def emit(node: str, **payload: Any) -> None:
    """A typed progress event on the `custom` stream: {"node": ..., "event": ..., ...}."""
    try:
        writer = get_stream_writer()
    except RuntimeError:  # called outside a graph run (unit tests of a stage)
        return
    writer({"node": node, **payload})


def say(node: str, text: str) -> AIMessage:
    """A progress line for chat clients, tagged with the node that wrote it."""
    return AIMessage(content=text, name=node)


class ModelStepFailed(RuntimeError):
    """A model call failed on an attempt that is not the last: the node's RetryPolicy runs it again."""


class EmptyModelOutput(ValueError):
    """The model answered, but with nothing the step can use."""


# Every node that may call the model gets this policy; `model_attempts` (a run setting, at most 5) decides when to stop.
MODEL_RETRY = RetryPolicy(
    initial_interval=0.5, backoff_factor=2.0, max_interval=4.0, max_attempts=5, jitter=False,
    retry_on=ModelStepFailed,
)


# At temperature 0 a retried prompt gets the reply that just failed (from the model, or from DSPy's cache, which
# keys on the prompt); a retry samples instead, under its own rollout id.
RETRY_TEMPERATURE = 0.7


def node_attempt() -> int:
    """This node execution's attempt number (1 on the first run), from LangGraph's runtime."""
    try:
        info = get_runtime().execution_info
    except RuntimeError:  # outside a graph run
        return 1
    return getattr(info, "node_attempt", 1) if info else 1


def calls_made(ctx: Context, node: str, cost_step: str | None = None) -> int:
    """The model calls `call_lm` makes for this step: 1, or 0 when the run switched the step off (its fallback
    answers instead), so a state's `lm_calls` counts only calls that happened."""
    return 0 if {node, cost_step or node} & set(ctx.steps_off()) else 1


def call_lm(
    ctx: Context, node: str, step: Callable[[], T], fallback: Callable[[], T],
    usable: Callable[[T], bool] = lambda _: True, cost_step: str | None = None, direct: bool = False,
) -> tuple[T, str | None]:
    """One DSPy call on the run's LM with JSON-schema output, bounded by `model_timeout_s`.

    A fault (an exception, a timeout, malformed or unusable output, a prompt beyond the context window) on an
    attempt before the last raises ModelStepFailed, so LangGraph's RetryPolicy reruns the node; on the last
    attempt the node's deterministic fallback is used. Returns the result and, when degraded, the reason (so
    the answer can say which steps fell back). The model's use is charged to `cost_step` (default: the node).
    `direct`: the step reaches the model without DSPy (the verifier's state pass, a label's probabilities), so
    DSPy's cache cannot answer it and the engine counts the ask itself; counted here too, every such call would
    show as a cache hit (asked twice, served once).
    """
    attempt = node_attempt()

    def ask() -> T:
        if not direct:
            LEDGER.asked()
        lm = get_lm(ctx.model)
        if attempt > 1:  # a retry after a bad reply: a new sample, not the same reply again from DSPy's cache
            lm = lm.copy(rollout_id=attempt, temperature=RETRY_TEMPERATURE)
        with dspy.context(lm=lm, adapter=adapter_for(ctx.model)):
            result = step()
        if not usable(result):
            raise EmptyModelOutput("the model's answer was empty or unusable")
        return result

    if not calls_made(ctx, node, cost_step):  # measuring the step's worth: its fallback, no model call
        return fallback(), None
    try:
        with model_step(cost_step or node):
            return with_timeout(ask, ctx.model_timeout_s), None
    except Exception as err:
        detail = str(err)
        full = f"{node}: {type(err).__name__}: {detail[:200]}"  # for the log
        # what the run's events, `degraded` and answer say: in a server, without the operator's paths and hosts
        shown = client_message(detail) if client_policy.enforced() else detail
        reason = f"{node}: {type(err).__name__}: {shown[:200]}"
        if attempt < ctx.model_attempts:
            log.warning("LM step failed on attempt %d, retrying: %s", attempt, full)
            emit(node, event="retry", attempt=attempt, reason=reason)
            raise ModelStepFailed(reason) from err
        after = f" (after {attempt} attempt{'s' if attempt > 1 else ''})"
        log.warning("LM step degraded, using fallback: %s", full + after)
        emit(node, event="degraded", reason=reason + after)
        return fallback(), reason + after


def joined(*reasons: str | None) -> str | None:
    """Two steps' reasons for falling back as one ("a; b"), or None when neither fell back."""
    kept = [r for r in reasons if r]
    return "; ".join(kept) if kept else None
