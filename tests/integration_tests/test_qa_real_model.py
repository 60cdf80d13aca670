"""The QA verifier with the real local model on README's claim and its gold documents from the bundled corpus:
the described subject ("The Runaways' lead singer") is asked who it is first, each fact is asked its question,
every answer quotes a sentence of those documents, and the claim is supported; through the whole graph, both
halves are answered from each person's own article."""

from __future__ import annotations

from types import SimpleNamespace

from claims import hover_claim

from claimhop.entities.ner import extract_entities, unique
from claimhop.evaluation.verify_eval import documents_by_title
from claimhop.retrieval.corpus import load_corpus
from graph.builder import NODES
from state.context import Context


def test_readmes_claim_is_supported_fact_by_fact_with_each_answer_quoted():
    claim = hover_claim("0012d9a6")  # README's claim: The Runaways' lead singer ... and Steve Augeri ...
    documents = documents_by_title(load_corpus(), claim["supporting_titles"])
    verify = NODES["verify"].function
    state = {"claim": claim["claim"], "selected": documents,
             "claim_entities": unique(extract_entities([claim["claim"]], with_spans=True)[0])}
    out = verify(state, SimpleNamespace(context=Context(verifier="qa", use_optimized_program=False)))
    texts = {d["title"]: d["text"] for d in documents}
    questions = [q for fact in out["facts"] for q in fact["questions"]]
    assert questions and all(q["options"] and q["probs"] for q in questions)
    for q in questions:  # every answer that is not "not stated" quotes a sentence of the documents
        assert q["answer"] == "not stated" or q["sentence"] in texts[q["title"]]
    who = [q for q in questions if q["kind"] == "who"]
    assert who and "Currie" in who[0]["answer"]  # the chain's first hop names the lead singer (its top answer)
    assert who[0]["title"] == "Cherie Currie"  # quoting the sentence that says so
    # (on these three documents the model gives "Currie" 0.45, under the even odds a hop needs, so fact 1 is
    # asked about "The Runaways' lead singer" itself: docs/verification.md says where that falls short)
    assert {"Steve Augeri", "Foxes (soundtrack)"} <= {q["title"] for q in questions if q["answer"] == q["claimed"]}
    assert out["verdict"] == "SUPPORTED"


def test_readmes_claim_through_the_whole_graph_is_supported_with_both_halves_quoted():
    """What README's first command shows with `--set verifier=qa`: the whole graph, real model and index."""
    from graph import check_claim

    result = check_claim(hover_claim("0012d9a6")["claim"], verifier="qa")
    assert result["verdict"] == "SUPPORTED"
    answer = result["answer"]
    for name in ("Cherie Currie", "Steve Augeri"):  # each half answered from that person's own article
        assert any(q["title"] == name and q["answer"] == "American" and f'{name}: "' in answer
                   for fact in result["facts"] for q in fact.get("questions", [])), name
