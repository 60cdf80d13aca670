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

from claimhop.program import PASSAGES_QUESTION, PASSAGES_SYSTEM
from claimhop.sentences import split_sentences

# Characters of passages read per claim. 2,400 holds the first 4-6 selected passages (median passage ~460 chars);
# on the 200 HotpotQA questions' selections it holds every gold passage for 0.64 of them (0.74 at 3,000, 0.55 at
# 2,000), and the prompt stays ~600 tokens (~8 s on 2 cores).
PASSAGE_BUDGET = 2400
PASSAGE_CAP = 1000  # a longer passage is cut at a sentence end, so one article cannot fill the budget alone


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


def passages_read(documents: list[dict], budget: int = PASSAGE_BUDGET) -> list[dict]:
    """The documents read, in selection order: each whole (up to PASSAGE_CAP), skipping one that would overrun the
    budget so a shorter one after it still fits; always at least the first."""
    chosen, used = [], 0
    for doc in documents:
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


def prompt_version() -> str:
    """A short hash of the prompt's fixed parts and budget: a head is only valid for the prompt it was trained on."""
    fixed = f"{PASSAGES_SYSTEM}\n{PASSAGES_QUESTION}\n{PASSAGE_BUDGET}\n{PASSAGE_CAP}"
    return hashlib.sha256(fixed.encode()).hexdigest()[:12]


def read_passages(engine, claim: str, documents: list[dict], budget: int = PASSAGE_BUDGET) -> Reading:
    """One pass of the local model (`engine`: claimhop.lm.local_engine.LlamaCppEngine) over the claim and the
    passages that fit the budget."""
    passages = passages_read(documents, budget)
    state = engine.last_hidden_state(passage_messages(claim, passages))
    return Reading(state=state, titles=[p["title"] for p in passages])
