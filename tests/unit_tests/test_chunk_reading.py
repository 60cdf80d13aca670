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
              {"uid": "n", "label": "INSUFFICIENT_INFO"}]
    probs = {"s": [{"supported": 0.2, "contradicted_if_not": 0.9}, {"supported": 0.8, "contradicted_if_not": 0.1}],
             "c": [{"supported": 0.1, "contradicted_if_not": 0.9}, {"supported": 0.3, "contradicted_if_not": 0.7}],
             "n": [{"supported": 0.1, "contradicted_if_not": 0.2}]}
    full = {"s": {"verdict": "INSUFFICIENT_INFO", "probabilities": {"supported": 0.3}},
            "c": {"verdict": "INSUFFICIENT_INFO", "probabilities": {"supported": 0.2, "opposite": 0.1}},
            "n": {"verdict": "INSUFFICIENT_INFO", "probabilities": {"supported": 0.1}}}
    first = score("set", claims, probs, full, "head", 1)
    assert first["chunked"]["supported"] == "0/1"  # the supporting chunk is the second
    both = score("set", claims, probs, full, "head", 2)
    assert both["chunked"]["supported"] == "1/1" and both["chunked"]["contradicted"] == "1/1"
    assert both["chunked"]["gained"] == 2 and both["chunked"]["lost"] == 0  # the full read had only "n" right
    assert both["chunked"]["macro_f1"] == 100.0
    assert both["chunked+opposite"]["contradicted"] == "0/1"  # the full read's opposite reads less supported
    assert both["auc"]["chunked (max)"] == 1.0
