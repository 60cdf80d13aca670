"""For each fact of a claim, the sentence of the passages read that states it: what the answer quotes.

A sentence is scored by its meaning (embedding similarity to the fact) and by the fact's own words it contains,
each word weighted by how rare it is among the sentences read, with the sentence's document title counted as part
of it ("She is an American singer" in Cherie Currie's article names Cherie Currie). Rare words decide between
sentences that share the claim's names: for "The Runaways' lead singer is an American musician", "musician" and
"singer" pick Cherie Currie's sentence over the film's "2010 American drama film about the Runaways". No model call."""

from __future__ import annotations

import math
import re

import numpy as np

from claimhop.entities.matching import mentions
from claimhop.program.verify.direction import opposite
from claimhop.retrieval.encoder import encode
from claimhop.retrieval.titles import normalize_title
from claimhop.sentences import split_sentences
from state.instructions import is_instruction

WORD_WEIGHT = 0.5  # the fact's rarity-weighted words a sentence shares, at half a cosine: names and numbers count
SECOND_GAIN = 0.25  # a second quote only when it holds a quarter of the fact's words the first lacks
SECOND_TIE_BREAK = 0.01  # ... its own score weighs a hundredth: it decides only between seconds adding about as much
MIN_WORD_CHARS = 3  # a word shorter than this ("us", "uk") counts for no fact; both not tuned (f791f76)
# A quote shown as stating its fact must hold at least half of the fact's (rarity-weighted) words, its title
# counted, across the fact's quotes, and point no other way (claimhop.program.verify.direction); else it is only
# the closest sentence read. Not tuned: half is where a sentence says more of the fact than it leaves out.
STATES_SHARE = 0.5
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "the a an and or of in on at to for by with from as is was were are be been being that which who whom whose "
    "this these those it its his her their they he she also both not but than then there into about after before "
    "film one two".split()
)


def words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) >= MIN_WORD_CHARS and w not in _STOP}


def candidate_sentences(passages: list[dict]) -> list[tuple[str, str]]:
    """(title, sentence) for every sentence of the passages read, in reading order."""
    return [(p["title"], s) for p in passages for s in split_sentences(p["text"]) if not is_instruction(s)]


def quotes_for(facts: list[str], passages: list[dict]) -> list[list[dict]]:
    """For each fact, the sentences that state it, as {title, sentence, score}: the best-scored one, and a second
    when it holds at least SECOND_GAIN of the fact's (rarity-weighted) words the first lacks, so a fact about
    a described subject quotes both the sentence naming who it is and the one saying what is claimed of them
    ("Currie was the lead vocalist of the Runaways" + "Cherie Ann Currie ... is an American musician"). The second
    must come from the first's article or from an article the first names. Each quote also says whether it
    `states` the fact (enough of its words, the same direction) or, with enough of its words, points the
    `opposite` way ("correlated with poor sleep" for "associated with better sleep"), so the answer never
    shows a refuting sentence as support."""
    pool = candidate_sentences(passages)
    if not pool or not facts:
        return [[] for _ in facts]
    vectors = encode([*facts, *[s for _, s in pool]])
    similarity = vectors[len(facts):] @ vectors[: len(facts)].T  # (sentences, facts)
    bags = [words(f"{title} {sentence}") for title, sentence in pool]
    df: dict[str, int] = {}
    for bag in bags:
        for word in bag:
            df[word] = df.get(word, 0) + 1
    chosen = []
    for f, fact in enumerate(facts):
        wanted = {w: math.log(1 + len(pool) / df[w]) for w in words(fact) if w in df}
        total = sum(wanted.values()) or 1.0
        overlap = np.array([sum(v for w, v in wanted.items() if w in bag) / total for bag in bags])
        scores = similarity[:, f] + WORD_WEIGHT * overlap
        best = int(np.argmax(scores))
        picked = [best]
        missing = {w: v for w, v in wanted.items() if w not in bags[best]}
        gains = np.array([sum(v for w, v in missing.items() if w in bag) / total for bag in bags])
        gains[best] = 0.0
        first_title, first_text = pool[best][0], normalize_title(f"{pool[best][0]} {pool[best][1]}")
        for i, (title, _) in enumerate(pool):  # the second continues the first's subject: its article, or one it names
            if title != first_title and not mentions(title, first_text):
                gains[i] = 0.0
        second = int(np.argmax(gains + SECOND_TIE_BREAK * scores))
        if gains[second] >= SECOND_GAIN:
            picked.append(second)
        enough = sum(v for w, v in wanted.items() if any(w in bags[i] for i in picked)) / total >= STATES_SHARE
        turned = {i: opposite(fact, pool[i][1]) for i in picked}
        chosen.append([{"title": pool[i][0], "sentence": pool[i][1], "score": round(float(scores[i]), 4),
                        "states": enough and not turned[i], "opposite": enough and turned[i]}
                       for i in sorted(picked)])
    return chosen
