"""The passage verifier with the real local model: the hidden state read from llama.cpp gives the same P(yes) as
the model's own constrained answer (so the shipped answer rows and the state are what the head was trained on),
and README's claim through the whole graph is supported with each half quoted from that person's own article."""

from __future__ import annotations

import math

from claims import hover_claim

from claimhop.evaluation.verify_eval import documents_by_title
from claimhop.lm.label_probs import classify_local
from claimhop.lm.provider import local_engine
from claimhop.program.verify.head import load_head
from claimhop.program.verify.reading import READINGS, passage_messages, passages_read
from claimhop.retrieval.corpus import load_corpus
from claimhop.signatures import JudgeClaimOnPassages

WHOLE = READINGS["chain-order-1"]  # whole passages in selection order, read after all of the model's blocks


def test_the_state_gives_the_models_own_answer_probability():
    claim = hover_claim("0012d9a6")
    passages = passages_read(documents_by_title(load_corpus(), claim["supporting_titles"]), None, WHOLE)
    messages = passage_messages(claim["claim"], passages)
    engine = local_engine()
    state = engine.last_hidden_state(messages)
    assert state.shape == (1536,) and math.isfinite(float(state @ state))
    _, asked = classify_local(engine, JudgeClaimOnPassages, messages[1]["content"], ("yes", "no"))
    read = load_head().probabilities(state)["yes"]
    assert abs(read - asked["yes"]) < 0.03, (read, asked)


def test_readmes_claim_through_the_whole_graph_quotes_each_half_from_its_own_article():
    """What README's first command shows: the whole graph, real model, index and shipped head."""
    from graph import check_claim

    result = check_claim(hover_claim("0012d9a6")["claim"], verifier="passages")
    assert result["verdict"] == "SUPPORTED" and 0.5 <= result["confidence"] <= 1.0
    lines = {fact["fact"]: fact for fact in result["facts"]}
    by_ref = {e["ref"]: e for e in result["evidence"]}
    quoted = {fact: {by_ref[ref]["title"] for ref in record["refs"]} for fact, record in lines.items()}
    singer = [fact for fact in quoted if "American" in fact and "Augeri" not in fact]
    augeri = [fact for fact in quoted if "Augeri" in fact]
    assert singer and all("Cherie Currie" in quoted[fact] for fact in singer), quoted
    assert augeri and all("Steve Augeri" in quoted[fact] for fact in augeri), quoted
    assert "2010 American drama film" not in result["answer"].split("References:")[0]


def test_a_verify_pass_keeps_the_plans_prompt_cached():
    """The verifier's pass runs on its own llama.cpp instance, so the chat slot keeps the prefix the last chat call
    left (before, the pass overwrote the only slot and the next plan re-read its whole prompt)."""
    engine = local_engine()
    body = {"messages": [{"role": "system", "content": "You split a claim into short facts. " * 20},
                         {"role": "user", "content": "Claim: Steve Augeri is an American singer."}],
            "max_tokens": 4}
    engine.chat(body)
    claim = hover_claim("0012d9a6")
    engine.last_hidden_state(passage_messages(claim["claim"], passages_read(
        documents_by_title(load_corpus(), claim["supporting_titles"]), None, WHOLE)))
    again = engine.chat(body)
    prompt = again["usage"]["prompt_tokens"]
    assert again["timings"]["cache_n"] >= prompt - 8, again["timings"]
