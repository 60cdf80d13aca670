"""Conditional edges: when the gap loop runs, and when it stops."""

from __future__ import annotations

from typing import Literal

from langgraph.runtime import Runtime

from claimhop.entities.coverage import uncovered_entities
from claimhop.program.gap import found_so_far
from state.context import Context
from state.schema import State


def route_after_intake(state: State) -> Literal["search_claim", "follow_up"]:
    """A follow-up question is answered from the thread's earlier check; anything else is a new check."""
    return "follow_up" if state.get("turn") == "follow_up" else "search_claim"


def route_after_bridge(state: State, runtime: Runtime[Context]) -> Literal["gap_loop", "later_links"]:
    """Enter the gap loop unless it is turned off (max_iterations = 0) or, with gap_loop_when=uncovered, every
    name the claim gives already has a document about it or naming it (nothing for the loop's model call to find)."""
    ctx = Context.from_any(runtime.context)
    if ctx.max_iterations == 0:
        return "later_links"
    if ctx.gap_loop_when == "uncovered":
        documents = state.get("candidates", {}).values()
        if not uncovered_entities(state.get("claim_entities", []), documents):
            return "later_links"
    return "gap_loop"


def route_after_gap_loop(state: State, runtime: Runtime[Context]) -> Literal["gap_loop", "later_links"]:
    """Loop again only while rounds remain, the analysis says something is missing, and the last round found
    at least one new document that changes what the next round would be shown (the same documents make the same
    prompt, whose greedy answer repeats queries already asked); otherwise go on to the later links and selection."""
    ctx = Context.from_any(runtime.context)
    if state.get("iteration", 0) >= ctx.max_iterations:
        return "later_links"
    if state.get("gap_complete") or state.get("new_last_round", 0) == 0:
        return "later_links"
    if found_so_far(state.get("candidates", {})) == state.get("gap_shown"):
        return "later_links"
    return "gap_loop"
