"""What every step that finds documents returns (search, the bridge, the gap loop, the links): its documents as
candidates, each with the step that found it and a score from its rank, and the hops that found them."""

from __future__ import annotations

from dataclasses import dataclass

from claimhop.retrieval.service import Hit
from state.schema import Candidate, Hop

# Each time a hop finds a document it earns 1/(HOP_RANK_K + rank), so documents many hops agree on rise; 60 is
# reciprocal rank fusion's usual k (Cormack et al. 2009). Not the `rrf_k` knob, which fuses BM25 with dense search.
HOP_RANK_K = 60


@dataclass
class Found:
    """A search's documents as candidates (title -> candidate) and the hops that found them."""

    candidates: dict[str, Candidate]
    hops: list[Hop]


def candidate(hit: Hit, rank: int, step: str) -> Candidate:
    """A search hit as a candidate found by `step` at `rank`."""
    found: Candidate = {
        "doc_id": hit.doc_id,
        "title": hit.title,
        "text": hit.text,
        "retrieval_score": 1.0 / (HOP_RANK_K + rank),
        "found_by": [step],
    }
    if hit.source:  # a document of the user's own collection: the file it came from goes into the citation
        found["source"] = hit.source
    return found
