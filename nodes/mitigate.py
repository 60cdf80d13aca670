"""Step 9: the final answer: verdict, a short explanation with [n] citations, and the checked reference list
(claimhop/program/explain.py)."""

from __future__ import annotations

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from claimhop.program import stages_for
from claimhop.program.runtime import emit, settings_of
from state.context import Context
from state.schema import State


def mitigate(state: State, runtime: Runtime[Context]) -> dict:
    """Write the answer: verdict, explanation with only valid [n] citations, fact lines and references."""
    out = stages_for(settings_of(runtime)).explain(
        claim=state["claim"], verdict=state.get("verdict"), confidence=state.get("confidence"),
        reason=state.get("verdict_reason"), facts=state.get("facts"), evidence=state.get("evidence", []),
        selected=state.get("selected", []), degraded=state.get("degraded", []),
        ignored=state.get("ignored_instructions"))
    emit("mitigate", event="answer", answer=out.text, verdict=state.get("verdict") or "INSUFFICIENT_INFO", model=out.model)
    update = {"answer": out.text, "model": out.model, "messages": [AIMessage(content=out.text, name="mitigate")]}
    if out.calls is not None:
        update.update(lm_calls=out.calls, degraded=[out.degraded] if out.degraded else [])
    return update
