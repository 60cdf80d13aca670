"""Pick the sentences of the selected documents that bear on the claim: embedding similarity plus entity overlap,
taken in turn for the claim and each sub-question so that every part of the claim gets its evidence."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from claimhop.entities.matching import mentions
from claimhop.retrieval.encoder import encode
from claimhop.retrieval.titles import normalize_title
from claimhop.sentences import split_sentences
from state.instructions import is_instruction

ENTITY_WEIGHT = 0.1  # a claim entity a sentence names adds a tenth of a cosine: it breaks ties, never outweighs meaning
PER_DOCUMENT = 2  # sentences one document may give: one document must not fill the single verifier's evidence


def rank_evidence(
    claim: str, documents: list[dict], entities: list[str], limit: int,
    questions: list[str] | None = None, per_document: int = PER_DOCUMENT,
    admit: Callable[[str, str], bool] | None = None,
) -> list[dict]:
    """Top sentences as {title, sentence, score}: the best for the claim, then for each sub-question, in turn;
    at most `per_document` from one document, unless there are too few documents to fill `limit` that way (with
    a claim's two gold paragraphs, one sentence each would keep only their first sentences, and a fact is often
    stated later: "He won gold medal in the 1970 Asian Games"). `admit(title, sentence)`, when given, decides
    which sentences the sub-questions may add; the claim's own ranking takes any."""
    per_document = max(per_document, -(-limit // max(1, len(documents))))
    pool: list[tuple[str, str]] = [
        (doc["title"], sentence) for doc in documents for sentence in split_sentences(doc["text"])
        if not is_instruction(sentence)  # a document's instructions to the checker are never evidence
    ]
    if not pool:
        return []
    queries = [claim, *(questions or [])]
    vectors = encode(queries + [sentence for _, sentence in pool])  # the title would outweigh what is said
    similarity = vectors[len(queries):] @ vectors[: len(queries)].T  # (sentences, queries)
    overlap = np.array([
        sum(1 for e in entities if mentions(e, normalize_title(f"{title} {sentence}"))) for title, sentence in pool
    ])
    scores = similarity + ENTITY_WEIGHT * overlap[:, None]
    orders = [list(np.argsort(-scores[:, q])) for q in range(len(queries))]
    if admit is not None:
        admitted = [admit(title, sentence) for title, sentence in pool]
        orders = [orders[0], *([i for i in order if admitted[i]] for order in orders[1:])]
    chosen: list[dict] = []
    taken: set[int] = set()
    per_title: dict[str, int] = {}
    while len(chosen) < min(limit, len(pool)) and any(orders):
        for order in orders:
            while order:
                index = order.pop(0)
                title, sentence = pool[index]
                if index in taken or per_title.get(title, 0) >= per_document:
                    continue
                taken.add(index)
                per_title[title] = per_title.get(title, 0) + 1
                chosen.append({"title": title, "sentence": sentence, "score": round(float(scores[index].max()), 4)})
                break
            if len(chosen) >= limit:
                break
    return chosen
