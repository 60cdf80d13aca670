"""Every prompt claimhop's model sees, as DSPy signatures: each docstring is the instruction (an optimiser rewrites
it; the label-probability calls send it as their system message, `instructions`), each field an input or output.
The step modules that call them are in `claimhop.program`."""

from __future__ import annotations

from typing import Literal

import dspy
from pydantic import BaseModel

# The most items a list in a model's reply holds, one cap for every reply: the local engine's grammar cannot start
# one more (claimhop.lm.local_engine.bounded), and the program keeps no more of a reply's facts, names or queries,
# so a served model, which has no grammar, gives no more either. Set by hand when the grammar was bounded
# (6d5a164: a 1.5B model sometimes repeats one item until its tokens run out); not tuned.
MAX_REPLY_ITEMS = 5


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


ATOMIC_FACTS = (  # the one statement of what an atomic fact is: the plan and the split both say it
    'Split the claim into its atomic facts: complete sentences,\n'
    'each with its own subject and verb, that can be checked on their own (repeat the name instead of "he", "it" or\n'
    '"the event"), which together say everything the claim says and nothing more. Example: "Chandgi Ram won a gold\n'
    'medal in 1970 at an event held in Bangkok." -> "Chandgi Ram won a gold medal in 1970." and "The event where\n'
    'Chandgi Ram won gold in 1970 was held in Bangkok."'
)


class PlanClaimAsFacts(dspy.Signature):
    __doc__ = (
        f"Plan the search for a factual claim in one step. {ATOMIC_FACTS} Then name the entities (people, works, places,\n"
        "organisations) whose articles must be looked up, including ones the claim only describes."
    )

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
    __doc__ = f'{ATOMIC_FACTS} Never a fragment such as "in 1970".'

    claim: str = dspy.InputField()
    facts: list[str] = dspy.OutputField(desc="1-5 atomic facts, each a complete sentence")


class JudgeClaimOnSentences(dspy.Signature):
    """You check a claim against numbered evidence sentences. Answer supported if the evidence shows every part
    of the claim is true, contradicted if it shows a part is false, insufficient otherwise. Judge only from the
    evidence. Answer with one word: supported, contradicted or insufficient."""

    claim: str = dspy.InputField()
    evidence: list[str] = dspy.InputField(desc="'[n] title: sentence'")
    label: Literal["supported", "contradicted", "insufficient"] = dspy.OutputField()


class AtomicFact(BaseModel):
    """One checkable statement of the claim and the names it mentions."""

    text: str
    entities: list[str]


class SplitClaimWithNames(SplitClaim):
    __doc__ = SplitClaim.__doc__

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
    """You check a fact against one sentence of evidence. Answer entailment if the evidence shows the fact is
    true, contradiction if the evidence shows the fact is false, neutral if the evidence does not settle it.
    Judge only from the evidence. Answer with one word: entailment, contradiction or neutral."""

    evidence: str = dspy.InputField()
    fact: str = dspy.InputField()
    label: Literal["entailment", "contradiction", "neutral"] = dspy.OutputField()


class AnswerFromEvidence(dspy.Signature):
    """You answer a question from numbered evidence sentences only, never from your own knowledge. Pick the option
    that the evidence states as the answer; pick 'not stated' when no sentence states it. A blank ___ in the
    question is what is asked. Answer with the option's letter only."""

    evidence: list[str] = dspy.InputField(desc="'[n] title: sentence'")
    question: str = dspy.InputField()
    options: list[str] = dspy.InputField(desc="'X) answer', X a letter")
    letter: str = dspy.OutputField(desc="the letter of the chosen option")


class JudgeClaimOnPassages(dspy.Signature):
    """You check whether a claim is supported by the documents. Answer yes or no."""

    documents: list[str] = dspy.InputField(desc="'[title] paragraph'")
    claim: str = dspy.InputField()
    supported: Literal["yes", "no"] = dspy.OutputField()


class JudgeClaimThreeWays(dspy.Signature):
    """You check a claim against the documents only, never your own knowledge. Answer SUPPORTED if the documents
    state that the claim is true. Answer CONTRADICTED if the documents state something that makes the claim false:
    another number, date, name or place, or the opposite direction (more instead of less, helps instead of harms).
    Answer INSUFFICIENT_INFO if the documents do not say whether the claim is true. Answer with one word:
    SUPPORTED, CONTRADICTED or INSUFFICIENT_INFO."""

    documents: list[str] = dspy.InputField(desc="'[title] paragraph'")
    claim: str = dspy.InputField()
    verdict: Literal["SUPPORTED", "CONTRADICTED", "INSUFFICIENT_INFO"] = dspy.OutputField()


class OppositeClaim(dspy.Signature):
    """Write the opposite of the claim: one sentence about the same subject that says the reverse (more becomes
    less, helps becomes harms, is becomes is not), everything else unchanged."""

    claim: str = dspy.InputField()
    opposite: str = dspy.OutputField()


# what the user message of the passage verifier's prompt ends with (claimhop.program.verify.reading)
PASSAGES_QUESTION = "Is the claim supported by the documents?"
# what the user message of a served model's three-way verdict ends with (claimhop.program.verify.served): the same
# documents and claim as the passage prompt, then this question
THREE_WAYS_QUESTION = "Is the claim SUPPORTED, CONTRADICTED or INSUFFICIENT_INFO?"


class ClaimFromQuestion(dspy.Signature):
    """Write the question and its answer as one factual claim: a single declarative sentence that states the
    answer and keeps every name and detail of the question, adding nothing the question and answer do not say.
    For a yes/no question, state what the answer means (a 'no' answer gives a negative sentence)."""

    question: str = dspy.InputField()
    answer: str = dspy.InputField()
    claim: str = dspy.OutputField()


class ClaimFromFinding(dspy.Signature):
    """Restate the finding as a short claim in plain words, the way a news story or a reader would put it: one
    sentence under 20 words, no numbers, no statistics, the same direction and the same subject."""

    finding: str = dspy.InputField()
    claim: str = dspy.OutputField()


class Relevant(dspy.Signature):
    """You judge whether a Wikipedia paragraph is relevant to a search query: it is relevant when it gives facts
    about the people, places, works or events the query asks about. Answer with one word: yes or no."""

    query: str = dspy.InputField()
    paragraph: str = dspy.InputField()
    relevant: bool = dspy.OutputField()


def instructions(signature: type[dspy.Signature]) -> str:
    """A signature's instruction as one line: the system message a label-probability call sends (a docstring's
    line breaks are layout, not prompt)."""
    return " ".join(signature.instructions.split())
