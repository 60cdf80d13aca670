"""Turn the graph's typed progress events into readable lines for a terminal."""

from __future__ import annotations

from typing import Any, TextIO

from claimhop.steps.answer import answer_text


def render_event(event: dict[str, Any], out: TextIO) -> None:
    node, kind = event.get("node", "?"), event.get("event", "")
    if kind == "claim":
        print(f"[intake] claim: {event['claim']}", file=out)
    elif kind == "documents":
        print("[search_claim] first documents for the claim (the model is planning the hops meanwhile):", file=out)
        for doc in event["documents"]:
            print(f"    {doc['rank']}. {doc['title']}: {doc['snippet'][:100]}", file=out)
    elif kind == "sub_questions":
        print("[decompose] sub-questions:", file=out)
        for q in event["sub_questions"]:
            print(f"    - {q}", file=out)
    elif kind == "gap_analysis" and node == "early_gap":
        print(f"[early_gap] entities: {', '.join(event['entities']) or '-'}", file=out)
        print(f"[early_gap] queries: {' | '.join(event['queries'])}", file=out)
    elif kind == "hop":
        titles = ", ".join(event["titles"][:8]) + (" …" if len(event["titles"]) > 8 else "")
        print(f"[{node}] {event['step']} «{event['query'][:90]}» -> {titles or '(nothing new)'}", file=out)
    elif kind == "linked" and not event["titles"]:
        print(f"[{node}] next hop by links: {event.get('status', 'no new article')}", file=out)
    elif kind == "entities":
        print(f"[extract_entities] uncovered: {', '.join(event['entities'][:15])}", file=out)
    elif kind == "bridging_entities":
        print(f"[bridge] bridging entities: {', '.join(event['entities']) or '-'}", file=out)
    elif kind == "gap_analysis":
        state = "complete" if event["complete"] else "missing: " + "; ".join(event["missing"][:3])
        print(f"[gap_loop] round {event['iteration']}: {state}; {event['new_documents']} new documents", file=out)
    elif kind == "selection":
        print(f"[select_documents] kept {len(event['selected'])} of {event['candidates']}:", file=out)
        for doc in event["selected"]:
            print(f"    {doc['rank']:>2}. {doc['title']}  ({doc['score']:.2f})", file=out)
    elif kind == "fact" and event.get("read"):
        print(f"[verify] fact «{event['fact']}»", file=out)
        for quote in event.get("quotes", []):
            print(f"    quoted from {quote['title']}: {quote['sentence'][:100]}", file=out)
    elif kind == "fact":
        print(f"[verify] fact «{event['fact']}»: {event['verdict']} ({event['confidence']:.2f}, "
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
            print(f"[verify] read together: {', '.join(event['read'])}", file=out)
        print(f"[verify] verdict: {event['verdict']}{confidence}", file=out)
    elif kind == "degraded":
        print(f"[{node}] degraded: {event['reason']}", file=out)
    out.flush()
