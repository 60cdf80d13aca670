"""claimhop's DSPy program: one module per stage (plan, search, bridge, gap round, later links, select, verify,
explain, follow-up), each built from the run's settings, each `forward` the whole algorithm of its stage (model
calls and the logic around them) returning a typed result; the graph's nodes turn results into state updates
and progress events. Every prompt is a signature in claimhop.signatures. One JSON file saves or loads an optimised
version of the predictors (`claimhop optimize`); graph/program.py runs the whole graph on a program."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

import dspy

from claimhop.cache_root import cache_root
from claimhop.program.bridge.stage import Bridge
from claimhop.program.built import Built
from claimhop.program.choices import BRIDGES, EARLY_GAPS, PLANNERS, VERIFIERS
from claimhop.program.explain import Explain
from claimhop.program.follow_up import FollowUp
from claimhop.program.gap import GapRound
from claimhop.program.later_links import LaterLinks
from claimhop.program.search.stage import Search
from claimhop.program.select.stage import Select
from claimhop.program.verify.facts import PlanSplit, SplitsClaims
from claimhop.program.verify.head import head_version
from claimhop.signatures import Relevant
from state.context import Context

__all__ = ["Stages", "stages_for", "running", "load_saved", "optimized_program", "program_file"]


def optimized_program() -> Path:
    """Where `claimhop optimize` saves the program and runs find it: claimhop's folder (CLAIMHOP_HOME), never
    the installed package."""
    return cache_root() / "optimized" / "claimhop_program.json"


class Stages(dspy.Module):
    """The stages of one run's settings, in the order a claim meets them (graph/builder.py wires them to its nodes
    and decides when each runs). The search engine and link table are built once, at first use, and shared."""

    def __init__(self, settings: Context | None = None) -> None:
        super().__init__()
        settings = settings or Context()
        self.settings = settings
        self.relevant = dspy.Predict(Relevant)  # reranker=lm with a model other than the local one
        self.built = Built(settings, self.relevant)
        self.search = Search(settings, self.built)  # nodes search_claim, dual_retrieval
        self.plan = PLANNERS[settings.planner](settings)  # node decompose
        self.early_gap = EARLY_GAPS[settings.planner](settings)  # node early_gap
        self.bridge: Bridge = BRIDGES[settings.bridge_pick](settings, self.built)  # nodes extract_entities, bridge
        self.gap = GapRound(settings, self.built)  # node gap_loop
        self.links = LaterLinks(settings, self.built)  # node later_links
        self.select = Select(settings, self.built)  # node select_documents
        self.verify = VERIFIERS[settings.verifier](settings)  # node verify
        if isinstance(self.verify, SplitsClaims) and settings.planner == "facts":
            self.verify.plan_split = PlanSplit(self.plan.facts)  # a failed plan's facts from the plan's own predictor
        self.explain = Explain(settings, from_facts=self.verify.gives_facts)  # node mitigate
        self.follow_up = FollowUp(settings, self.built)  # node follow_up

    def fact_splitter(self) -> SplitsClaims:
        """What splits a claim into facts under these settings (the eval of the fact verifiers asks it directly):
        the verifier's own split, the plan's predictor under planner=facts."""
        if isinstance(self.verify, SplitsClaims):
            return self.verify
        splitter = SplitsClaims(self.settings)
        if self.settings.planner == "facts":
            splitter.plan_split = PlanSplit(self.plan.facts)
        return splitter


# where each predictor of a program saved by an older version lives now
RENAMED = {
    "plan_facts": "plan.facts", "plan": "plan.one_call", "decompose": "plan.decompose", "early_gap": "early_gap.predict",
    "bridge": "bridge.predict", "gap": "gap.predict", "verify.predict": "verify.single.predict",
    "explain": "explain.predict", "follow_up": "follow_up.predict", "split_claim": "verify.split",
    "split_claim_with_names": "verify.split_with_names", "judge_pair": "verify.judge_pair",
    "answer_from_evidence": "verify.answer_from_evidence",
}


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


def load_saved(program: dspy.Module, path: Path) -> None:
    """A saved program's predictors into `program`. A predictor the file does not have (added after it was
    saved, or of a stage another setting picks) keeps its unoptimised state instead of failing the load; a file
    saved before the step modules loads by the old names."""
    saved = json.loads(path.read_text(encoding="utf-8"))
    state = {RENAMED.get(name, name): value for name, value in saved.items()}
    for name, predictor in program.named_predictors():
        if name in state:
            predictor.load_state(state[name])


_BUILT: OrderedDict[tuple, Stages] = OrderedDict()
_LOCK = threading.Lock()
KEPT_PROGRAMS = 16  # settings a process keeps built (a server whose clients choose settings sees a few)
_RUNNING: ContextVar[Stages | None] = ContextVar("claimhop_running_program", default=None)


@contextmanager
def running(program: Stages) -> Iterator[Stages]:
    """Within it the graph's nodes use `program`: graph/program.py runs the graph on the program an optimiser is
    compiling, so what is compiled is what runs."""
    token = _RUNNING.set(program)
    try:
        yield program
    finally:
        _RUNNING.reset(token)


def stages_for(ctx: Context) -> Stages:
    """The run's stages: the program being run (`running`), else the one built for these settings and the
    optimised program they name (one per process; rebuilt when a collection index the run reads has a new version or
    the verifier's head file is retrained: the verify stage loads its head once, when built)."""
    current = _RUNNING.get()
    if current is not None:
        return current
    path = program_file(ctx.use_optimized_program, ctx.program_path)
    key = (repr(ctx), str(path.resolve()) if path else "", collection_version(ctx),
           head_version(ctx.corpus_path, ctx.index_dir))
    with _LOCK:
        if key in _BUILT:
            _BUILT.move_to_end(key)
            return _BUILT[key]
        program = Stages(ctx)
        if path is not None:
            load_saved(program, path)
        _BUILT[key] = program
        while len(_BUILT) > KEPT_PROGRAMS:
            _BUILT.popitem(last=False)
        return program


def collection_version(ctx: Context) -> str:
    """The current version of the user's collection index a run reads ('' for a plain corpus): an update made by
    `claimhop index PATH` is served from the next claim on."""
    if not (ctx.corpus_path or ctx.index_dir) or ctx.retriever:
        return ""
    from claimhop.retrieval.collection import resolve

    found = resolve(ctx.corpus_path, ctx.index_dir)
    return str(found[1]) if found else ""
