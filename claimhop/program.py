"""claimhop's DSPy program, in one module: every signature a step asks the model (each docstring is the
instruction an optimiser rewrites), the local model's prompts for the two label-probability judgements, and the
program that holds a predictor for each, so one JSON file saves or loads an optimised version of all of them."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Literal

import dspy
from pydantic import BaseModel

from claimhop.cache_root import cache_root


class DecomposeClaim(dspy.Signature):
    """Split a factual claim into 2-3 short sub-questions that together cover everything the claim depends on.
    Each sub-question asks about one entity or relation and names it explicitly, so that it can be answered by
    searching one Wikipedia article."""

    claim: str = dspy.InputField(desc="the factual claim to check")
    sub_questions: list[str] = dspy.OutputField(desc="2-3 self-contained questions, each naming its entity")


class EarlyGapAnalysis(dspy.Signature):
    """Before any search: what facts must be found to check this claim, and which entities (people, works,
    places, organisations) must be looked up, including ones the claim only describes without naming.
    Write 1-3 search queries for the facts that are hardest to find."""

    claim: str = dspy.InputField(desc="the factual claim to check")
    facts_needed: list[str] = dspy.OutputField(desc="short facts that must be confirmed")
    entities: list[str] = dspy.OutputField(desc="names of entities to look up")
    queries: list[str] = dspy.OutputField(desc="1-3 search queries")


class PlanClaim(dspy.Signature):
    """Plan the search for a factual claim in one step. Write 2-3 short sub-questions that together cover the
    claim, each naming its entity so one Wikipedia article can answer it, and name the entities (people, works,
    places, organisations) whose articles must be looked up, including ones the claim only describes."""

    claim: str = dspy.InputField(desc="the factual claim to check")
    sub_questions: list[str] = dspy.OutputField(desc="2-3 self-contained questions, each naming its entity")
    entities: list[str] = dspy.OutputField(desc="names of entities to look up")


class PlanClaimAsFacts(dspy.Signature):
    """Plan the search for a factual claim in one step. Split the claim into its atomic facts: complete sentences,
    each with its own subject and verb, that can be checked on their own (repeat the name instead of "he", "it" or
    "the event"), which together say everything the claim says and nothing more. Example: "Chandgi Ram won a gold
    medal in 1970 at an event held in Bangkok." -> "Chandgi Ram won a gold medal in 1970." and "The event where
    Chandgi Ram won gold in 1970 was held in Bangkok." Then name the entities (people, works, places,
    organisations) whose articles must be looked up, including ones the claim only describes."""

    claim: str = dspy.InputField(desc="the factual claim to check")
    facts: list[str] = dspy.OutputField(desc="1-4 atomic facts, each a complete sentence")
    entities: list[str] = dspy.OutputField(desc="names of entities to look up")


class PickBridgingEntities(dspy.Signature):
    """Pick the entities from the candidates that link the parts of the claim: an entity the claim refers to only
    indirectly (for example 'the lead singer of the band'), or one that connects two things the claim mentions.
    Choose only names from the candidate list."""

    claim: str = dspy.InputField()
    sub_questions: list[str] = dspy.InputField()
    candidates: list[str] = dspy.InputField(desc="entity names found in the retrieved documents")
    entities: list[str] = dspy.OutputField(desc="3-5 names copied from candidates, most important first")


class GapAnalysis(dspy.Signature):
    """Given a claim and the documents found so far (title: first sentence), decide what is still missing to
    check every part of the claim. If something is missing, name the entities to look up and write new search
    queries that differ from the titles already found."""

    claim: str = dspy.InputField()
    found: list[str] = dspy.InputField(desc="documents found so far, as 'title: first sentence'")
    missing: list[str] = dspy.OutputField(desc="facts of the claim not yet covered; empty if none")
    entities: list[str] = dspy.OutputField(desc="entities to look up next")
    queries: list[str] = dspy.OutputField(desc="up to 3 new search queries")
    complete: bool = dspy.OutputField(desc="true if the documents cover every part of the claim")


class VerifyClaim(dspy.Signature):
    """Judge the claim against the numbered evidence sentences only, not your own knowledge.
    SUPPORTED: the evidence confirms every part of the claim. CONTRADICTED: the evidence states something that
    makes a part of the claim false. INSUFFICIENT_INFO: some part is neither confirmed nor contradicted."""

    claim: str = dspy.InputField()
    evidence: list[str] = dspy.InputField(desc="'[n] title: sentence'")
    verdict: Literal["SUPPORTED", "CONTRADICTED", "INSUFFICIENT_INFO"] = dspy.OutputField()
    evidence_ids: list[int] = dspy.OutputField(desc="numbers n of the sentences the verdict rests on")


class SplitClaim(dspy.Signature):
    """Split the claim into its atomic facts: complete sentences, each with its own subject and verb, that can be
    checked on their own (repeat the name instead of "he", "it" or "the event"), which together say everything
    the claim says and nothing more. Example: "Chandgi Ram won a gold medal in 1970 at an event held in Bangkok."
    -> "Chandgi Ram won a gold medal in 1970." and "The event where Chandgi Ram won gold in 1970 was held in
    Bangkok." Never a fragment such as "in 1970"."""

    claim: str = dspy.InputField()
    facts: list[str] = dspy.OutputField(desc="1-5 atomic facts, each a complete sentence")


class AtomicFact(BaseModel):
    """One checkable statement of the claim and the names it mentions."""

    text: str
    entities: list[str]


