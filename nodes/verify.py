"""Step 8: the verdict. By default (verifier=passages) the program's Verify module has the model read the claim with
the best passages whole in one pass, a learned head decides, and each fact of the claim is quoted from what was
read; the other verifiers are chosen in claimhop.steps.verdicts."""

from __future__ import annotations

from langgraph.runtime import Runtime

from claimhop.steps.common import program_for, settings_of
from claimhop.steps.verdicts import verify_claim
from state.context import Context
from state.schema import State


def verify(state: State, runtime: Runtime[Context]) -> dict:
    """Judge the claim on the selected documents with the verifier the settings name (the passages, by default)."""
    ctx = settings_of(runtime)
    return verify_claim(state, ctx, program_for(ctx))
