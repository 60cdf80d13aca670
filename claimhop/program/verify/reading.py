"""The passage verifier's reading: the claim and whole passages of the selected documents, in the order the reading
rule gives, in one prompt, read by the local model in one pass. What comes back is the model's hidden state where its
yes/no answer would start, after as many blocks as the head was trained on (21 of 28 by default: a cut copy of the
model); a yes/no readout of it (the output layer's "Yes"/"No" rows, shipped with the head) and the whole state feed
the learned head (claimhop.program.verify.head).

Why whole passages: judged sentence by sentence, a small model loses who "she" or "the film" is and cannot join
two documents; reading the passages together it does far better (docs/verification.md)."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass, replace

import numpy as np

from claimhop.entities.matching import mentions
from claimhop.program.verify.coverage import name_folded
from claimhop.retrieval.titles import base_title, normalize_title
from claimhop.sentences import split_sentences, stems
from claimhop.signatures import (
    PASSAGES_QUESTION,
    THREE_WAYS_QUESTION,
    JudgeClaimOnPassages,
    JudgeClaimThreeWays,
    instructions,
)

PASSAGES_SYSTEM = instructions(JudgeClaimOnPassages)  # the system message of the one pass the head reads
THREE_WAYS_SYSTEM = instructions(JudgeClaimThreeWays)  # a served model's verdict prompt (claimhop.program.verify.served)

# A reading rule's budget when none is named, in characters of passages: 2,400 holds the first 4-6 selected passages
# (median passage ~460 chars); heads trained before their provenance recorded a budget read it, and the synthetic
# claims' evidence is sized to it. A run reads the budget its head names (VerdictHead.reading), nothing else.
RULE_BUDGET = 2400
MIN_BUDGET, MAX_BUDGET = 500, 12000  # a passage's lead at least; at most what a 4,096-token context holds
PASSAGE_CAP = 1000  # a longer passage is cut at a sentence end, so one article cannot fill the budget alone
MODEL_BLOCKS = 28  # transformer blocks of the bundled model


@dataclass(frozen=True)
class ReadingRule:
    """How the verifier reads: which selected documents, in what order, how much of each, and after how many of the
    model's blocks the state is taken. A head is valid only for the rule it was trained on (its provenance names it),
    so the run reads the way its head learned (`VerdictHead.reading`)."""

    name: str
    cap: int = PASSAGE_CAP  # characters of a passage on the claim's chain, cut at a sentence end
    rest_cap: int | None = None  # a lower cap for documents off the chain (neither named nor linked)
    fold: bool = False  # names match across accents and possessives ("Gisele" names "Gisele", "Swint's" "Swint")
    one_per_base: bool = False  # of named documents sharing a base title, only the one the claim picks stays named
    budget: int = RULE_BUDGET
    blocks: int = MODEL_BLOCKS  # the state is read after this many blocks (claimhop.lm.cut_model)
    # Reading without titles: a passage longer than its cap is read as its first sentence and the sentences with
    # most of the claim's words (in the passage's order), not its lead alone; and when the claim names none of the
    # documents (a scientific claim names no paper), each passage gets at most `unnamed_cap` characters, so more
    # of the best-ranked documents are read.
    relevant: bool = False
    unnamed_cap: int | None = None

    def version(self) -> str:
        """A short hash of the prompt's fixed parts and this rule (chain-order-1 at full depth hashes as it did
        before rules had names, so the heads trained then still load)."""
        fixed = f"{PASSAGES_SYSTEM}\n{PASSAGES_QUESTION}\n{self.budget}\n{self.cap}\n{self.name}"
        if (self.rest_cap, self.fold, self.one_per_base) != (None, False, False):
            fixed += f"\nrest {self.rest_cap} fold {self.fold} one per base {self.one_per_base}"
        if self.blocks != MODEL_BLOCKS:
            fixed += f"\nblocks {self.blocks}"
        if self.relevant or self.unnamed_cap:
            fixed += f"\nrelevant {self.relevant} unnamed cap {self.unnamed_cap}"
        return hashlib.sha256(fixed.encode()).hexdigest()[:12]


READINGS = {
    # Whole passages up to 1,000 characters, those the claim names first, then those their texts name.
    "chain-order-1": ReadingRule("chain-order-1"),
    # Chosen on HotpotQA by `python -m benchmarks.lab.reading_coverage --grid` (docs/results/verifier/
    # reading-coverage-grid.md): chain passages cut at 600, the rest to their 300-character lead, names matched
    # without accents or possessives, one document per named base title. Every gold passage and the answer are read
    # for 0.911 of HotpotQA questions at 2,400 characters (0.812 with chain-order-1).
    "chain-order-2": ReadingRule("chain-order-2", cap=600, rest_cap=300, fold=True, one_per_base=True),
    # chain-order-1 that also fits documents without names (issue 55): long passages read by the claim's words,
    # and 600 characters a passage when the claim names no document, so about five abstracts fit in 3,000.
    "chain-order-1-relevant": ReadingRule("chain-order-1-relevant", relevant=True, unnamed_cap=600),
}
# What a new head is trained to read when `claimhop train-verifier` is told nothing else (NEW_HEAD_*); a run never
# reads these: it reads as its head was trained.
NEW_HEAD_READING = "chain-order-1"
# The default layer for training: chosen by `python -m benchmarks.lab.layer_sweep` on synthetic claims made from HotpotQA
# questions (docs/verification.md).
NEW_HEAD_BLOCKS = 21
# The default budget for training: 3,000 characters, chosen by a rule written before the read (commit 7ac72ac) on
# HotpotQA selections (every gold passage read for 0.84 of questions, 0.77 at 2,400) and synthetic claims; one
# pass costs 1.24x (benchmarks.lab.budget_cost).
NEW_HEAD_BUDGET = 3000


def reading_rule(name: str = NEW_HEAD_READING, blocks: int = NEW_HEAD_BLOCKS, budget: int = NEW_HEAD_BUDGET
                 ) -> ReadingRule:
    """The named rule, read after `blocks` blocks, with `budget` characters of passages (by default, what a new head
    is trained to read); a clear error for an unknown name or a budget that cannot hold a passage."""
    if name not in READINGS:
        raise ValueError(f"unknown reading {name!r}: one of {', '.join(READINGS)}")
    if not 1 <= blocks <= MODEL_BLOCKS:
        raise ValueError(f"blocks must be 1-{MODEL_BLOCKS}, not {blocks}")
    if not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise ValueError(f"the passage budget must be {MIN_BUDGET}-{MAX_BUDGET} characters, not {budget}")
    rule = READINGS[name]
    return replace(rule, blocks=blocks, budget=budget)


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


def relevant_clip(text: str, claim: str, limit: int) -> str:
    """The passage's first sentence and then the sentences sharing most of the claim's words, as many as fit in
    `limit` characters, in the passage's own order (the lead alone when no later sentence shares a word)."""
    if len(text) <= limit:
        return text
    sentences = split_sentences(text)
    if len(sentences) < 2:
        return clipped(text, limit)
    wanted = stems(claim)
    order = sorted(range(1, len(sentences)), key=lambda i: (-len(wanted & stems(sentences[i])), i))
    kept, length = {0}, len(sentences[0])
    for i in order:
        if not wanted & stems(sentences[i]):
            break
        if length + len(sentences[i]) + 1 <= limit:
            kept.add(i)
            length += len(sentences[i]) + 1
    return " ".join(sentences[i] for i in sorted(kept))[:limit]


