"""A follow-up question on a thread that already checked a claim ("why did you drop X?", "what says so?"),
answered from the thread's checkpointed state without searching again (node `follow_up`): about a document it
names, from the recorded hops and scores with no model call (claimhop.program.select.provenance); else the model on the
cited evidence, its invented citations removed."""

from __future__ import annotations

from dataclasses import dataclass

import dspy

from claimhop.program.built import Built
from claimhop.program.citations import cited_numbers, drop_invalid_citations
from claimhop.program.explain import numbered, references_block
from claimhop.program.runtime import call_lm, calls_made
from claimhop.program.select.provenance import (
    explain_document,
    mentioned_title,
    named_phrase,
)
from claimhop.signatures import AnswerFollowUp
from state.context import Context
from state.schema import Evidence, State


@dataclass
class FollowUpAnswer:
    """The answer, why the model step fell back (if it did) and the calls made."""

    text: str
    degraded: str | None = None
    calls: int = 0


def grounded_answer(text: str, evidence: list[Evidence]) -> str:
    """The LM's answer with invented citations removed, followed by the references it cites."""
    text = " ".join(drop_invalid_citations(text, len(evidence)).split())
    cited = sorted(set(cited_numbers(text)))
    refs = [e for e in evidence if e["ref"] in cited]
    return text + ("\n\nReferences:\n\n" + references_block(refs) if refs else "")


def fallback_answer(state: State) -> str:
    """The earlier result restated, when the model gives no usable answer."""
    evidence = state.get("evidence", [])
    return (f"I can only restate the earlier result: the verdict was {state.get('verdict', 'INSUFFICIENT_INFO')}"
            + (", resting on:\n\n" + references_block(evidence) if evidence else ", with no evidence sentences."))


class FollowUp(dspy.Module):
    """Answer a question about a finished check from its recorded state, citing [n]."""

    def __init__(self, settings: Context, built: Built) -> None:
        super().__init__()
        self.settings, self.built = settings, built
        self.predict = dspy.Predict(AnswerFollowUp)

    def about_a_document(self, question: str, state: State) -> str | None:
        """The provenance answer when the question names a document (retrieved or not), else None. Scores are
        recomputed the way selection made them (with the corpus's links, for its chains)."""
        ctx, engine = self.settings, self.built.engine
        links = self.built.links if ctx.tuning.chain_weight > 0 else None
        title = mentioned_title(question, list(state.get("candidates", {})))  # every hop's titles are candidates
        if title:
            return explain_document(title, state, ctx, True, links)
        phrase = named_phrase(question)
        if not phrase:
            return None
        hits = engine.by_title(phrase, limit=1)
        if hits:
            return explain_document(hits[0].title, state, ctx, True, links)
        return explain_document(phrase, state, ctx, False, links)

    def forward(self, question: str, state: State) -> FollowUpAnswer:
        ctx = self.settings
        answer = self.about_a_document(question, state)
        if answer is not None:
            return FollowUpAnswer(answer)
        evidence = state.get("evidence", [])

        def ask() -> str:
            out = self.predict(question=question, claim=state["claim"], verdict=state.get("verdict", ""),
                               evidence=numbered(evidence))
            return str(out.answer or "")

        text, degraded = call_lm(ctx, "follow_up", ask, str, usable=lambda t: bool(t.strip()))
        return FollowUpAnswer(grounded_answer(text, evidence) if text.strip() else fallback_answer(state), degraded,
                              calls_made(ctx, "follow_up"))
