"""Typed state, input/output schemas and run settings of the claimhop graph."""

from state.context import MAX_CLAIM_CHARS, Context
from state.schema import (
    Candidate,
    Evidence,
    Hop,
    InputState,
    OutputState,
    SelectedDoc,
    State,
    Verdict,
)

__all__ = [
    "MAX_CLAIM_CHARS", "Candidate", "Context", "Evidence", "Hop", "InputState", "OutputState",
    "SelectedDoc", "State", "Verdict",
]
