"""Follow-up turns on a checkpointed thread: questions are answered from the earlier check without searching
again; a new statement (or "check this instead: ...") starts a new check."""

from __future__ import annotations

import pytest
from fakes import fake_lm
from langgraph.checkpoint.memory import InMemorySaver
from test_graph_routing import answers

import claimhop.program.runtime
from claimhop.program.select.provenance import mentioned_title, named_phrase
from graph import NODE_ORDER, build_graph

CLAIM = "Cherie Currie and Steve Augeri were both American."


@pytest.fixture
def chat(monkeypatch, small_corpus):
    """Send chat turns to one thread of a checkpointed graph; returns (nodes that ran, final values)."""
    reply = {**answers(), "answer": {"answer": "Currie was American [1], see also [42]."}}
    lm, engine = fake_lm(reply)
    monkeypatch.setattr(claimhop.program.runtime, "get_lm", lambda model: lm)
    app = build_graph().compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t1"}}
    ctx = {"corpus_path": str(small_corpus), "use_optimized_program": False, "max_iterations": 0, "top_k": 3,
           "verifier": "single"}

    def send(text: str):
        ran, final = [], None
        for mode, chunk in app.stream({"messages": [{"role": "human", "content": text}]}, config, context=ctx,
                                      stream_mode=["updates", "values"]):
            if mode == "updates":
                ran.extend(chunk)
            else:
                final = chunk
        return ran, final

    send.engine = engine
    return send


def test_why_was_a_document_dropped_is_answered_from_the_recorded_run(chat):
    ran, first = chat(CLAIM)
    assert ran == [n for n in NODE_ORDER if n != "gap_loop"]
    kept = {d["title"] for d in first["selected"]}
    dropped = sorted(set(first["candidates"]) - kept)
    assert dropped, "the check should have dropped some candidates (top_k=3)"
    calls_before = len(chat.engine.calls)

    ran, after = chat(f"Why did you drop {dropped[0]}?")
    assert ran == ["intake", "follow_up"]
    assert len(chat.engine.calls) == calls_before  # answered from the state: no model call, no search
    reply = after["messages"][-1].content
    assert f'"{dropped[0]}" was retrieved but dropped' in reply
    assert "below the last kept document" in reply
    assert after["selected"] == first["selected"] and after["verdict"] == first["verdict"]

    ran, after = chat(f"why did you keep {first['selected'][0]['title']}?")
    assert f'"{first["selected"][0]["title"]}" was kept: rank 1 of 3' in after["messages"][-1].content


def test_a_document_not_in_the_collection_is_said_so(chat):
    chat(CLAIM)
    _, after = chat("Why did you drop Atlantis Resort?")
    assert after["messages"][-1].content == 'No document titled "Atlantis Resort" is in the collection.'


def test_a_general_question_gets_a_cited_answer_without_invented_references(chat):
    _, first = chat(CLAIM)
    _, after = chat("What says Currie is American?")
    reply = after["messages"][-1].content
    assert reply.startswith("Currie was American [1]")
    assert "[42]" not in reply
    assert f"[1] {first['evidence'][0]['title']}" in reply  # the cited reference is listed with its sentence


def test_check_this_instead_and_plain_statements_start_a_new_check(chat):
    chat(CLAIM)
    ran, after = chat("check this instead: Steve Augeri was the lead vocalist of Journey.")
    assert ran[0] == "intake" and "decompose" in ran and "follow_up" not in ran
    assert after["claim"] == "Steve Augeri was the lead vocalist of Journey."
    ran, after = chat("Jodie Foster is an American actress.")
    assert "mitigate" in ran and after["claim"] == "Jodie Foster is an American actress."
    assert all(h["step"] for h in after["hops"]) and len(after["selected"]) == 3


@pytest.mark.parametrize("question, title", [
    ("Why did you drop Foxes (soundtrack)?", "Foxes (soundtrack)"),
    ("why was 'journey band' not selected", "Journey (band)"),
    ("Why did you drop the document about Jodie Fostr?", "Jodie Foster"),
])
def test_the_document_a_question_names_is_recognised(question, title):
    titles = ["Foxes", "Foxes (soundtrack)", "Journey (band)", "Jodie Foster", "Steve Augeri"]
    assert mentioned_title(question, titles) == title


def test_a_question_that_names_no_document_has_no_phrase():
    assert named_phrase("What is the verdict based on?") is None


def test_a_new_check_on_the_thread_starts_with_nothing_of_the_last_one(chat):
    """The first check's verdict, evidence and follow-up reply are gone the moment the next check starts, and
    what the second check ends with is its own."""
    _, first = chat(CLAIM)
    chat("What says Currie is American?")
    ran, second = chat("check this instead: Steve Augeri was the lead vocalist of Journey.")
    assert second["claim"].startswith("Steve Augeri")
    assert second.get("follow_up") is None and second.get("question") is None
    assert second["lm_calls"] >= 1 and second["answer"] != first["answer"]


def test_nothing_of_the_last_check_is_in_the_state_when_the_next_begins(monkeypatch, small_corpus):
    from fakes import fake_lm
    from langgraph.checkpoint.memory import InMemorySaver

    lm, _ = fake_lm({**answers(), "answer": {"answer": "Currie was American [1]."}})
    monkeypatch.setattr(claimhop.program.runtime, "get_lm", lambda model: lm)
    app = build_graph().compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "reset"}}
    ctx = {"corpus_path": str(small_corpus), "use_optimized_program": False, "max_iterations": 0, "top_k": 3,
           "verifier": "single"}
    app.invoke({"claim": CLAIM}, config, context=ctx)
    app.update_state(config, {"facts": [{"fact": "left from an older check"}], "follow_up": "an old reply"})
    after_intake, intake_ran = None, False
    for mode, chunk in app.stream({"claim": "Steve Augeri was the lead vocalist of Journey."}, config, context=ctx,
                                  stream_mode=["updates", "values"]):
        if mode == "updates" and "intake" in chunk:
            intake_ran = True
        elif mode == "values" and intake_ran and after_intake is None:
            after_intake = chunk  # the state the second check's first step leaves
    assert after_intake is not None
    assert after_intake["facts"] is None and after_intake["follow_up"] is None
    assert after_intake["verdict"] is None and after_intake["evidence"] == [] and after_intake["selected"] == []
    assert app.get_state(config).values["verdict"] is not None  # and the check then wrote its own
