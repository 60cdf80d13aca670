"""`claimhop train-verifier --corpus FOLDER`: a verdict head for one collection, learned from the collection itself.

Labelled claims are made from the collection's own documents (claimhop.evaluation.collection_claims), each read
once by the local model as a check reads (features cached, so a stopped run resumes and a finished one is never
read twice), and the two heads are fitted on what was read: `support` (SUPPORTED or not) and `kind`
(CONTRADICTED or not settled). The head is saved in the collection's index folder with its provenance; a check on
that collection uses it (claimhop.program.verify.head.head_file). It reads as `COLLECTION_READING`: passages by the
claim's words, five of them when the claim names no document."""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from claimhop.atomic import write_text
from claimhop.evaluation.collection_claims import collection_claims
from claimhop.evaluation.train_verifier import answer_rows, fit_logistic, head_inputs
from claimhop.evaluation.verifier_data import claims_file
from claimhop.evaluation.verifier_features import (
    extract_features,
    features_dir,
    load_features,
)
from claimhop.lm.weights import QWEN_CODER_1_5B
from claimhop.program.verify.head import COLLECTION_HEAD, save_head
from claimhop.program.verify.reading import (
    NEW_HEAD_BLOCKS,
    NEW_HEAD_BUDGET,
    ReadingRule,
    reading_rule,
)

SOURCES = 60  # documents claims are made from: ~170 items, about 30 min here (SECONDS_A_READ)
SECONDS_A_READ = 10  # one pass over ~3,000 characters on 2 cores (docs/speed.md), for the estimate shown first
SECONDS_A_RESTATEMENT = 4  # the local model restating one finding here (measured: 4.0 s median on HealthVer)
COLLECTION_READING = "chain-order-1-relevant"
NEIGHBOURS = 8  # search depth for the passages read beside a claim's source


def collection_rule() -> ReadingRule:
    return reading_rule(COLLECTION_READING, NEW_HEAD_BLOCKS, NEW_HEAD_BUDGET)


def model_restater(total: int) -> Callable[[str], str]:
    """The local model restating a finding in plain words (DSPy ClaimFromFinding, temperature 0 as every local
    call), with a progress bar over the `total` expected; its replies are kept in DSPy's cache, so a stopped run
    asks again for nothing it had."""
    import dspy
    from tqdm import tqdm

    from claimhop.lm.adapter import adapter_for
    from claimhop.lm.provider import LOCAL, get_lm
    from claimhop.signatures import ClaimFromFinding

    write = dspy.Predict(ClaimFromFinding)
    bar = tqdm(total=total, desc="restating findings", unit="finding")

    def restate(finding: str) -> str:
        with dspy.context(lm=get_lm(LOCAL), adapter=adapter_for(LOCAL)):
            claim = str(write(finding=finding).claim)
        bar.update(1)
        return claim

    return restate