class SplitClaimWithNames(SplitClaim):
    """Split the claim into its atomic facts: complete sentences, each with its own subject and verb, that can be
    checked on their own (repeat the name instead of "he", "it" or "the event"), which together say everything
    the claim says and nothing more. Example: "Chandgi Ram won a gold medal in 1970 at an event held in Bangkok."
    -> "Chandgi Ram won a gold medal in 1970." and "The event where Chandgi Ram won gold in 1970 was held in
    Bangkok." Never a fragment such as "in 1970"."""

    facts: list[AtomicFact] = dspy.OutputField(desc="1-5 atomic facts, each with the names it mentions")


class CitedStatement(BaseModel):
    """One sentence of the explanation and the number of the evidence sentence that backs it."""

    text: str
    evidence_id: int


class ExplainVerdict(dspy.Signature):
    """Explain the verdict on the claim in 2-4 short statements, each restating what one numbered evidence
    sentence says about a part of the claim, with that evidence number. Use only the evidence, never outside
    knowledge. For a contradicted part, state what the evidence says instead."""

    claim: str = dspy.InputField()
    verdict: str = dspy.InputField()
    evidence: list[str] = dspy.InputField(desc="'[n] title: sentence'")
    statements: list[CitedStatement] = dspy.OutputField(desc="2-4 statements, each with its evidence number n")


class AnswerFollowUp(dspy.Signature):
    """Answer a user's follow-up question about an earlier fact check, using only the evidence sentences and the
    verdict given. Cite the evidence you use as [n]. If the evidence does not answer the question, say so."""

    question: str = dspy.InputField()
    claim: str = dspy.InputField(desc="the claim that was checked")
    verdict: str = dspy.InputField()
    evidence: list[str] = dspy.InputField(desc="'[n] title: sentence'")
    answer: str = dspy.OutputField(desc="2-4 sentences with [n] citations")


class JudgePair(dspy.Signature):
    """Does the evidence sentence show the fact is true (entailment), false (contradiction), or neither
    (neutral)? Judge only from the evidence."""

    evidence: str = dspy.InputField()
    fact: str = dspy.InputField()
    label: Literal["entailment", "contradiction", "neutral"] = dspy.OutputField()


# the local model's prompt for the same judgement, its reply constrained to the three labels
JUDGE_PAIR_SYSTEM = (
    "You check a fact against one sentence of evidence. Answer entailment if the evidence shows the fact is "
    "true, contradiction if the evidence shows the fact is false, neutral if the evidence does not settle it. "
    "Judge only from the evidence. Answer with one word: entailment, contradiction or neutral."
)


class AnswerFromEvidence(dspy.Signature):
    """Answer the question from the numbered evidence sentences only, never from your own knowledge: pick the
    option the evidence states as the answer, or the 'not stated' option when no sentence states it."""

    evidence: list[str] = dspy.InputField(desc="'[n] title: sentence'")
    question: str = dspy.InputField()
    options: list[str] = dspy.InputField(desc="'X) answer', X a letter")
    letter: str = dspy.OutputField(desc="the letter of the chosen option")


# the local model's prompt for the same question, its reply constrained to the options' letters
ANSWER_FROM_EVIDENCE_SYSTEM = (
    "You answer a question from numbered evidence sentences only, never from your own knowledge. Pick the option "
    "that the evidence states as the answer; pick 'not stated' when no sentence states it. A blank ___ in the "
    "question is what is asked. Answer with the option's letter only."
)


class JudgeClaimOnPassages(dspy.Signature):
    """You check whether a claim is supported by the documents. Answer yes or no."""

    documents: list[str] = dspy.InputField(desc="'[title] paragraph'")
    claim: str = dspy.InputField()
    supported: Literal["yes", "no"] = dspy.OutputField()


# the local model's prompt for the same judgement (verifier=passages): read as chat text, its hidden state where the
# answer starts goes to the learned head; a served model answers yes/no with logprobs
PASSAGES_SYSTEM = JudgeClaimOnPassages.__doc__.strip()
PASSAGES_QUESTION = "Is the claim supported by the documents?"


class ClaimFromQuestion(dspy.Signature):
    """Write the question and its answer as one factual claim: a single declarative sentence that states the
    answer and keeps every name and detail of the question, adding nothing the question and answer do not say.
    For a yes/no question, state what the answer means (a 'no' answer gives a negative sentence)."""

    question: str = dspy.InputField()
    answer: str = dspy.InputField()
    claim: str = dspy.OutputField()


class Relevant(dspy.Signature):
    """Is the Wikipedia paragraph relevant to the search query (does it give facts about what the query asks)?"""

    query: str = dspy.InputField()
    paragraph: str = dspy.InputField()
    relevant: bool = dspy.OutputField()


# the local model's prompt for the same judgement, its reply constrained to yes/no
RELEVANT_SYSTEM = (
    "You judge whether a Wikipedia paragraph is relevant to a search query: it is relevant when it gives facts "
    "about the people, places, works or events the query asks about. Answer with one word: yes or no."
)


def optimized_program() -> Path:
    """Where `claimhop optimize` saves the program and runs find it: claimhop's folder (CLAIMHOP_HOME), never
    the installed package."""
    return cache_root() / "optimized" / "claimhop_program.json"


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
        self.judge_pair = dspy.Predict(JudgePair)  # verifier=facts with a model other than the local one
        self.relevant = dspy.Predict(Relevant)  # reranker=lm with a model other than the local one
        self.answer_from_evidence = dspy.Predict(AnswerFromEvidence)  # verifier=qa with a model other than the local one


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