def chain_groups(claim: str, documents: list[dict], rule: ReadingRule) -> tuple[list[dict], list[dict], list[dict]]:
    """(named by the claim, named by their texts, the rest), each in selection order: the order a reader follows
    the claim. With `rule.one_per_base`, of several named documents sharing the base title the claim names ("The
    Apprentice (U.S. season 8)", "... season 13"), those whose whole title the claim names stay named, else the
    first selected; the others go to the rest."""
    norm = name_folded if rule.fold else normalize_title
    name = name_folded if rule.fold else (lambda title: title)
    said = norm(claim)
    named = [d for d in documents if mentions(name(base_title(d["title"])), said)]
    if rule.one_per_base:
        by_base: dict[str, list[dict]] = defaultdict(list)
        for d in named:
            by_base[norm(base_title(d["title"]))].append(d)
        keep = set()
        for group in by_base.values():
            whole = [d for d in group if mentions(name(d["title"]), said)]
            keep |= {d["title"] for d in (whole or group[:1])}
        named = [d for d in named if d["title"] in keep]
    seen = {d["title"] for d in named}
    their_text = " ".join(norm(d["text"]) for d in named)
    linked = [d for d in documents if d["title"] not in seen and mentions(name(base_title(d["title"])), their_text)]
    seen |= {d["title"] for d in linked}
    return named, linked, [d for d in documents if d["title"] not in seen]


