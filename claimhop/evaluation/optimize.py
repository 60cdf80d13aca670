"""`claimhop optimize`: compile the graph's retrieval-planning DSPy steps (decompose, early gap analysis) with
BootstrapFewShot against retrieval recall on HotpotQA questions that share no claim with the HoVer dev set,
and save the whole program as JSON, which the graph loads at start.

Why those two steps: they write every query of the first two hops, which is where the gold documents are
found or lost; the metric needs no LM judge, so a trace can be scored exactly. The LM's responses are cached
on disk (DSPy's cache), so an interrupted run redone with the same options replays finished calls for free."""

from __future__ import annotations

import gzip
import json
import random
import time
from pathlib import Path

import dspy
from dspy.teleprompt import BootstrapFewShot
from tqdm import tqdm

from claimhop.atomic import atomic_path, write_json
from claimhop.data import bundled
from claimhop.evaluation.metric import all_gold_in
from claimhop.lm.adapter import adapter_for
from claimhop.program import ClaimHopProgram, optimized_program
from claimhop.program.planning import EarlyGap, Plan
from claimhop.steps.common import retriever_for
from claimhop.steps.search import dual_phase_search
from state.context import Context

TRAIN_QUESTIONS = bundled("hotpotqa_questions_dev.jsonl.gz")


def training_examples(limit: int, seed: int, path: Path = TRAIN_QUESTIONS) -> list[dspy.Example]:
    """A seeded sample of HotpotQA questions (inputs as `claim`), with their gold titles."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    rows = random.Random(seed).sample(rows, min(limit, len(rows)))
    return [
        dspy.Example(claim=r["question"], supporting_titles=r["supporting_titles"], uid=r["uid"]).with_inputs("claim")
        for r in rows
    ]


# the program's predictors each planner calls, which are the ones compiled
OPTIMIZED_STEPS = {"facts": ["plan.facts"], "one_call": ["plan.one_call"],
                   "two_calls": ["plan.decompose", "early_gap.predict"]}


class RetrievalPlanner(dspy.Module):
    """The graph's first two hops as one DSPy module: the program's Plan (and, with planner=two_calls, EarlyGap)
    with the run's settings, then dual-phase retrieval: the calls the decompose, early_gap and dual_retrieval
    nodes make, so what is compiled is what the graph runs. A failed planning call takes the step's fallback,
    as the graph's last attempt does."""

    def __init__(self, ctx: Context) -> None:
        super().__init__()
        self.plan, self.early_gap, self.ctx = Plan(), EarlyGap(), ctx

    def forward(self, claim: str) -> dspy.Prediction:
        ctx = self.ctx
        try:
            plan = self.plan(claim=claim, planner=ctx.planner, max_sub_questions=ctx.max_sub_questions,
                             max_gap_queries=ctx.tuning.max_gap_queries)
        except Exception:  # noqa: BLE001 - any model fault: the graph would fall back the same way
            plan = Plan.fallback(claim, ctx.planner)
        if not plan.sub_questions:  # what the graph's guarded call counts as unusable
            plan = Plan.fallback(claim, ctx.planner)
        if plan.gap is not None:
            queries = plan.gap["queries"]
        else:
            try:
                queries = self.early_gap(claim=claim, max_gap_queries=ctx.tuning.max_gap_queries).queries
            except Exception:  # noqa: BLE001
                queries = EarlyGap.fallback(claim).queries
        found, _ = dual_phase_search(retriever_for(ctx), claim, plan.sub_questions or [claim], queries or [claim], ctx)
        return dspy.Prediction(titles=list(found))


def pool_recall(example: dspy.Example, prediction: dspy.Prediction, trace=None) -> bool:
    """1 when every gold title is among the documents the first two hops found."""
    return all_gold_in(prediction.titles, example.supporting_titles, k=len(prediction.titles))


def optimize(lm: dspy.LM, ctx: Context, train: list[dspy.Example],
             out: Path | None = None, max_demos: int = 2) -> dict:
    """Compile, save the program (atomically, with a manifest of how it was made), return the manifest."""
    out = out or optimized_program()
    started = time.perf_counter()
    with dspy.context(lm=lm, adapter=adapter_for(ctx.model)):
        baseline = RetrievalPlanner(ctx)
        scored = [pool_recall(ex, baseline(claim=ex.claim)) for ex in tqdm(train, desc="baseline (before optimising)")]
        before = sum(scored) / len(train)
        optimizer = BootstrapFewShot(metric=pool_recall, max_bootstrapped_demos=max_demos, max_labeled_demos=0)
        compiled = optimizer.compile(RetrievalPlanner(ctx), trainset=train)
    program = ClaimHopProgram()
    program.plan, program.early_gap = compiled.plan, compiled.early_gap
    with atomic_path(out, suffix=".tmp.json") as tmp:
        program.save(str(tmp))
    manifest = {
        "optimizer": f"BootstrapFewShot(max_bootstrapped_demos={max_demos}, max_labeled_demos=0)",
        "optimized_steps": OPTIMIZED_STEPS[ctx.planner],
        "metric": "all gold titles among the documents of the first two hops (phase 1 + phase 2)",
        "train": {"source": TRAIN_QUESTIONS.name, "uids": [ex.uid for ex in train]},
        "train_pool_recall_before": round(before, 4),
        "demos": {name: len(p.demos) for name, p in program.named_predictors()},
        "seconds": round(time.perf_counter() - started, 1),
        "model": lm.model,
    }
    write_json(out.with_suffix(".manifest.json"), manifest)
    return manifest
