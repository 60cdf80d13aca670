"""How much of a fact its evidence covers, in [0, 1]: the share of the fact's names and numbers that the
evidence contains, and how close the best evidence sentence is in meaning (cosine, clipped at 0), averaged.
An entailment label on evidence that names none of the fact's entities is weak; this number says so."""

from __future__ import annotations

import re

from claimhop.entities.matching import mentions
from claimhop.retrieval.titles import normalize_title

NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def numbers_in(text: str) -> set[str]:
    return {n.replace(",", "") for n in NUMBER.findall(text)}


def alignment_score(fact: str, entities: list[str], evidence: list[dict], similarity: float) -> float:
    """`evidence`: [{title, sentence}]; `similarity`: the best cosine between the fact and an evidence sentence."""
    if not evidence:
        return 0.0
    text = " ".join(f"{e['title']} {e['sentence']}" for e in evidence)
    parts = [max(0.0, min(1.0, similarity))]
    if entities:
        normalized = normalize_title(text)
        parts.append(sum(mentions(e, normalized) for e in entities) / len(entities))
    wanted = numbers_in(fact)
    if wanted:
        parts.append(len(wanted & numbers_in(text)) / len(wanted))
    return round(sum(parts) / len(parts), 4)
