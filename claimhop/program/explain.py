"""Stage 7, the cited answer (node `mitigate`): headline, explanation with only valid citations, one line a fact
with its quote, and the references. The passages, facts and QA verifiers' answer is written from their facts
with no model call (the default); verifier=single's evidence is explained by the model (ExplainVerdict), and only
the statements that cite a real reference are kept."""

from __future__ import annotations

from dataclasses import dataclass

import dspy

from claimhop.lm.provider import LOCAL, describe_model
from claimhop.program.citations import check_citations, drop_invalid_citations
from claimhop.program.outputs import NOT_STATED
from claimhop.program.runtime import call_lm, calls_made
from claimhop.signatures import ExplainVerdict
from state.context import Context
from state.schema import Evidence, SelectedDoc

FALLBACK_QUOTES = 3  # evidence sentences quoted when the model gives no usable cited statement; not tuned (ff51bcf)


def numbered(evidence: list[dict]) -> list[str]:
    """Evidence as the prompts show it: '[n] title: sentence'."""
    return [f"[{e['ref']}] {e['title']}: {e['sentence']}" for e in evidence]


HEADLINES = {
    "SUPPORTED": "The claim is supported by the collection.",
    "CONTRADICTED": "The claim is contradicted by the collection.",
    "INSUFFICIENT_INFO": "The collection does not hold enough to confirm or refute the claim.",
}


def extractive_explanation(evidence: list[Evidence]) -> str:
    """Used when the LM gives no usable cited statement: the evidence itself, quoted, nothing invented."""
    return " ".join(f"{e['title']}: \"{e['sentence']}\" [{e['ref']}]" for e in evidence[:FALLBACK_QUOTES])


def cited_statements(statements, evidence: list[Evidence]) -> list[str]:
    """Keep only statements whose evidence number exists: every sentence of the explanation is cited."""
    refs = {e["ref"] for e in evidence}
    kept = []
    for statement in statements or []:
        text = " ".join(str(getattr(statement, "text", "")).split()).rstrip(". ")
        number = getattr(statement, "evidence_id", None)
        if text and number in refs:
            kept.append(f"{drop_invalid_citations(text, 0).strip()} [{number}].")
    return kept


def references_block(evidence: list[Evidence], sources: dict[str, str] | None = None) -> str:
    """One paragraph per reference, so Markdown chat clients (agent-chat-ui) show one per line too; a document of
    the user's own collection names its file, so the quote can be found where it was written."""
    def where(title: str) -> str:
        return f" ({sources[title]})" if sources and sources.get(title) else ""

    return "\n\n".join(f"[{e['ref']}] {e['title']}{where(e['title'])}: \"{e['sentence']}\"" for e in evidence)


def sources_of(selected: list[dict]) -> dict[str, str]:
    """Title -> source file of the selected documents that have one."""
    return {doc["title"]: doc["source"] for doc in selected if doc.get("source")}


def compose_answer(claim: str, verdict: str, explanation: str, evidence: list[Evidence], degraded: list[str],
                   ignored: list[str] | None = None, model: str = LOCAL, sources: dict[str, str] | None = None
                   ) -> str:
    # paragraphs separated by blank lines: Markdown clients join lines that only a line break separates
    parts = [f"Verdict: {verdict}", "", f"Claim: {claim}", "", explanation.strip()]
    if ignored:
        parts += ["", "Ignored (instructions to the checker, not part of the claim): " + " ".join(ignored)]
    if evidence:
        parts += ["", "References:", "", references_block(evidence, sources)]
    if degraded:
        parts += ["", "Steps that fell back to a simpler method: " + "; ".join(d.split(":")[0] for d in degraded)]
    parts += ["", f"Model: {describe_model(model)}"]
    return "\n".join(parts)


FACT_WORDS = {"SUPPORTED": "supported", "CONTRADICTED": "contradicted", "INSUFFICIENT_INFO": "not settled"}


def fact_lines(facts: list[dict], evidence: list[Evidence]) -> list[str]:
    """One line a fact: supported with its quote, contradicted with what the collection says instead, or not
    found; every quote is a reference's exact sentence."""
    by_ref = {e["ref"]: e for e in evidence}
    lines = []
    for number, fact in enumerate(facts, start=1):
        text = " ".join(drop_invalid_citations(fact["fact"], 0).split())  # a claim's own "[3]" is not a citation
        if fact.get("read"):  # the passage verifier: the claim was judged whole; each fact shows where it is stated
            lines.append(f'{number}. "{text}": {read_fact_words(fact, by_ref)}')
            continue
        head = f'{number}. "{text}": {FACT_WORDS[fact["verdict"]]} ({fact["confidence"]:.2f})'
        quote = by_ref.get(fact.get("ref", 0))
        if fact.get("questions") and not fact.get("error"):  # the QA verifier: its questions quote the evidence
            lines.append(f"{head}. {qa_words(fact['verdict'], fact['questions'][-1])}")
        elif fact["verdict"] == "SUPPORTED" and quote:
            lines.append(f'{head}. {quote["title"]}: "{quote["sentence"]}" [{quote["ref"]}]')
        elif fact["verdict"] == "CONTRADICTED" and quote:
            lines.append(f'{head}. The collection says instead: "{quote["sentence"]}" [{quote["ref"]}]')
        elif fact.get("error"):
            lines.append(f"{head}. It could not be judged ({fact['error'].split(':')[0]}).")
        elif quote:
            lines.append(f"{head}. Not found in the collection: no selected document settles it; the closest "
                         f'sentence examined: {quote["title"]}: "{quote["sentence"]}" [{quote["ref"]}]')
        else:
            lines.append(f"{head}. Not found in the collection: no selected document settles it.")
        lines += [f"   {asked_line(q, by_ref)}" for q in fact.get("questions", [])]
    return lines


