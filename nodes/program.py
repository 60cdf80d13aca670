"""All of claimhop's reasoning steps as one DSPy program, so one JSON file saves or loads an optimised version."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import dspy

from nodes.signatures import (
    AnswerFollowUp,
    DecomposeClaim,
    EarlyGapAnalysis,
    ExplainVerdict,
    GapAnalysis,
    PickBridgingEntities,
    PlanClaim,
    PlanClaimAsFacts,
    SplitClaim,
    SplitClaimWithNames,
    VerifyClaim,
)

OPTIMIZED_PROGRAM = Path(__file__).resolve().parent.parent / "optimized" / "claimhop_program.json"


class ClaimHopProgram(dspy.Module):
    """The predictors the nodes call; the graph (not this module) decides the order."""

    def __init__(self) -> None:
        super().__init__()
        self.plan = dspy.Predict(PlanClaim)  # decompose + early gap in one call (planner=one_call)
        self.plan_facts = dspy.Predict(PlanClaimAsFacts)  # decompose + early gap + claim split (planner=facts)
        self.decompose = dspy.Predict(DecomposeClaim)
        self.early_gap = dspy.Predict(EarlyGapAnalysis)
        self.bridge = dspy.Predict(PickBridgingEntities)
        self.gap = dspy.Predict(GapAnalysis)
        self.verify = dspy.ChainOfThought(VerifyClaim)  # reasoning first: measured 4/5 vs 1/5 labels right
        self.explain = dspy.Predict(ExplainVerdict)
        self.follow_up = dspy.Predict(AnswerFollowUp)
        self.split_claim = dspy.Predict(SplitClaim)
        self.split_claim_with_names = dspy.Predict(SplitClaimWithNames)  # fact_names=asked


_PROGRAMS: dict[str | None, ClaimHopProgram] = {}
_LOCK = threading.Lock()


def program_file(use_optimized: bool = True, program_path: str = "") -> Path | None:
    """The optimised program a run loads: `program_path` when given (it must exist: a typo must not silently
    run the unoptimised program), else optimized/claimhop_program.json when saved; None when turned off."""
    if not use_optimized:
        return None
    if not program_path:
        return OPTIMIZED_PROGRAM if OPTIMIZED_PROGRAM.is_file() else None
    path = Path(program_path).expanduser()
    if path.suffix != ".json":
        raise ValueError(f"setting program_path: a program is read only from JSON (a .pkl can run code): {path}")
    if not path.is_file():
        raise ValueError(f"setting program_path: no program at {path} (save one with `claimhop optimize --out {path}`)")
    return path


def load_saved(program: ClaimHopProgram, path: Path) -> None:
    """A saved program's predictors into `program`. A predictor the file does not have (added after it was
    saved, such as `plan`) keeps its unoptimised state instead of failing the load."""
    state = json.loads(path.read_text(encoding="utf-8"))
    for name, predictor in program.named_predictors():
        if name in state:
            predictor.load_state(state[name])


def get_program(path: Path | None = None) -> ClaimHopProgram:
    """One program per process and file: the one `program_file` chose (checked there), else the unoptimised one."""
    key = str(path.resolve()) if path is not None else None
    with _LOCK:
        if key not in _PROGRAMS:
            program = ClaimHopProgram()
            if key is not None:
                load_saved(program, Path(key))
            _PROGRAMS[key] = program
        return _PROGRAMS[key]
