"""An optional second stage after fusion: re-order each query's top documents by how well they answer it.

Two kinds, picked by the `reranker` setting:
- `lm`: the run's language model judges each (query, document) pair "yes"/"no" with the reply constrained to
  those two words; with the local model the score is P(yes) from its own token distribution (claimhop.lm.label_probs),
  so ties are rare and no number has to be parsed. No cross-encoder ships in a package here (see
  ../shared/models.md), so the LM is the offline re-ranker.
- `package.module:function`: a function returning any LangChain `BaseDocumentCompressor` (CrossEncoderReranker
  over a local model folder, FlashrankRerank, CohereRerank, ...), the interface LangChain's re-rankers share.

A re-ranker only re-orders the first `depth` documents; documents it drops keep their fused order after the
ones it kept, so a query still returns k documents.
"""

from __future__ import annotations

import logging
import threading
from typing import Protocol

import dspy
from langchain_core.documents import BaseDocumentCompressor, Document

from claimhop.lm.adapter import adapter_for
from claimhop.lm.call_watch import with_timeout
from claimhop.lm.classify import classify
from claimhop.lm.provider import LOCAL, get_lm
from claimhop.retrieval.engines import load_factory
from claimhop.retrieval.service import Hit
from claimhop.signatures import Relevant

log = logging.getLogger("claimhop")
RERANK_PASSAGE_CHARS = 700  # ~150 tokens: a HoVer intro paragraph's first sentences carry what it is about
YES_NO = ("yes", "no")



class Reranker(Protocol):
    def rerank(self, query: str, hits: list[Hit]) -> list[Hit]: ...


def passage(hit: Hit) -> str:
    return f"{hit.title}: {hit.text[:RERANK_PASSAGE_CHARS]}"


class LMReranker:
    """Pointwise yes/no relevance by the run's model; a pair the model fails on, or gives no answer for within
    `timeout_s` of model work (a hung call must not hang the search), keeps its fused place."""

    def __init__(self, model: str = LOCAL, timeout_s: float | None = None, predictor: dspy.Predict | None = None):
        self.model = (model or LOCAL).strip()
        self.timeout_s = timeout_s
        self.predictor = predictor or dspy.Predict(Relevant)  # the run's program's, for a model other than the local one

    def score(self, query: str, hit: Hit) -> float:
        """P(yes): the paragraph is relevant to the query."""
        def ask_dspy() -> str:
            with dspy.context(lm=get_lm(self.model), adapter=adapter_for(self.model)):
                return "yes" if self.predictor(query=query, paragraph=passage(hit)).relevant else "no"

        return classify(self.model, Relevant, f"Query: {query}\nParagraph: {passage(hit)}", YES_NO, ask_dspy)["yes"]

    def rerank(self, query: str, hits: list[Hit]) -> list[Hit]:
        scored = []
        for rank, hit in enumerate(hits):
            try:
                if self.timeout_s:
                    relevance = with_timeout(lambda h=hit: self.score(query, h), self.timeout_s)
                else:
                    relevance = self.score(query, hit)
            except Exception as err:  # noqa: BLE001 - a failed judgement must not fail the search
                log.warning("re-ranker kept %r in its fused place: %s", hit.title, err)
                relevance = None
            scored.append((rank, hit, relevance))
        # Stable: equal relevance keeps fused order; unjudged documents sit just where fusion put them.
        judged = sorted((s for s in scored if s[2] is not None), key=lambda s: (-s[2], s[0]))
        slots = iter(judged)
        return [hit if relevance is None else next(slots)[1] for _, hit, relevance in scored]


class CompressorReranker:
    """Any LangChain document compressor (a re-ranker) over claimhop's hits."""

    def __init__(self, compressor: BaseDocumentCompressor):
        self.compressor = compressor

    def rerank(self, query: str, hits: list[Hit]) -> list[Hit]:
        documents = [Document(page_content=h.text, id=str(h.doc_id), metadata={"title": h.title, "doc_id": h.doc_id})
                     for h in hits]
        by_id = {h.doc_id: h for h in hits}
        kept = []
        for document in self.compressor.compress_documents(documents, query):
            doc_id = document.metadata.get("doc_id")
            if doc_id in by_id and by_id[doc_id] not in kept:
                kept.append(by_id[doc_id])
        return kept + [h for h in hits if h not in kept]


_RERANKERS: dict[str, Reranker] = {}
_LOCK = threading.Lock()


def make_reranker(spec: str, model: str = LOCAL, timeout_s: float | None = None,
                  predictor: dspy.Predict | None = None) -> Reranker | None:
    """None for "", the LM re-ranker for "lm" (each judgement bounded by `timeout_s`), else the compressor the
    factory `spec` returns (once per process)."""
    spec = (spec or "").strip()
    if not spec:
        return None
    if spec == "lm":
        return LMReranker(model, timeout_s, predictor)
    with _LOCK:
        if spec not in _RERANKERS:
            made = load_factory(spec, what="reranker")()
            if not isinstance(made, BaseDocumentCompressor):
                raise ValueError(f"reranker {spec!r} returned {type(made).__name__}, "
                                 "not a LangChain BaseDocumentCompressor")
            _RERANKERS[spec] = CompressorReranker(made)
        return _RERANKERS[spec]
