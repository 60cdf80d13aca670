"""The passage verifier's reading: the claim and whole passages of the selected documents, in selection order, in
one prompt, read by the local model in one pass. What comes back is the model's final hidden state where its
yes/no answer would start; P(yes) is one linear readout of it (the output layer's "Yes"/"No" rows, shipped with the
head), and the learned head (claimhop.verification.head) reads the whole state.

Why whole passages: judged sentence by sentence, a small model loses who "she" or "the film" is and cannot join
two documents; reading the passages together it does far better (docs/verification.md)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from claimhop.entities.matching import mentions
from claimhop.signatures import PASSAGES_QUESTION, JudgeClaimOnPassages, instructions

PASSAGES_SYSTEM = instructions(JudgeClaimOnPassages)  # the system message of the one pass the head reads
from claimhop.retrieval.titles import base_title, normalize_title
from claimhop.sentences import split_sentences

# Characters of passages read per claim. 2,400 holds the first 4-6 selected passages (median passage ~460 chars);
# on the 200 HotpotQA questions' selections it holds every gold passage for 0.64 of them (0.74 at 3,000, 0.55 at
# 2,000), and the prompt stays ~600 tokens (~8 s on 2 cores).
PASSAGE_BUDGET = 2400
PASSAGE_CAP = 1000  # a longer passage is cut at a sentence end, so one article cannot fill the budget alone
MODEL_BLOCKS = 28  # transformer blocks of the bundled model
# The state is read after this many blocks, from a copy of the model cut there (claimhop.lm.cut_model): chosen by
# `python -m benchmarks.layer_sweep` on synthetic claims made from HotpotQA questions (docs/verification.md).
READ_BLOCKS = 28


@dataclass(frozen=True)
class Reading:
    """What one pass of the model over the claim and passages gives."""

    state: np.ndarray  # the final hidden state at the answer's first position
    titles: list[str]  # the passages read, in the order shown


def clipped(text: str, limit: int = PASSAGE_CAP) -> str:
    """The passage's first sentences, as many as fit in `limit` characters (at least one, cut to the limit)."""
    if len(text) <= limit:
        return text
    kept, length = [], 0
    for sentence in split_sentences(text):
        if length + len(sentence) + 1 > limit:
            break
        kept.append(sentence)
        length += len(sentence) + 1
    return " ".join(kept) or text[:limit]


def chain_order(claim: str, documents: list[dict]) -> list[dict]:
    """The documents in the order a reader follows the claim: those the claim names (by title), then those their
    texts name (the next hop of the chain), then the rest, each group in selection order. Measured on the 200
    HotpotQA questions' selections, passages read within 2,400 characters hold every gold passage for 0.77 of them
    in this order, 0.68 in selection order (0.65 ordered by embedding similarity to the question)."""
    said = normalize_title(claim)
    named = [d for d in documents if mentions(base_title(d["title"]), said)]
    their_text = " ".join(normalize_title(d["text"]) for d in named)
    linked = [d for d in documents if d not in named and mentions(base_title(d["title"]), their_text)]
    return [*named, *linked, *(d for d in documents if d not in named and d not in linked)]


def passages_read(documents: list[dict], budget: int = PASSAGE_BUDGET, claim: str | None = None) -> list[dict]:
    """The documents read, in chain order for `claim` (selection order without one): each whole (up to
    PASSAGE_CAP), skipping one that would overrun the budget so a shorter one after it still fits; always at least
    the first."""
    chosen, used = [], 0
    for doc in chain_order(claim, documents) if claim else documents:
        text = clipped(doc["text"])
        size = len(doc["title"]) + len(text) + 4
        if chosen and used + size > budget:
            continue
        chosen.append({"title": doc["title"], "text": text})
        used += size
    return chosen


def passage_messages(claim: str, passages: list[dict]) -> list[dict]:
    """The chat the model reads: instructions, the numbered-by-title documents and the claim."""
    documents = "\n".join(f"[{p['title']}] {p['text']}" for p in passages)
    user = f"Documents:\n{documents}\nClaim: {claim}\n{PASSAGES_QUESTION}"
    return [{"role": "system", "content": PASSAGES_SYSTEM}, {"role": "user", "content": user}]


READING = "chain-order-1"  # how the passages read are chosen and ordered (chain_order); part of the prompt's version


def prompt_version(blocks: int = READ_BLOCKS) -> str:
    """A short hash of the prompt's fixed parts, budget, reading rule and the layer read: a head is only valid for the
    reading it was trained on. (A full-depth reading hashes as it did before layers could be chosen.)"""
    fixed = f"{PASSAGES_SYSTEM}\n{PASSAGES_QUESTION}\n{PASSAGE_BUDGET}\n{PASSAGE_CAP}\n{READING}"
    if blocks != MODEL_BLOCKS:
        fixed += f"\nblocks {blocks}"
    return hashlib.sha256(fixed.encode()).hexdigest()[:12]


def hidden_state(engine, messages: list[dict], blocks: int = READ_BLOCKS) -> np.ndarray:
    """The state the head reads: after `blocks` blocks of the local model (`engine`:
    claimhop.lm.local_engine.LlamaCppEngine), at the position where its answer would start."""
    return engine.last_hidden_state(messages, blocks=None if blocks == MODEL_BLOCKS else blocks)


def read_passages(engine, claim: str, documents: list[dict], budget: int = PASSAGE_BUDGET,
                  blocks: int = READ_BLOCKS) -> Reading:
    """One pass of the local model over the claim and the passages that fit the budget."""
    passages = passages_read(documents, budget, claim)
    state = hidden_state(engine, passage_messages(claim, passages), blocks)
    return Reading(state=state, titles=[p["title"] for p in passages])
