"""The graph's typed state: what goes in, what each step adds, and what comes out."""

from __future__ import annotations

import operator
from typing import Annotated, Literal, NotRequired

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import (
    TypedDict,  # pydantic (Studio schemas) needs this one on Python < 3.12
)

Verdict = Literal["SUPPORTED", "CONTRADICTED", "INSUFFICIENT_INFO"]


class Hop(TypedDict):
    """One search issued by the graph: which step, the query, and the titles it returned (in rank order)."""

    step: str
    query: str
    titles: list[str]


class Candidate(TypedDict):
    """A retrieved document and why: the fused rank score it earned and the steps that found it."""

    doc_id: int
    title: str
    text: str
    retrieval_score: float
    found_by: list[str]
    source: NotRequired[str]  # the file it came from (a collection indexed from a folder or table)


class SelectedDoc(TypedDict):
    rank: int
    title: str
    text: str
    score: float
    retrieval_score: float
    claim_entities: list[str]
    looked_up: list[str]
    found_by: list[str]
    source: NotRequired[str]  # the file it came from, shown in the answer's references
    chain: NotRequired[dict]  # selection's chain bonus: {"bonus": weight x specificity, "named_by": the kept document}


class Evidence(TypedDict):
    """A sentence quoted verbatim from a selected document; `ref` is its number in the answer's reference list."""

    ref: int
    title: str
    sentence: str
    score: float


class JudgedEvidence(TypedDict):
    """One evidence sentence for a fact (document, sentence index, exact text) and the NLI label probabilities."""

    title: str
    sentence: str
    sentence_index: NotRequired[int]  # the facts verifier's; the QA verifier quotes the sentence that answered
    probs: dict[str, float]


class FactCheck(TypedDict):
    """An atomic fact of the claim, its evidence, how much of it the evidence covers, its verdict and confidence;
    `ref` numbers the deciding sentence in the answer's references (0 when none decided it)."""

    fact: str
    entities: list[str]
    evidence: list[JudgedEvidence]
    alignment: float
    verdict: Verdict
    confidence: float
    error: str | None
    ref: int
    questions: NotRequired[list[dict]]  # the QA verifier: each question, its options and probabilities, the answer and its quote
    refs: NotRequired[list[int]]  # the passage verifier: every quote of the fact, by reference number
    stating_refs: NotRequired[list[int]]  # those that state the fact (its words, the same direction)
    opposite_refs: NotRequired[list[int]]  # those that point the other way ("poor" for "better")


def merge_candidates(old: dict[str, Candidate] | None, new: dict[str, Candidate] | None) -> dict[str, Candidate]:
    """Union by title: a document found again adds its score and the step that found it."""
    merged = dict(old or {})
    for title, cand in (new or {}).items():
        if title in merged:
            prev = merged[title]
            merged[title] = {
                **prev,
                "retrieval_score": prev["retrieval_score"] + cand["retrieval_score"],
                "found_by": prev["found_by"] + [s for s in cand["found_by"] if s not in prev["found_by"]],
            }
        else:
            merged[title] = cand
    return merged


class InputState(TypedDict, total=False):
    """Send a claim as `claim`, or as the last human message (the chat convention)."""

    claim: str
    messages: Annotated[list[AnyMessage], add_messages]


class OutputState(TypedDict, total=False):
    """What a check returns (and a client reads): the verdict, its answer, the facts, evidence and documents."""

    claim: str  # the claim checked (instructions to the checker removed)
    turn: Literal["check", "follow_up"]  # what this turn asked: a new check, or a question about the last one
    question: str  # the follow-up question
    follow_up: str  # its answer
    ignored_instructions: list[str]  # sentences addressed to the checker, not part of the claim
    verdict: Verdict  # SUPPORTED, CONTRADICTED or INSUFFICIENT_INFO
    confidence: float  # calibrated P(the verdict is right)
    verdict_reason: str  # why, in the answer's words
    facts: list[FactCheck]  # each atomic fact of the claim, its verdict and quotes
    answer: str  # the cited answer people read
    model: str  # the model that answered ('local' or the name given, e.g. openai/...)
    degraded: Annotated[list[str], operator.add]  # model steps that fell back, and why
    lm_calls: Annotated[int, operator.add]  # model calls made by this check
    evidence: list[Evidence]  # the numbered sentences the answer cites
    selected: list[SelectedDoc]  # the documents kept for the verdict (21 by default), best first
    hops: list[Hop]  # every search: its step, query and titles
    messages: Annotated[list[AnyMessage], add_messages]


class State(InputState, OutputState, total=False):
    """Everything a check writes on its way, checkpointed after every node; a new check on a thread clears it."""

    sub_questions: list[str]  # what the first hop searches (the plan's facts by default)
    planned_gap: dict[str, list[str]]  # planner=one_call/facts: the gap queries and entities decompose already wrote
    gap_shown: list[str]  # the documents the last gap-loop round's prompt showed
    planned_facts: list[str] | None  # planner=facts: the claim's atomic facts decompose already wrote, for verify
    facts_needed: list[str]  # planner=two_calls: the facts the early gap analysis says must be found
    gap_queries: list[str]  # the second phase's queries (the plan's entity names by default)
    claim_entities: list[str]  # the names the claim gives (spaCy)
    looked_up: Annotated[list[str], operator.add]  # names the plan, bridge and gap loop looked up
    hops: Annotated[list[Hop], operator.add]
    candidates: Annotated[dict[str, Candidate], merge_candidates]  # every document any hop found, by title
    claim_ranking: list[Candidate]  # the claim searched alone, best first (step 0): selection's floor
    doc_entities: list[str]  # names in the found documents no search covered yet, ranked
    bridge_entities: list[str]  # the names the bridge looked up
    iteration: int  # gap-loop rounds run
    gap_complete: bool  # the last round found nothing missing (or had no new query)
    new_last_round: int  # documents the last round added
    missing: list[str]  # what the last round said is missing
