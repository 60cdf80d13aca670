"""`claimhop optimize`: compile the graph's retrieval-planning DSPy steps (the plan; with planner=two_calls, the
early gap analysis) with BootstrapFewShot against retrieval recall on HotpotQA questions that share no claim with
the HoVer dev set, and save the program as JSON, which the graph loads at start. What is compiled is the program a
user runs: the caller hands in graph.program.ClaimHopProgram, whose `forward` runs the whole graph on the program's
predictors (the graph sits above the evaluation, so only the console command imports it).

Why those two steps: they write every query of the first two hops, which is where the gold documents are
found or lost; the metric needs no LM judge, so a trace can be scored exactly. The LM's responses are cached
on disk (DSPy's cache), so an interrupted run redone with the same options replays finished calls for free.

`--step verdict` compiles instead a served model's verdict (claimhop.program.verify.served, JudgeClaimThreeWays) on
labelled claims with their documents, the metric the three-way label; its demos go into the same program file
(`verify.served.predict`), beside the planning steps already there."""

from __future__ import annotations

import gzip
import json
import random
import time
from collections.abc import Callable
from pathlib import Path

import dspy
from dspy.teleprompt import BootstrapFewShot
from tqdm import tqdm

from claimhop.atomic import atomic_path, write_json
from claimhop.data import bundled
from claimhop.evaluation.metric import all_gold_in
from claimhop.lm.adapter import adapter_for
from claimhop.program import optimized_program
from claimhop.program.verify.head import head_file, load_head
from claimhop.program.verify.served import LABELS, VerdictOnDocuments
from claimhop.retrieval.corpus import documents_by_title, load_corpus
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


# the predictors the first two hops call under each planner: the steps whose demos the metric below can judge
OPTIMIZED_STEPS = {"facts": ["plan.facts"], "one_call": ["plan.one_call"],
                   "two_calls": ["plan.decompose", "early_gap.predict"]}
FIRST_HOPS = ("phase1", "phase2")  # the hops dual retrieval records


def pool_recall(example: dspy.Example, prediction: dspy.Prediction, trace=None) -> bool:
    """1 when every gold title is among the documents the first two hops (phase 1 + phase 2) found."""
    titles = list(dict.fromkeys(t for hop in prediction.hops if hop["step"] in FIRST_HOPS for t in hop["titles"]))
    return all_gold_in(titles, example.supporting_titles, k=len(titles))


def only_planning(program: dspy.Module, planner: str) -> dspy.Module:
    """The compiled program with demos kept only on the planning steps: the metric judges the first two hops, so
    a demo another step happened to make on the way (the gap loop's) has not been judged."""
    for name, predictor in program.named_predictors():
        if name not in OPTIMIZED_STEPS[planner]:
            predictor.demos = []
    return program


def optimize(lm: dspy.LM, ctx: Context, train: list[dspy.Example], out: Path | None = None, max_demos: int = 2,
             *, program: Callable[[Context], dspy.Module]) -> dict:
    """Compile `program(ctx)` (graph.program.ClaimHopProgram: the whole graph on the program's predictors), save
    it (atomically, with a manifest of how it was made), return the manifest."""
    out = out or optimized_program()
    started = time.perf_counter()
    with dspy.context(lm=lm, adapter=adapter_for(ctx.model)):
        baseline = program(ctx)
        scored = [pool_recall(ex, baseline(claim=ex.claim)) for ex in tqdm(train, desc="baseline (before optimising)")]
        before = sum(scored) / len(train)
        optimizer = BootstrapFewShot(metric=pool_recall, max_bootstrapped_demos=max_demos, max_labeled_demos=0)
        compiled = only_planning(optimizer.compile(program(ctx), trainset=train), ctx.planner)
    with atomic_path(out, suffix=".tmp.json") as tmp:
        compiled.save(str(tmp))
    manifest = {
        "optimizer": f"BootstrapFewShot(max_bootstrapped_demos={max_demos}, max_labeled_demos=0)",
        "optimized_steps": OPTIMIZED_STEPS[ctx.planner],
        "metric": "all gold titles among the documents of the first two hops (phase 1 + phase 2)",
        "train": {"source": TRAIN_QUESTIONS.name, "uids": [ex.uid for ex in train]},
        "train_pool_recall_before": round(before, 4),
        "demos": {name: len(p.demos) for name, p in compiled.named_predictors()},
        "seconds": round(time.perf_counter() - started, 1),
        "model": lm.model,
    }
    write_json(out.with_suffix(".manifest.json"), manifest)
    return manifest


