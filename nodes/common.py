"""What every node needs: its settings, the shared LM and program, progress events, and a guarded LM call."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

import dspy
from langchain_core.messages import AIMessage
from langgraph.config import get_stream_writer

from lm.provider import get_lm
from nodes.program import ClaimHopProgram, get_program
from retrieval.service import Retriever, get_retriever
from state.context import Context

log = logging.getLogger("claimhop")
T = TypeVar("T")


def settings_of(runtime: Any) -> Context:
    """The run's settings from LangGraph's runtime (a Context, a dict from the server, or nothing)."""
    return Context.from_any(getattr(runtime, "context", None))


def retriever_for(ctx: Context) -> Retriever:
    return get_retriever(ctx.corpus_path or None)


def program_for(ctx: Context) -> ClaimHopProgram:
    return get_program(ctx.use_optimized_program)


def emit(node: str, **payload: Any) -> None:
    """A typed progress event on the `custom` stream: {"node": ..., "event": ..., ...}."""
    try:
        writer = get_stream_writer()
    except RuntimeError:  # called outside a graph run (unit tests of a node's helpers)
        return
    writer({"node": node, **payload})


def say(node: str, text: str) -> AIMessage:
    """A progress line for chat clients, tagged with the node that wrote it."""
    return AIMessage(content=text, name=node)


def call_lm(ctx: Context, node: str, step: Callable[[], T], fallback: Callable[[], T]) -> tuple[T, str | None]:
    """Run one DSPy call on the run's LM with JSON-schema output; on failure use the node's fallback.

    Returns the result and, when degraded, the reason (so the answer can say which steps fell back).
    """
    try:
        with dspy.context(lm=get_lm(ctx.model), adapter=dspy.JSONAdapter()):
            return step(), None
    except Exception as err:  # noqa: BLE001 - a model fault must not end the run: the node has a deterministic fallback
        reason = f"{node}: {type(err).__name__}: {str(err)[:200]}"
        log.warning("LM step degraded, using fallback: %s", reason)
        emit(node, event="degraded", reason=reason)
        return fallback(), reason


def clean_list(items: Any, limit: int) -> list[str]:
    """LM list output -> distinct non-empty strings, at most `limit`."""
    out: list[str] = []
    for item in items or []:
        text = " ".join(str(item).split())
        if text and text.casefold() not in {o.casefold() for o in out}:
            out.append(text)
    return out[:limit]
