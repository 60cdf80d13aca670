"""Pseudo-relevance feedback for the claim's own search (`claim_feedback`): the claim's first documents say which
words the claim's evidence uses, and a second search with those words finds evidence the claim's own wording misses.

RM3-style, as classic retrieval does it: the `terms` words that weigh most in the first `FIRST` documents (their
share of each document's words times the collection's inverse document frequency, with BM25's own stemmer and stop
words) are added to the claim, and the expanded search's hybrid ranking is fused with the claim's own (reciprocal
rank, equal weights). The claim search's first `KEEP` documents stay where they are, so the first few, which the
verifier reads, are what one plain search gives; the feedback only reaches deeper. Chosen and measured in
benchmarks.lab.feedback_search (docs/results/every-set/feedback-search)."""

from __future__ import annotations

import math
from collections import Counter

from claimhop.retrieval.fusion import DEFAULT_FUSION, reciprocal_rank_fusion
from claimhop.retrieval.lexical import tokens_of
from claimhop.retrieval.service import Hit

FIRST = 3  # feedback documents: chosen over 3 and 5 with 5, 10 and 20 words (leave one set out, all five sets)
KEEP = 5  # the first documents, which the verifier reads first, are the plain search's: feedback reaches deeper


def feedback_words(engine, claim: str, first: list[Hit], terms: int, first_k: int = FIRST) -> list[str]:
    """The `terms` stemmed words of the first `first_k` documents that weigh most and the claim does not have."""
    documents = tokens_of([h.text for h in first[:first_k]])
    counts = [Counter(words) for words in documents if words]
    frequencies, size = engine.document_frequencies(sorted({w for c in counts for w in c}))
    weight: Counter = Counter()
    for count in counts:
        total = sum(count.values())
        for word, n in count.items():
            if frequencies.get(word):
                weight[word] += n / total * math.log(size / frequencies[word])
    have = set(tokens_of([claim])[0])
    return [w for w, _ in weight.most_common() if w not in have][:terms]


def with_feedback(engine, claim: str, first: list[Hit], terms: int, first_k: int = FIRST, keep: int = KEEP
                  ) -> list[Hit]:
    """The claim search's ranking with feedback: its first `keep` in place, then the rest of its own and of the
    expanded search's, fused; as many documents as `first` has."""
    words = feedback_words(engine, claim, first, terms, first_k)
    if not words:
        return first
    again = engine.search_fused(claim + " " + " ".join(words), len(first))
    by_id = {h.doc_id: h for h in [*again, *first]}
    fused = [i for i, _ in reciprocal_rank_fusion([[h.doc_id for h in first], [h.doc_id for h in again]],
                                                  [1.0, 1.0], DEFAULT_FUSION.k)]
    kept = [h.doc_id for h in first[:keep]]
    order = kept + [i for i in fused if i not in kept]
    return [by_id[i] for i in order[: len(first)]]
