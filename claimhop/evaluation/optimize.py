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
from dataclasses import replace
from pathlib import Path

import dspy
from dspy.teleprompt import BootstrapFewShot
from langgraph.runtime import Runtime
from tqdm import tqdm

from claimhop.atomic import atomic_path, write_json
from claimhop.data import bundled
from claimhop.evaluation.metric import all_gold_in
from claimhop.lm.adapter import adapter_for
from claimhop.program import ClaimHopProgram, optimized_program
from claimhop.steps.common import running
from graph.builder import NODES
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
# the graph nodes that make the first two hops, in the graph's order
PLANNING_NODES = ("decompose", "early_gap", "dual_retrieval")
OPTIMIZED_STEPS = {"facts": ["plan_facts"], "one_call": ["plan"], "two_calls": ["decompose", "early_gap"]}


class RetrievalPlanner(dspy.Module):
    """The graph's first two hops as one DSPy module: its own `decompose`, `early_gap` and `dual_retrieval` node
    functions, run in the graph's order on this module's program, so what is compiled is exactly what the graph
    runs (the planning call(s) the `planner` setting chooses, then dual retrieval)."""

    def __init__(self, lm: dspy.LM, ctx: Context, program: ClaimHopProgram | None = None):
        super().__init__()
        self.program = program or ClaimHopProgram()
        # one attempt: outside a graph no RetryPolicy reruns a node, so a failed call takes the node's fallback
        self.lm, self.ctx = lm, replace(ctx, model_attempts=1)

    def forward(self, claim: str) -> dspy.Prediction:
        state: dict = {"claim": claim}
        runtime = Runtime(context=self.ctx)
        with running(self.program, self.lm):
            for name in PLANNING_NODES:
                node = NODES[name].function
                state.update(node(state, runtime))
        return dspy.Prediction(titles=list(state.get("candidates", {})))


def pool_recall(example: dspy.Example, prediction: dspy.Prediction, trace=None) -> bool:
    """1 when every gold title is among the documents the first two hops found."""
    return all_gold_in(prediction.titles, example.supporting_titles, k=len(prediction.titles))


def optimize(lm: dspy.LM, ctx: Context, train: list[dspy.Example],
             out: Path | None = None, max_demos: int = 2) -> dict:
    """Compile, save the program (atomically, with a manifest of how it was made), return the manifest."""
    out = out or optimized_program()
    started = time.perf_counter()
    with dspy.context(lm=lm, adapter=adapter_for(ctx.model)):
        baseline = RetrievalPlanner(lm, ctx)
        scored = [pool_recall(ex, baseline(claim=ex.claim)) for ex in tqdm(train, desc="baseline (before optimising)")]
        before = sum(scored) / len(train)
        optimizer = BootstrapFewShot(metric=pool_recall, max_bootstrapped_demos=max_demos, max_labeled_demos=0)
        compiled = optimizer.compile(RetrievalPlanner(lm, ctx), trainset=train)
    with atomic_path(out, suffix=".tmp.json") as tmp:
        compiled.program.save(str(tmp))
    manifest = {
        "optimizer": f"BootstrapFewShot(max_bootstrapped_demos={max_demos}, max_labeled_demos=0)",
        "optimized_steps": OPTIMIZED_STEPS[ctx.planner],
        "metric": "all gold titles among the documents of the first two hops (phase 1 + phase 2)",
        "train": {"source": TRAIN_QUESTIONS.name, "uids": [ex.uid for ex in train]},
        "train_pool_recall_before": round(before, 4),
        "demos": {name: len(p.demos) for name, p in compiled.program.named_predictors()},
        "seconds": round(time.perf_counter() - started, 1),
        "model": lm.model,
    }
    write_json(out.with_suffix(".manifest.json"), manifest)
    return manifest
