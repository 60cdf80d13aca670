"""A follow-up question on a thread that already checked a claim ("why did you drop X?", "what says so?"),
answered from the thread's checkpointed state without searching again."""

from __future__ import annotations

from langchain_core.messages import AIMessage

from nodes.common import call_lm, emit, program_for, retriever_for, settings_of
from nodes.mitigate import references_block
from nodes.provenance import explain_document, mentioned_title, named_phrase
from nodes.verify import numbered
from state.context import Context
from state.schema import Evidence, State
from verification.citations import cited_numbers, drop_invalid_citations


def about_a_document(question: str, state: State, ctx: Context) -> str | None:
    """The provenance answer when the question names a document (retrieved or not), else None."""
    title = mentioned_title(question, list(state.get("candidates", {})))  # every hop's titles are candidates
    if title:
        return explain_document(title, state, ctx, in_collection=True)
    phrase = named_phrase(question)
    if not phrase:
        return None
    hits = retriever_for(ctx).by_title(phrase, limit=1)
    if hits:
        return explain_document(hits[0].title, state, ctx, in_collection=True)
    return explain_document(phrase, state, ctx, in_collection=False)


def grounded_answer(text: str, evidence: list[Evidence]) -> str:
    """The LM's answer with invented citations removed, followed by the references it cites."""
    text = " ".join(drop_invalid_citations(text, len(evidence)).split())
    cited = sorted(set(cited_numbers(text)))
    refs = [e for e in evidence if e["ref"] in cited]
    return text + ("\n\nReferences:\n" + references_block(refs) if refs else "")


def fallback_answer(state: State) -> str:
    evidence = state.get("evidence", [])
    return (f"I can only restate the earlier result: the verdict was {state.get('verdict', 'INSUFFICIENT_INFO')}"
            + (", resting on:\n" + references_block(evidence) if evidence else ", with no evidence sentences."))


def follow_up(state: State, runtime) -> dict:
    ctx = settings_of(runtime)
    question = state["question"]
    answer = about_a_document(question, state, ctx)
    degraded, calls = None, 0
    if answer is None:
        evidence = state.get("evidence", [])
        program = program_for(ctx)
        text, degraded = call_lm(
            ctx, "follow_up",
            lambda: program.follow_up(question=question, claim=state["claim"], verdict=state.get("verdict", ""),
                                      evidence=numbered(evidence)).answer,
            lambda: "",
            usable=lambda answer: bool(str(answer).strip()),
        )
        calls = 1
        answer = grounded_answer(text, evidence) if text.strip() else fallback_answer(state)
    emit("follow_up", event="follow_up", question=question, answer=answer)
    return {
        "follow_up": answer,
        "lm_calls": calls,
        "degraded": [degraded] if degraded else [],
        "messages": [AIMessage(content=answer, name="follow_up")],
    }
