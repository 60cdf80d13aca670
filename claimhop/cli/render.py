"""Turn the graph's typed progress events into readable lines for a terminal. Each line starts with the node that
sent the event (its `node` field); a node's label comes from the graph's node table (`state.steps.node_table()`)."""

from __future__ import annotations

from functools import cache
from typing import Any, TextIO

from claimhop.program.explain import answer_text
from state.steps import node_table


@cache
def node_labels() -> dict[str, str]:
    """Each node's label, from the graph's node table (the same one the server serves)."""
    return {row["name"]: row["label"] for row in node_table()}


def node_label(node: str) -> str:
    return node_labels().get(node, node)


def render_event(event: dict[str, Any], out: TextIO) -> None:
    node, kind = event.get("node", "?"), event.get("event", "")
    if kind == "claim":
        print(f"[{node}] claim: {event['claim']}", file=out)
    elif kind == "documents":
        print(f"[{node}] first documents for the claim (the model is planning the hops meanwhile):", file=out)
        for doc in event["documents"]:
            print(f"    {doc['rank']}. {doc['title']}: {doc['snippet'][:100]}", file=out)
    elif kind == "sub_questions":
        print(f"[{node}] sub-questions:", file=out)
        for q in event["sub_questions"]:
            print(f"    - {q}", file=out)
    elif kind == "gap_analysis" and node == "early_gap":
        print(f"[{node}] entities: {', '.join(event['entities']) or '-'}", file=out)
        print(f"[{node}] queries: {' | '.join(event['queries'])}", file=out)
    elif kind == "hop":
        titles = ", ".join(event["titles"][:8]) + (" …" if len(event["titles"]) > 8 else "")
        print(f"[{node}] {event['step']} «{event['query'][:90]}» -> {titles or '(nothing new)'}", file=out)
    elif kind == "linked" and not event["titles"]:
        print(f"[{node}] {node_label(node).lower()}: {event.get('status', 'no new article')}", file=out)
    elif kind == "entities":
        print(f"[{node}] uncovered: {', '.join(event['entities'][:15])}", file=out)
    elif kind == "bridging_entities":
        print(f"[{node}] bridging entities: {', '.join(event['entities']) or '-'}", file=out)
    elif kind == "gap_analysis":
        state = "complete" if event["complete"] else "missing: " + "; ".join(event["missing"][:3])
        print(f"[{node}] round {event['iteration']}: {state}; {event['new_documents']} new documents", file=out)
    elif kind == "selection":
        print(f"[{node}] kept {len(event['selected'])} of {event['candidates']}:", file=out)
        for doc in event["selected"]:
            print(f"    {doc['rank']:>2}. {doc['title']}  ({doc['score']:.2f})", file=out)
    elif kind == "fact" and event.get("read"):
        print(f"[{node}] fact «{event['fact']}»", file=out)
        for quote in event.get("quotes", []):
            print(f"    quoted from {quote['title']}: {quote['sentence'][:100]}", file=out)
    elif kind == "fact":
        print(f"[{node}] fact «{event['fact']}»: {event['verdict']} ({event['confidence']:.2f}, "
              f"alignment {event['alignment']:.2f})", file=out)
        for question in event.get("questions", []):
            source = f"  {question['title']}: {question['sentence'][:100]}" if question["sentence"] else ""
            print(f"    asked: {question['question'][:120]}", file=out)
            print(f"    answer: {answer_text(question)} ({question['probability']:.2f}){source}", file=out)
        for judged in event["evidence"] if not event.get("questions") else []:
            label = max(judged["probs"], key=judged["probs"].get)
            print(f"    {label} {judged['probs'][label]:.2f}  {judged['title']}: {judged['sentence'][:100]}", file=out)
    elif kind == "verdict":
        confidence = f" (confidence {event['confidence']:.2f})" if "confidence" in event else ""
        if event.get("read"):
            print(f"[{node}] read together: {', '.join(event['read'])}", file=out)
        print(f"[{node}] verdict: {event['verdict']}{confidence}", file=out)
    elif kind == "degraded":
        print(f"[{node}] degraded: {event['reason']}", file=out)
    out.flush()
