"""The passage verifier's DSPy row: the same judgement (claim + whole passages -> supported yes/no, the program's
`JudgeClaimOnPassages`) asked through DSPy and compiled with BootstrapFewShotWithRandomSearch, the synthetic claims
as train and validation set, so the prompt carries labelled demos in a fixed prefix that llama.cpp's prompt cache
keeps cheap. `claimhop train-verifier --dspy` compiles and saves it; `claimhop eval-verify --systems
passages_dspy` measures it beside the learned head. It answers with a label and no probability (confidence 1)."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import dspy

from claimhop.atomic import atomic_path, write_json
from claimhop.program.verify.reading import passages_read
from claimhop.signatures import JudgeClaimOnPassages

DSPY_JUDGE = Path("docs/results/verifier/passages-dspy.json")
COMPILE_COMMAND = "claimhop train-verifier --dspy"


class PassageJudge(dspy.Module):
    """One constrained call: the claim and the passages the passage verifier reads, answered yes or no."""

    def __init__(self) -> None:
        super().__init__()
        self.judge = dspy.Predict(JudgeClaimOnPassages)

    def forward(self, claim: str, documents: list[str]) -> dspy.Prediction:
        return self.judge(claim=claim, documents=documents)


def passage_texts(claim: str, documents: list[dict]) -> list[str]:
    """What the passage verifier reads (same budget and chain order), as '[title] paragraph' strings."""
    return [f"[{p['title']}] {p['text']}" for p in passages_read(documents, claim=claim)]


def agrees(example: dspy.Example, prediction: dspy.Prediction, trace=None) -> bool:
    return str(getattr(prediction, "supported", "")).strip().lower() == example.supported


def examples(items: list[dict], corpus) -> list[dspy.Example]:
    """Labelled items (claimhop.evaluation.verifier_data) as DSPy examples: SUPPORTED -> yes, anything else -> no."""
    from claimhop.evaluation.verifier_features import documents_for

    return [dspy.Example(claim=item["claim"], documents=passage_texts(item["claim"], documents_for(corpus, item["titles"])),
                         supported="yes" if item["label"] == "SUPPORTED" else "no", group=item["group"])
            .with_inputs("claim", "documents") for item in items]


def split_by_group(items: list[dict], validation: int) -> tuple[list[dict], list[dict]]:
    """Train and validation items with no question in both (a question's claims share a group), the validation
    groups chosen by a hash so the split does not depend on file order."""
    groups = sorted({item["group"] for item in items}, key=lambda g: hashlib.sha256(g.encode()).hexdigest())
    val_groups: set[str] = set()
    for group in groups:
        if sum(item["group"] in val_groups for item in items) >= validation:
            break
        val_groups.add(group)
    return ([item for item in items if item["group"] not in val_groups],
            [item for item in items if item["group"] in val_groups])


def compile_judge(items: list[dict], corpus, lm: dspy.LM, adapter, out: Path = DSPY_JUDGE, validation: int = 30,
                  candidates: int = 1, demos: int = 2) -> dict:
    """Compile PassageJudge on the synthetic `items`, save it with a manifest beside it, return the manifest."""
    from dspy.teleprompt import BootstrapFewShotWithRandomSearch

    started = time.perf_counter()
    train_items, val_items = split_by_group(items, validation)
    train, val = examples(train_items, corpus), examples(val_items, corpus)
    optimizer = BootstrapFewShotWithRandomSearch(metric=agrees, max_bootstrapped_demos=1, max_labeled_demos=demos,
                                                 num_candidate_programs=candidates, num_threads=1)
    with dspy.context(lm=lm, adapter=adapter):
        compiled = optimizer.compile(PassageJudge(), trainset=train, valset=val)
    with atomic_path(out, suffix=".tmp.json") as tmp:
        compiled.save(str(tmp))
    # seed -3: zero-shot, -2: labelled demos only, -1: unshuffled bootstrap, >= 0: shuffled bootstraps
    scores = {str(c["seed"]): round(float(c["score"]), 1) for c in compiled.candidate_programs}
    manifest = {
        "optimizer": f"BootstrapFewShotWithRandomSearch(max_bootstrapped_demos=1, max_labeled_demos={demos}, "
                     f"num_candidate_programs={candidates})",
        "signature": "JudgeClaimOnPassages (claimhop/program.py)",
        "metric": "the yes/no answer equals the label (SUPPORTED -> yes; swapped, flipped, paragraph removed -> no)",
        "train": {"items": len(train), "supported": sum(e.supported == "yes" for e in train)},
        "validation": {"items": len(val), "supported": sum(e.supported == "yes" for e in val),
                       "ids": [item["key"] for item in val_items]},
        "validation_accuracy_by_candidate_seed": scores,
        "demos": len(compiled.judge.demos),
        "model": lm.model,
        "seconds": round(time.perf_counter() - started, 1),
    }
    write_json(out.with_suffix(".manifest.json"), manifest)
    return manifest


def load_judge(path: Path = DSPY_JUDGE) -> PassageJudge:
    if not path.is_file():
        raise ValueError(f"the compiled DSPy passage judge {path} is missing: make it with `{COMPILE_COMMAND}`")
    judge = PassageJudge()
    judge.load(str(path))
    return judge


def dspy_verdict(judge: PassageJudge, claim: str, documents: list[dict], lm: dspy.LM, adapter) -> tuple[str, float, dict]:
    """SUPPORTED on 'yes', INSUFFICIENT_INFO on 'no' (the judgement cannot tell contradicted from not settled)."""
    with dspy.context(lm=lm, adapter=adapter):
        answer = str(judge(claim=claim, documents=passage_texts(claim, documents)).supported).strip().lower()
    return ("SUPPORTED" if answer == "yes" else "INSUFFICIENT_INFO"), 1.0, {"answer": answer}


def manifest_of(path: Path = DSPY_JUDGE) -> dict:
    manifest = path.with_suffix(".manifest.json")
    return json.loads(manifest.read_text(encoding="utf-8")) if manifest.is_file() else {}
