"""benchmarks.lab.chunk_reading: how a claim's passages are cut into chunks and how the chunks' reads are scored."""

from benchmarks.lab.chunk_reading import chunks_of, score


def passage(title: str, size: int) -> dict:
    return {"title": title, "text": "x" * size}


def test_chunks_keep_every_passage_in_order_within_the_limit():
    passages = [passage("a", 200), passage("b", 250), passage("c", 100), passage("d", 900), passage("e", 50)]
    chunks = chunks_of(passages, 600)
    assert [p["title"] for chunk in chunks for p in chunk] == ["a", "b", "c", "d", "e"]
    assert [[p["title"] for p in chunk] for chunk in chunks] == [["a", "b", "c"], ["d"], ["e"]]
    for chunk in chunks:  # a chunk over the limit holds one passage that is longer alone
        assert sum(len(p["title"]) + len(p["text"]) + 4 for p in chunk) <= 600 or len(chunk) == 1


def test_a_claim_is_supported_when_its_best_chunk_is_and_paired_with_the_full_read():
    claims = [{"uid": "s", "label": "SUPPORTED"}, {"uid": "c", "label": "CONTRADICTED"},
              {"uid": "n", "label": "INSUFFICIENT_INFO"}, {"uid": "o", "label": "CONTRADICTED"},
              {"uid": "x", "label": "SUPPORTED"}]
    probs = {"s": {0: {"supported": 0.2, "contradicted_if_not": 0.9}, 1: {"supported": 0.8, "contradicted_if_not": 0.1}},
             # the kind comes from the chunk most likely to be evidence, not from the chunk most sure of a contradiction
             "c": {0: {"supported": 0.1, "contradicted_if_not": 0.9}, 1: {"supported": 0.3, "contradicted_if_not": 0.4}},
             "n": {0: {"supported": 0.1, "contradicted_if_not": 0.2}},
             "o": {0: {"supported": 0.1, "contradicted_if_not": 0.1}},
             "x": {0: {"supported": 0.9, "contradicted_if_not": 0.1}}}
    full = {"s": {"verdict": "INSUFFICIENT_INFO", "probabilities": {"supported": 0.3}},
            "c": {"verdict": "INSUFFICIENT_INFO", "probabilities": {"supported": 0.2, "opposite": 0.1}},
            "n": {"verdict": "INSUFFICIENT_INFO", "probabilities": {"supported": 0.1}},
            "o": {"verdict": "CONTRADICTED", "probabilities": {"supported": 0.2, "opposite": 0.6}},
            "x": {"verdict": "INSUFFICIENT_INFO", "probabilities": {}}}  # the stage had nothing to go on
    first = score("set", claims, probs, full, "head", 1)
    assert first["chunked"]["supported"] == "0/2"  # the supporting chunk of "s" is the second; "x" is never read
    both = score("set", claims, probs, full, "head", 2)
    assert both["chunked"]["supported"] == "1/2" and both["chunked"]["contradicted"] == "0/2"
    # against the full read ("n", "o" right): "s" gained, "o" lost (its kind head says not contradicted)
    assert (both["chunked"]["gained"], both["chunked"]["lost"]) == (1, 1)
    # the opposite rule: "o"'s opposite reads better supported than the claim, "c"'s does not
    assert both["chunked+opposite"]["contradicted"] == "1/2"
    assert (both["chunked+opposite"]["gained"], both["chunked+opposite"]["lost"]) == (1, 0)
    assert both["auc"]["chunked (max)"] == 0.5  # "s" first, "x" (nothing to go on) last, as in the full read