def chain_order(claim: str, documents: list[dict], rule: ReadingRule) -> list[dict]:
    """The documents in chain order (chain_groups). Measured on the 200 HotpotQA questions' selections, passages
    read within 2,400 characters hold every gold passage for 0.77 of them in this order, 0.68 in selection order
    (0.65 ordered by embedding similarity to the question)."""
    return [d for group in chain_groups(claim, documents, rule) for d in group]


def passages_read(documents: list[dict], claim: str | None, rule: ReadingRule) -> list[dict]:
    """The documents read, in chain order for `claim` (selection order without one): each up to its cap (the rule's
    lower cap off the chain), skipping one that would overrun the budget so a shorter one after it still fits;
    always at least the first."""
    if claim:
        named, linked, rest = chain_groups(claim, documents, rule)
        rest_cap = rule.rest_cap or rule.cap
        if not named and not linked and rule.unnamed_cap:
            rest_cap = rule.unnamed_cap
        ordered = [(d, rule.cap) for d in [*named, *linked]] + [(d, rest_cap) for d in rest]
    else:
        ordered = [(d, rule.cap) for d in documents]
    chosen, used = [], 0
    for doc, cap in ordered:
        limit = min(cap, rule.cap)
        text = relevant_clip(doc["text"], claim, limit) if rule.relevant and claim else clipped(doc["text"], limit)
        size = len(doc["title"]) + len(text) + 4
        if chosen and used + size > rule.budget:
            continue
        chosen.append({"title": doc["title"], "text": text})
        used += size
    return chosen


def as_documents(passages: list[dict]) -> list[str]:
    """The passages as the prompt lists them: '[title] paragraph'."""
    return [f"[{p['title']}] {p['text']}" for p in passages]


def documents_prompt(claim: str, documents: list[str], question: str = PASSAGES_QUESTION) -> str:
    """The user message: the documents ('[title] paragraph'), the claim and the question."""
    listed = "\n".join(documents)
    return f"Documents:\n{listed}\nClaim: {claim}\n{question}"


def passage_messages(claim: str, passages: list[dict]) -> list[dict]:
    """The chat the model reads: instructions, the numbered-by-title documents and the claim."""
    return [{"role": "system", "content": PASSAGES_SYSTEM},
            {"role": "user", "content": documents_prompt(claim, as_documents(passages))}]


def three_way_messages(claim: str, passages: list[dict]) -> list[dict]:
    """The three-way question (SUPPORTED, CONTRADICTED or INSUFFICIENT_INFO: what a served model is asked) over the
    same passages in the same order: the support question's state tells contradicted from not-enough-info claims
    poorly (issue 69), and this prompt names what makes a claim false (another number, the opposite direction)."""
    return [{"role": "system", "content": THREE_WAYS_SYSTEM},
            {"role": "user", "content": documents_prompt(claim, as_documents(passages), THREE_WAYS_QUESTION)}]


def hidden_state(engine, messages: list[dict], blocks: int) -> np.ndarray:
    """The state the head reads: after `blocks` blocks of the local model (`engine`:
    claimhop.lm.local_engine.LlamaCppEngine), at the position where its answer would start."""
    return engine.last_hidden_state(messages, blocks=None if blocks == MODEL_BLOCKS else blocks)


def read_passages(engine, claim: str, documents: list[dict], rule: ReadingRule) -> Reading:
    """One pass of the local model over the claim and the passages the rule reads."""
    passages = passages_read(documents, claim, rule)
    state = hidden_state(engine, passage_messages(claim, passages), rule.blocks)
    return Reading(state=state, titles=[p["title"] for p in passages])
