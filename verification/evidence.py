"""Pick the sentences of the selected documents that bear on the claim: embedding similarity plus entity overlap."""

from __future__ import annotations

import numpy as np

from entities.matching import mentions
from retrieval.encoder import encode
from retrieval.titles import normalize_title
from verification.sentences import split_sentences

ENTITY_WEIGHT = 0.1
PER_DOCUMENT = 2


def rank_evidence(
    claim: str, documents: list[dict], entities: list[str], limit: int, per_document: int = PER_DOCUMENT
) -> list[dict]:
    """Top sentences as {title, sentence, score}; at most `per_document` from one document, best first."""
    pool: list[tuple[str, str]] = [
        (doc["title"], sentence) for doc in documents for sentence in split_sentences(doc["text"])
    ]
    if not pool:
        return []
    vectors = encode([claim] + [f"{title}: {sentence}" for title, sentence in pool])
    similarity = vectors[1:] @ vectors[0]
    scores = []
    for (title, sentence), sim in zip(pool, similarity):
        normalized = normalize_title(f"{title} {sentence}")
        overlap = sum(1 for e in entities if mentions(e, normalized))
        scores.append(float(sim) + ENTITY_WEIGHT * overlap)
    chosen: list[dict] = []
    per_title: dict[str, int] = {}
    for index in np.argsort(scores)[::-1]:
        title, sentence = pool[index]
        if per_title.get(title, 0) >= per_document:
            continue
        per_title[title] = per_title.get(title, 0) + 1
        chosen.append({"title": title, "sentence": sentence, "score": round(scores[index], 4)})
        if len(chosen) >= limit:
            break
    return chosen
