"""claimhop's DSPy program: one module per reasoning step (planning, hops, verifying, answering), each declaring
its predictors and reading as the default algorithm in `forward`; every prompt is a signature in
claimhop.signatures. One JSON file saves or loads an optimised version of all of them (`claimhop optimize`)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import dspy

from claimhop.cache_root import cache_root
from claimhop.program.answering import Explain, FollowUp
from claimhop.program.hops import GapRound, PickBridges
from claimhop.program.planning import EarlyGap, Plan
from claimhop.program.verifying import Verify
from claimhop.signatures import Relevant

__all__ = ["ClaimHopProgram", "get_program", "load_saved", "optimized_program", "program_file"]


def optimized_program() -> Path:
    """Where `claimhop optimize` saves the program and runs find it: claimhop's folder (CLAIMHOP_HOME), never
    the installed package."""
    return cache_root() / "optimized" / "claimhop_program.json"


class ClaimHopProgram(dspy.Module):
    """claimhop's reasoning steps, one module each, in the order a claim meets them (the graph, graph/builder.py,
    wires them to its nodes and decides when each runs; docs/development.md maps node -> module -> signatures)."""

    def __init__(self) -> None:
        super().__init__()
        self.plan = Plan()  # node decompose
        self.early_gap = EarlyGap()  # node early_gap, planner=two_calls
        self.bridge = PickBridges()  # node bridge, bridge_pick=lm
        self.gap = GapRound()  # node gap_loop
        self.verify = Verify()  # node verify
        self.explain = Explain()  # node mitigate, verifier=single
        self.follow_up = FollowUp()  # node follow_up
        self.relevant = dspy.Predict(Relevant)  # reranker=lm with a model other than the local one


# where each predictor of a program saved before the step modules lives now
RENAMED = {
    "plan_facts": "plan.facts", "plan": "plan.one_call", "decompose": "plan.decompose", "early_gap": "early_gap.predict",
    "bridge": "bridge.predict", "gap": "gap.predict", "verify.predict": "verify.single.predict",
    "explain": "explain.predict", "follow_up": "follow_up.predict", "split_claim": "verify.split",
    "split_claim_with_names": "verify.split_with_names", "judge_pair": "verify.judge_pair",
    "answer_from_evidence": "verify.answer_from_evidence",
}


_PROGRAMS: dict[str | None, ClaimHopProgram] = {}
_LOCK = threading.Lock()


def program_file(use_optimized: bool = True, program_path: str = "") -> Path | None:
    """The optimised program a run loads: `program_path` when given (it must exist: a typo must not silently
    run the unoptimised program), else the one `claimhop optimize` saved in claimhop's folder; None when turned off."""
    if not use_optimized:
        return None
    if not program_path:
        saved = optimized_program()
        return saved if saved.is_file() else None
    path = Path(program_path).expanduser()
    if path.suffix != ".json":
        raise ValueError(f"setting program_path: a program is read only from JSON (a .pkl can run code): {path}")
    if not path.is_file():
        raise ValueError(f"setting program_path: no program at {path} (save one with `claimhop optimize --out {path}`)")
    return path


def load_saved(program: ClaimHopProgram, path: Path) -> None:
    """A saved program's predictors into `program`. A predictor the file does not have (added after it was
    saved) keeps its unoptimised state instead of failing the load; a file saved before the step modules loads by the old names."""
    saved = json.loads(path.read_text(encoding="utf-8"))
    state = {RENAMED.get(name, name): value for name, value in saved.items()}
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
