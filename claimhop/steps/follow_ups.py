"""Answering a follow-up question about a finished check: about one document, or from the cited evidence."""

from __future__ import annotations

from claimhop.steps.answer import references_block
from claimhop.steps.common import call_lm, calls_made, retriever_for
from claimhop.steps.provenance import explain_document, mentioned_title, named_phrase
from claimhop.steps.bridging import corpus_links
from claimhop.verification.citations import cited_numbers, drop_invalid_citations
from state.context import Context
from state.schema import Evidence, State


def about_a_document(question: str, state: State, ctx: Context) -> str | None:
    """The provenance answer when the question names a document (retrieved or not), else None. Scores are
    recomputed the way selection made them (with the corpus's links, for its chains)."""
    retriever = retriever_for(ctx)
    links = corpus_links(retriever) if ctx.tuning.chain_weight > 0 else None
    title = mentioned_title(question, list(state.get("candidates", {})))  # every hop's titles are candidates
    if title:
        return explain_document(title, state, ctx, True, links)
    phrase = named_phrase(question)
    if not phrase:
        return None
    hits = retriever.by_title(phrase, limit=1)
    if hits:
        return explain_document(hits[0].title, state, ctx, True, links)
    return explain_document(phrase, state, ctx, False, links)


def grounded_answer(text: str, evidence: list[Evidence]) -> str:
    """The LM's answer with invented citations removed, followed by the references it cites."""
    text = " ".join(drop_invalid_citations(text, len(evidence)).split())
    cited = sorted(set(cited_numbers(text)))
    refs = [e for e in evidence if e["ref"] in cited]
    return text + ("\n\nReferences:\n\n" + references_block(refs) if refs else "")


def fallback_answer(state: State) -> str:
    evidence = state.get("evidence", [])
    return (f"I can only restate the earlier result: the verdict was {state.get('verdict', 'INSUFFICIENT_INFO')}"
            + (", resting on:\n\n" + references_block(evidence) if evidence else ", with no evidence sentences."))


def answer_follow_up(state: State, ctx: Context, program) -> tuple[str, str | None, int]:
    """The answer, why the model step fell back (if it did), and the calls made: about a named document without
    the model, else the program's FollowUp on the cited evidence, grounded in it (or the extractive answer)."""
    answer = about_a_document(state["question"], state, ctx)
    if answer is not None:
        return answer, None, 0
    evidence, step = state.get("evidence", []), program.follow_up
    out, degraded = call_lm(ctx, "follow_up", lambda: step(question=state["question"], claim=state["claim"],
                                                           verdict=state.get("verdict", ""), evidence=evidence),
                            step.fallback, usable=lambda o: bool(o.answer.strip()))
    text = out.answer
    return (grounded_answer(text, evidence) if text.strip() else fallback_answer(state)), degraded, \
        calls_made(ctx, "follow_up")
