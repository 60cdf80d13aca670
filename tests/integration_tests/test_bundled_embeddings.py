"""The shipped float16 embeddings (made by the float32 model) are what the encoder produces for the bundled corpus
(re-encode a sample): the int8 ONNX encoder is within cosine 0.9986 of them on 2,000 documents (docs/retrieval.md)."""

import numpy as np

from claimhop.retrieval.corpus import load_corpus
from claimhop.retrieval.embeddings import BUNDLED_EMBEDDINGS, matches, read_manifest
from claimhop.retrieval.encoder import encode, passage_text


def test_shipped_embeddings_match_a_fresh_encoding():
    corpus = load_corpus()
    assert matches(read_manifest(BUNDLED_EMBEDDINGS), corpus)
    shipped = np.load(BUNDLED_EMBEDDINGS)
    assert shipped.shape == (len(corpus), 384)
    sample = np.random.default_rng(7).choice(len(corpus), 24, replace=False)
    fresh = encode([passage_text(corpus.titles[i], corpus.texts[i]) for i in sample])
    cosine = np.sum(fresh * shipped[sample].astype(np.float32), axis=1)
    assert cosine.min() > 0.998