def read_fact_words(fact: dict, by_ref: dict[int, Evidence]) -> str:
    """Where a fact stands in the passages read, in agreement with the verdict: "stated in" only for a supported
    claim and only the sentences that state the fact (enough of its words, pointing the same way); a sentence
    that points the other way is shown as saying the opposite, whatever the verdict; the rest are the closest
    sentences read (the claim was judged as a whole, so no fact is singled out as the false one)."""
    quotes = [by_ref[ref] for ref in fact.get("refs", []) if ref in by_ref]
    if not quotes:
        return "no passage read mentions it."
    opposite = set(fact.get("opposite_refs", []))
    states = set(fact.get("stating_refs", [])) if fact["verdict"] == "SUPPORTED" else set()  # never opposite ones

    def said(group: list[Evidence]) -> str:
        return " ".join(f'{q["title"]}: "{q["sentence"]}" [{q["ref"]}]' for q in group)

    parts = []
    if stated := [q for q in quotes if q["ref"] in states]:
        parts.append(f"stated in {said(stated)}")
    if against := [q for q in quotes if q["ref"] in opposite]:
        parts.append(f"the collection says the opposite: {said(against)}")
    if rest := [q for q in quotes if q["ref"] not in states and q["ref"] not in opposite]:
        parts.append(f"closest sentences read: {said(rest)}")
    return "; ".join(parts)


def qa_words(verdict: str, question: dict) -> str:
    """What the fact's last question says about it, in the verdict's terms: the fact's own answer and how
    likely the evidence makes it, or the other answer the evidence gives instead."""
    probs, claimed = question["probs"], question["claimed"]
    own = probs.get(claimed, 0.0)
    if verdict == "CONTRADICTED":
        other = max((o for o in probs if o not in (claimed, NOT_STATED)), key=probs.get, default=question["answer"])
        return f"The collection says instead: {other} ({probs.get(other, 0.0):.2f})."
    if verdict == "SUPPORTED":
        return f"The evidence gives its answer, {claimed}, probability {own:.2f}."
    return f"Not found in the collection: the evidence gives its answer, {claimed}, only {own:.2f}."


def answer_text(question: dict) -> str:
    """The answer as picked, and the full name it stood for when a surname answered "who": "Currie (Cherie
    Currie)"."""
    named = question.get("name") or question["answer"]
    return question["answer"] if named == question["answer"] else f'{question["answer"]} ({named})'


def asked_line(question: dict, by_ref: dict[int, Evidence]) -> str:
    """A QA verifier's question, the answer the evidence gave and the sentence that states it."""
    line = f'Asked: {question["question"]} Answer: {answer_text(question)} ({question["probability"]:.2f})'
    quote = by_ref.get(question.get("ref", 0))
    return f'{line}, from {quote["title"]}: "{quote["sentence"]}" [{quote["ref"]}]' if quote else line


@dataclass
class Answer:
    """The answer's text and the model named in it; with the model's explanation, its call and why it fell back
    (`calls` None when the answer was written with no model step at all)."""

    text: str
    model: str
    calls: int | None = None
    degraded: str | None = None


class Explain(dspy.Module):
    """The answer from the verifier's facts (no model call), or the model's 2-4 statements on the numbered
    evidence (verifier=single)."""

    def __init__(self, settings: Context, from_facts: bool = True) -> None:
        super().__init__()
        self.settings, self.from_facts = settings, from_facts  # from_facts: the run's verifier gives facts
        self.predict = dspy.Predict(ExplainVerdict)  # verifier=single

    def forward(self, claim: str, verdict: str | None, confidence: float | None, reason: str | None,
                facts: list[dict] | None, evidence: list[Evidence], selected: list[SelectedDoc],
                degraded: list[str], ignored: list[str] | None = None) -> Answer:
        ctx = self.settings
        verdict = verdict or "INSUFFICIENT_INFO"
        sources = sources_of(selected)
        # a claim with nothing to go on (no facts, no evidence) is written from its facts whatever the verifier
        if facts is not None and (self.from_facts or not facts):
            explanation = (f"{HEADLINES[verdict]} Confidence {confidence or 0.0:.2f}: {reason or ''}.\n"
                           + "\n".join(fact_lines(facts, evidence)))
            check_citations(explanation, evidence, selected)
            return Answer(compose_answer(claim, verdict, explanation, evidence, degraded, ignored, ctx.model, sources),
                          ctx.model)

        def ask() -> list[str]:
            return cited_statements(self.predict(claim=claim, verdict=verdict, evidence=numbered(evidence)).statements,
                                    evidence)

        statements, failed = call_lm(ctx, "mitigate", ask, list, usable=lambda kept: bool(kept) or not evidence)
        explanation = f"{HEADLINES[verdict]} {' '.join(statements) or extractive_explanation(evidence)}".strip()
        check_citations(explanation, evidence, selected)
        answer = compose_answer(claim, verdict, explanation, evidence, [*degraded, *([failed] if failed else [])],
                                ignored, ctx.model, sources)
        return Answer(answer, ctx.model, calls_made(ctx, "mitigate"), failed)
