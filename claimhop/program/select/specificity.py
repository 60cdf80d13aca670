"""How common a name is in the collection searched: selection weighs a name that few documents hold more than one
that much of the collection mentions (`name_specificity`). A Wikipedia claim's bridge names the next article of a
chain ("Buddy Baker"); on a topic's documents the bridge and the links look up what many of them mention ("United
States", "December"), and their mentions pushed the claim's own evidence out of the first 5."""

from __future__ import annotations

import math

from claimhop.retrieval.lexical import tokens_of


def shares(names: list[str], engine) -> dict[str, float]:
    """Each name's share of the collection: the documents holding every BM25 word of it (at least as many as hold
    the name) over all documents; infinite for a name with no BM25 word (stop words or single letters: "For", "U.S"),
    which weighs nothing. Empty for an engine that keeps no term statistics (an external retriever): every name then counts in
    full."""
    if not names or not getattr(engine, "has_term_statistics", lambda: False)():
        return {}
    words = tokens_of(names)
    held, size = engine.holding_all([w for w in words if w])
    counts = iter(held)
    return {name: math.inf if not w else next(counts) / max(size, 1) for name, w in zip(names, words)}


def name_weights(names: list[str], engine, cut: float) -> dict[str, float]:
    """Each name's weight in selection: 1 when at most `cut` of the collection holds it, `cut` over its share
    when more does (a name ten times as common as the cut weighs 0.1; a name of stop words only, 0); none when
    `cut` is 0 (off)."""
    if cut <= 0:
        return {}
    return {name: min(1.0, cut / share) if share > 0 else 1.0 for name, share in shares(names, engine).items()}