VERDICT_STEP = "verify.served.predict"  # the served verdict's predictor, as a run's program names it


def verdict_examples(path: Path, limit: int, seed: int, corpus_path: str = "") -> list[dspy.Example]:
    """A seeded sample of labelled claims (JSONL: `claim`, the label as `kind` or `label`: SUPPORTED, CONTRADICTED,
    INSUFFICIENT_INFO or NOT_SUPPORTED, and `documents` [{title, text}] or `titles` of the corpus), as examples with
    the claim and documents as inputs and the gold `verdict`."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = random.Random(seed).sample(rows, min(limit, len(rows)))
    corpus = None
    if any("documents" not in row for row in rows):  # documents named by title: read from the corpus
        corpus = load_corpus(corpus_path) if corpus_path else load_corpus()
    examples = []
    for row in rows:
        label = row.get("kind") or row.get("label")
        if label not in (*LABELS, "NOT_SUPPORTED"):
            raise ValueError(f"{path}: claim {row.get('uid') or row.get('id')} has label {label!r}, none of "
                             f"{', '.join(LABELS)}, NOT_SUPPORTED")
        documents = row.get("documents") or documents_by_title(corpus, row.get("titles", []))
        examples.append(dspy.Example(claim=row["claim"], documents=documents, verdict=label,
                                     uid=str(row.get("uid") or row.get("id") or len(examples)))
                        .with_inputs("claim", "documents"))
    return examples


def verdict_match(example: dspy.Example, prediction: dspy.Prediction, trace=None) -> bool:
    """The predicted label is the gold one (a gold NOT_SUPPORTED: CONTRADICTED or INSUFFICIENT_INFO)."""
    if example.verdict == "NOT_SUPPORTED":
        return prediction.verdict != "SUPPORTED"
    return prediction.verdict == example.verdict


def optimize_verdict(ctx: Context, train: list[dspy.Example], out: Path | None = None, max_demos: int = 2) -> dict:
    """Compile the served model's verdict (`ctx.model`) with BootstrapFewShot against the three-way label, on the
    passages a run reads (the head's reading rule); its predictor is written into the program file `out` (planning
    steps already there are kept); returns the manifest, saved beside it."""
    out = out or optimized_program()
    started = time.perf_counter()
    rule = load_head(head_file(ctx.corpus_path, ctx.index_dir)).reading
    baseline = VerdictOnDocuments(ctx.model, rule)
    said = [baseline(claim=ex.claim, documents=ex.documents) for ex in tqdm(train, desc="baseline (before optimising)")]
    before = sum(verdict_match(ex, p) for ex, p in zip(train, said)) / len(train)
    optimizer = BootstrapFewShot(metric=verdict_match, max_bootstrapped_demos=max_demos, max_labeled_demos=0)
    compiled = optimizer.compile(VerdictOnDocuments(ctx.model, rule), trainset=train)
    saved = json.loads(out.read_text(encoding="utf-8")) if out.is_file() else {}
    saved[VERDICT_STEP] = compiled.served.predict.dump_state()
    write_json(out, saved)
    manifest = {
        "optimizer": f"BootstrapFewShot(max_bootstrapped_demos={max_demos}, max_labeled_demos=0)",
        "optimized_steps": [VERDICT_STEP],
        "metric": "the most probable of SUPPORTED / CONTRADICTED / INSUFFICIENT_INFO is the gold label "
                  "(gold NOT_SUPPORTED: either of the other two)",
        "train": {"uids": [ex.uid for ex in train], "labels": {label: sum(ex.verdict == label for ex in train)
                                                               for label in (*LABELS, "NOT_SUPPORTED")}},
        "train_accuracy_before": round(before, 4),
        "demos": {VERDICT_STEP: len(compiled.served.predict.demos)},
        "seconds": round(time.perf_counter() - started, 1),
        "model": ctx.model,
    }
    write_json(out.with_name(f"{out.stem}.verdict.manifest.json"), manifest)
    return manifest
