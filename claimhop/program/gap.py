"""Stage 3b, the gap loop (node `gap_loop`, one round a run of the node; graph/routers.py decides whether to go
round again): shown what was found, the model says what is still missing and writes queries for it, and those
are searched. A query that repeats an earlier one, or names a document already found, is dropped."""

from __future__ import annotations

from dataclasses import dataclass, field

import dspy

from claimhop.entities.matching import is_about
from claimhop.program.built import Built
from claimhop.program.found import Found
from claimhop.program.outputs import clean_list
from claimhop.program.runtime import call_lm, calls_made
from claimhop.program.search.stage import search_round
from claimhop.signatures import MAX_REPLY_ITEMS, GapAnalysis
from state.context import Context
from state.schema import Candidate, Hop

SHOWN_DOCS = 8  # the best candidates shown to the model: enough for a 4-hop chain within a small model's context
PROMPT_SNIPPET_CHARS = 90  # of each, its title and first ~15 words (what the article is about)


def found_so_far(candidates: dict[str, Candidate]) -> list[str]:
    """The best candidates as 'title: first words', short enough for a small model's context."""
    best = sorted(candidates.values(), key=lambda c: -c["retrieval_score"])[:SHOWN_DOCS]
    return [f"{c['title']}: {c['text'][:PROMPT_SNIPPET_CHARS]}" for c in best]


@dataclass
class GapRoundResult(Found):
    """One round: its number, what the model said is missing, the names and queries searched, whether it said
    nothing is missing, why it fell back and the calls made."""

    iteration: int = 0
    missing: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)
    complete: bool = True
    degraded: str | None = None
    calls: int = 0


class GapRound(dspy.Module):
    """One round of the gap loop on the run's engine."""

    def __init__(self, settings: Context, built: Built) -> None:
        super().__init__()
        self.settings, self.built = settings, built
        self.predict = dspy.Predict(GapAnalysis)

    def forward(self, claim: str, candidates: dict[str, Candidate], hops: list[Hop], iteration: int) -> GapRoundResult:
        ctx = self.settings

        def ask() -> dspy.Prediction:
            out = self.predict(claim=claim, found=found_so_far(candidates))
            # the missing facts are kept for the trace (they change no search); of the queries, the knob
            # loop_queries keeps the first few that are new
            return dspy.Prediction(missing=clean_list(out.missing, MAX_REPLY_ITEMS),
                                   entities=clean_list(out.entities, MAX_REPLY_ITEMS),
                                   queries=clean_list(out.queries, MAX_REPLY_ITEMS), complete=bool(out.complete))

        def nothing_asked() -> dspy.Prediction:  # the model failed: stop looping
            return dspy.Prediction(missing=[], entities=[], queries=[], complete=True)

        out, degraded = call_lm(ctx, "gap_loop", ask, nothing_asked)
        asked = {h["query"].casefold() for h in hops}
        queries = [q for q in out.queries if q.casefold() not in asked and not any(is_about(q, t) for t in candidates)]
        queries = queries[: ctx.tuning.loop_queries]
        found = search_round(self.built.engine, queries, f"gap_loop_{iteration + 1}", None, ctx.loop_k,
                             ctx.retrieval_mode)
        return GapRoundResult(found.candidates, found.hops, iteration=iteration + 1, missing=out.missing,
                              entities=out.entities, queries=queries, complete=out.complete, degraded=degraded,
                              calls=calls_made(ctx, "gap_loop"))