def made_claims(source: Path, folder: Path, sources: int, seed: int, restate: bool = True,
                say: Callable[[str], None] = print, index_dir: Path | None = None) -> list[dict]:
    """The collection's labelled claims: made once and kept in the index folder (a resumed training reads the same
    claims), remade when the count, seed or restating asked differs. `restate`: the local model writes each
    finding in plain words first (claimhop.evaluation.collection_claims)."""
    from claimhop.retrieval.factory import search_engine
    from claimhop.retrieval.titles import normalize_title

    path = claims_file(folder)
    made_with = {"sources": sources, "seed": seed, **({"restated": True} if restate else {})}
    if path.is_file():
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        if rows and rows[0].get("made_with") == made_with:
            return rows
    engine = search_engine(str(source), index_dir)
    corpus = engine.corpus

    def neighbours(claim: str, title: str) -> list[str]:
        return [h.title for h in engine.search(claim, NEIGHBOURS, mode="hybrid")
                if normalize_title(h.title) != normalize_title(title)]

    restater = None
    if restate:
        say(f"restating findings of {sources} documents in plain words with the local model first (about "
            f"{SECONDS_A_RESTATEMENT} s each; --verbatim skips it)")
        restater = model_restater(sources)
    rows = [{**item, "key": f"collection:{item['id']}", "made_with": made_with}
            for item in collection_claims(corpus.titles, corpus.texts, neighbours, sources, seed, restater)]
    write_text(path, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
    return rows


def labelled_for(path: Path, source: Path, index_dir: Path | None, seed: int) -> list[dict]:
    """A user's labelled pairs (claimhop.evaluation.labelled_pairs) as items, each evidence read among the passages
    the collection's hybrid search finds for its claim."""
    from claimhop.evaluation.labelled_pairs import labelled_items, read_labelled
    from claimhop.evaluation.verifier_features import documents_for
    from claimhop.retrieval.factory import search_engine

    pairs = read_labelled(path)
    engine = search_engine(str(source), index_dir)

    def neighbours(claim: str) -> list[dict]:
        return documents_for(engine.corpus, [h.title for h in engine.search(claim, NEIGHBOURS, mode="hybrid")])

    return labelled_items(pairs, neighbours, seed)


def train_collection_head(source: str | Path, sources: int = SOURCES, seed: int = 0, say=print,
                          restate: bool = True, labelled: Path | None = None, index_dir: Path | None = None) -> Path:
    """Make, read and fit; returns the head file written in the collection's index folder (`index_dir` when the
    collection was indexed there). `labelled`: the user's own labelled pairs, trained on beside the made claims."""
    from claimhop.lm.weights import gguf_path
    from claimhop.retrieval.collection import default_folder
    from claimhop.retrieval.documents import is_collection_source
    from claimhop.retrieval.factory import search_engine

    source = Path(source).expanduser()
    if not is_collection_source(source):
        raise ValueError(f"{source} is not a folder or table of documents: `--corpus` takes what `claimhop index` "
                         "indexed")
    folder = Path(index_dir).expanduser() if index_dir else default_folder(source)
    started = time.time()
    own = labelled_for(Path(labelled), source, folder if index_dir else None, seed) if labelled else []
    items = made_claims(source, folder, sources, seed, restate, say, folder if index_dir else None) + own
    labels = Counter(item["kind"] for item in items)
    if min(labels.get(k, 0) for k in ("SUPPORTED", "CONTRADICTED", "INSUFFICIENT_INFO")) < 5:
        raise ValueError(f"{source}: too few claims could be made from its documents ({dict(labels)}); a head needs "
                         "sentences that state findings (a direction or a number)")
    rule = collection_rule()
    corpus = search_engine(str(source), folder if index_dir else None).corpus
    cached = features_dir(rule)
    from_file = f" and {len(own)} labelled pairs of {labelled}" if own else ""
    say(f"{len(items) - len(own)} claims made from {sources} documents of {source}{from_file} ({labels['SUPPORTED']} "
        f"supported, {labels['CONTRADICTED']} contradicted, {labels['INSUFFICIENT_INFO']} not settled); reading those "
        f"not read yet takes about {SECONDS_A_READ} s each (features in {cached})")
    extract_features(items, corpus, desc="collection claims", rule=rule)
    states = load_features(items, corpus, rule=rule)
    rows = answer_rows(gguf_path(QWEN_CODER_1_5B))
    x, mean, scale = head_inputs(states, rows)
    supported = np.array([item["label"] == "SUPPORTED" for item in items], dtype=int)
    groups = [item["group"] for item in items]
    support, c_support = fit_logistic(x, supported, groups, balanced=True)
    false = supported == 0
    contradicted = np.array([item["kind"] == "CONTRADICTED" for item in items], dtype=int)
    kind, c_kind = fit_logistic(x[false], contradicted[false], [g for g, f in zip(groups, false) if f], balanced=True)
    yes_only, _ = fit_logistic(x[:, -1:], supported, groups, c=1.0, balanced=True)
    arrays = {
        "mean": mean, "scale": scale, "answer_rows": rows,
        "support_weights": support.weights, "support_bias": np.array(support.bias),
        "kind_weights": kind.weights, "kind_bias": np.array(kind.bias), "threshold": np.array(0.5),
        "yes_calibration": np.array([yes_only.weights[0] / scale[-1],
                                     yes_only.bias - yes_only.weights[0] * mean[-1] / scale[-1]]),
        "fold_weights": np.zeros((0, x.shape[1])), "fold_biases": np.zeros(0),
    }
    provenance = {
        "what": f"a passage verifier head for the collection {source}, trained on claims made from its own documents",
        "command": f"claimhop train-verifier --corpus {source}",
        "trained_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "model": QWEN_CODER_1_5B.name, "model_sha256": QWEN_CODER_1_5B.sha256,
        "prompt": rule.version(), "reading": rule.name, "passage_budget_chars": rule.budget,
        "read_blocks": rule.blocks,
        "training_data": {"collection": {"source": str(source), "claims": str(claims_file(folder)),
                                         "items": len(items), "by_variant": dict(Counter(i["variant"] for i in items)),
                                         "restated": restate,
                                         "made_from": "the collection's own finding sentences, "
                                                      f"{'restated by the local model' if restate else 'verbatim'}; "
                                                      "see claimhop.evaluation.collection_claims"},
                          **({"labelled": {"file": str(labelled), "items": len(own),
                                           "by_label": dict(Counter(i["label"] for i in own)),
                                           "made_from": "the user's own labelled pairs, each evidence read among the "
                                                        "collection's passages search finds for its claim"}}
                             if own else {})},
        "support_head": {"C": c_support, "items": len(items), "supported": int(supported.sum()),
                         "class_weight": "balanced"},
        "kind_head": {"C": c_kind, "items": int(false.sum()), "contradicted": int(contradicted[false].sum()),
                      "class_weight": "balanced"},
        "seconds": round(time.time() - started, 1),
    }
    head = folder / COLLECTION_HEAD
    save_head(arrays, provenance, head, head.with_suffix(".json"))
    return head
