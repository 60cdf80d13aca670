"""Retrieval at 25k (the real corpus), 250k and 1M documents on this machine: build time, index size on disk,
peak memory, query latency p50/p95 for dense, BM25 and hybrid, the recall of the approximate index against
exact search, and bm25s against rank-bm25 in the same run.

Table: docs/retrieval.md's "Retrieval at scale" table.

    .venv/bin/python -m benchmarks.retrieval --sizes 24729,250000,1000000

Larger corpora are synthetic, made from the real one: each document's text samples words from the real
corpus's word frequencies (lengths as in the real corpus), and its vector is a real document's vector plus
Gaussian noise (sigma 0.02 per dimension, a noise vector of norm ~0.4, before renormalising), so BM25 sees a realistic vocabulary and FAISS a
realistic spread of directions without encoding a million texts. The vectors are put where a killed build
would have left its shards, so the build under test is claimhop's own (`build_indexes`), resuming. Queries
are real HoVer dev claims. Each size runs in its own process so its peak memory is its own.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from claimhop.atomic import atomic_path, write_json, write_text
from claimhop.evaluation.data import load_claims
from claimhop.evaluation.figures import pyplot, save_png
from claimhop.retrieval.corpus import BUNDLED_CORPUS, corpus_file, load_corpus
from claimhop.retrieval.embeddings import BUNDLED_EMBEDDINGS
from claimhop.retrieval.encoder import ENCODER_NAME, encode
from claimhop.retrieval.index_store import build_indexes, claim_index_folder
from claimhop.retrieval.service import IndexSearch
from claimhop.retrieval.shards import SHARD_SIZE, shard_path
from claimhop.server.process_memory import peak_rss_mib

REAL_SIZE = 24_729
NOISE = 0.02  # per dimension: a noise vector of norm ~0.4 beside the unit-length real one


def percentiles(samples: list[float]) -> tuple[float, float]:
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    return round(cuts[49], 2), round(cuts[94], 2)


def synthetic_corpus(size: int, folder: Path, seed: int = 0) -> tuple[Path, Path]:
    """A JSONL.gz corpus of `size` documents and, beside it, its shards, both made from the real corpus."""
    real = load_corpus(BUNDLED_CORPUS)
    rng = np.random.default_rng(seed)
    words = [w for text in real.texts for w in text.split()]
    vocab, counts = np.unique(np.array(words, dtype=object), return_counts=True)
    lengths = np.array([len(t.split()) for t in real.texts])
    probs = counts / counts.sum()
    path = folder / f"synthetic-{size}.jsonl.gz"
    with atomic_path(path) as tmp, gzip.open(tmp, "wt", encoding="utf-8") as out:
        for start in range(0, size, 50_000):
            n = min(50_000, size - start)
            lens = rng.choice(lengths, n)
            tokens = rng.choice(len(vocab), int(lens.sum()), p=probs)
            cursor = 0
            for i, length in enumerate(lens):
                text = " ".join(vocab[tokens[cursor:cursor + length]])
                cursor += length
                out.write(json.dumps({"title": f"Synthetic document {start + i}", "text": text}) + "\n")
    shards = claim_index_folder(folder / "index") / "shards"
    shards.mkdir(parents=True, exist_ok=True)
    base = np.load(BUNDLED_EMBEDDINGS, mmap_mode="r")
    for number, start in enumerate(range(0, size, SHARD_SIZE)):
        n = min(SHARD_SIZE, size - start)
        vectors = np.asarray(base[rng.integers(0, len(base), n)], dtype=np.float32)
        vectors += rng.normal(0, NOISE, vectors.shape).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        with atomic_path(shard_path(shards, number)) as tmp, open(tmp, "wb") as handle:
            np.save(handle, vectors.astype(np.float16))
    write_json(shards / "plan.json", {"corpus_sha256": corpus_file(path).sha256, "encoder": ENCODER_NAME,
                                      "shard_size": SHARD_SIZE})
    return path, folder / "index"


def time_queries(fn, queries: list, repeat: int = 1) -> tuple[float, float]:
    times = []
    for query in queries:
        started = time.perf_counter()
        for _ in range(repeat):
            fn(query)
        times.append((time.perf_counter() - started) * 1000 / repeat)
    return percentiles(times)


def folder_mib(folder: Path) -> float:
    return round(sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and "shards" not in p.parts) / 2**20, 1)


def measure_one(size: int, queries: int, workdir: Path) -> dict:
    """Everything for one corpus size, in this process."""
    if size == REAL_SIZE:
        corpus_path, index_folder = BUNDLED_CORPUS, workdir / "index-real"
    else:
        corpus_path, index_folder = synthetic_corpus(size, workdir)
    before_build = peak_rss_mib()
    started = time.perf_counter()
    indexes = build_indexes(corpus_file(corpus_path), index_folder)
    build_s = time.perf_counter() - started
    row = {
        "documents": size, "data": "real" if size == REAL_SIZE else "synthetic",
        "index_type": indexes.manifest["index_type"], "build_s": round(build_s, 1),
        "build_peak_rss_mib": peak_rss_mib(), "rss_before_build_mib": before_build,
        "index_mib": folder_mib(index_folder),
        "ann_recall_at_10": indexes.manifest.get("recall_at_10_vs_exact", 1.0),
    }
    claims = [c["claim"] for c in load_claims(limit=queries, seed=3)]
    vectors = encode(claims)
    corpus = load_corpus(corpus_path)
    retriever = IndexSearch(corpus, indexes)
    dense = indexes.dense.index
    row["encode_query_p50_ms"], row["encode_query_p95_ms"] = time_queries(lambda q: encode([q]), claims)
    row["dense_p50_ms"], row["dense_p95_ms"] = time_queries(lambda v: dense.search(v[None, :], 21), list(vectors))
    row["bm25_p50_ms"], row["bm25_p95_ms"] = time_queries(lambda q: retriever.search(q, 21, "bm25"), claims)
    row["hybrid_p50_ms"], row["hybrid_p95_ms"] = time_queries(lambda q: retriever.search(q, 21, "hybrid"), claims)
    if row["index_type"] != "flat":
        import faiss

        from claimhop.retrieval.shards import iter_shards
        exact = faiss.IndexFlatIP(dense.d)
        for shard in iter_shards(sorted((index_folder / "shards").glob("emb-*.npy"))):
            exact.add(shard)
        row["exact_dense_p50_ms"], row["exact_dense_p95_ms"] = time_queries(
            lambda v: exact.search(v[None, :], 21), list(vectors[:50]))
    if size == REAL_SIZE:
        row.update(bm25s_against_rank_bm25(corpus, retriever, claims))
    return row


def bm25s_against_rank_bm25(corpus, retriever: IndexSearch, claims: list[str]) -> dict:
    """Queries per second of bm25s (claimhop's) and rank-bm25 on the same corpus, tokenisation and queries."""
    from rank_bm25 import BM25Okapi

    from claimhop.retrieval.lexical import _tokenize

    tokenized = _tokenize([f"{t} {x}" for t, x in zip(corpus.titles, corpus.texts)])
    inverse = {i: w for w, i in tokenized.vocab.items()}
    rank = BM25Okapi([[inverse[i] for i in doc] for doc in tokenized.ids])
    query_tokens = [[inverse.get(i, "") for i in q] for q in _tokenize(claims).ids]
    sample = query_tokens[:50]
    started = time.perf_counter()
    for q in sample:
        np.argpartition(-rank.get_scores(q), 21)[:21]
    rank_qps = len(sample) / (time.perf_counter() - started)
    started = time.perf_counter()
    for q in claims:
        retriever.indexes.bm25.search([q], 21)
    bm25s_qps = len(claims) / (time.perf_counter() - started)
    return {"bm25s_qps": round(bm25s_qps, 1), "rank_bm25_qps": round(rank_qps, 1),
            "bm25s_speedup": round(bm25s_qps / rank_qps, 1)}


COLUMNS = [("documents", "docs"), ("data", "data"), ("index_type", "FAISS"), ("build_s", "build s"),
           ("build_peak_rss_mib", "peak MiB"), ("index_mib", "on disk MiB"), ("ann_recall_at_10", "recall@10 vs exact"),
           ("dense_p50_ms", "dense p50"), ("dense_p95_ms", "dense p95"), ("exact_dense_p50_ms", "exact p50"),
           ("encode_query_p50_ms", "encode p50"), ("bm25_p50_ms", "BM25 p50"), ("bm25_p95_ms", "BM25 p95"),
           ("hybrid_p50_ms", "hybrid p50"), ("hybrid_p95_ms", "hybrid p95")]


def render(rows: list[dict]) -> str:
    lines = ["| " + " | ".join(h for _, h in COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for row in rows:
        lines.append("| " + " | ".join(f"{row.get(k, '–'):,}" if isinstance(row.get(k), int) else str(row.get(k, "–"))
                                       for k, _ in COLUMNS) + " |")
    real = next((r for r in rows if "bm25s_qps" in r), None)
    if real:
        lines.append(f"\nbm25s {real['bm25s_qps']} queries/s vs rank-bm25 {real['rank_bm25_qps']} queries/s on the "
                     f"real corpus: {real['bm25s_speedup']}x. Latencies in ms per single query; dense is search only "
                     f"(encoding the query is the 'encode' column); hybrid includes encoding, both searches and fusion.")
    return "\n".join(lines)


def plot(rows: list[dict], path: Path) -> None:
    plt = pyplot()

    sizes = [r["documents"] for r in rows]
    fig, (latency, build) = plt.subplots(1, 2, figsize=(10, 4))
    for key, label in [("dense_p50_ms", "dense (FAISS) p50"), ("exact_dense_p50_ms", "exact dense p50"),
                       ("bm25_p50_ms", "BM25 p50"), ("hybrid_p50_ms", "hybrid p50")]:
        points = [(r["documents"], r[key]) for r in rows if key in r]
        if points:
            latency.plot(*zip(*points), marker="o", label=label)
    latency.set(xscale="log", yscale="log", xlabel="documents", ylabel="ms per query", title="query latency")
    latency.legend(fontsize=8)
    build.plot(sizes, [r["build_s"] for r in rows], marker="o", label="build s")
    build.plot(sizes, [r["build_peak_rss_mib"] / 1024 for r in rows], marker="s", label="peak GiB")
    build.set(xscale="log", xlabel="documents", title="index build")
    build.legend(fontsize=8)
    fig.tight_layout()
    save_png(fig, path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=f"{REAL_SIZE},250000,1000000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--out", type=Path, default=Path("docs/results/retrieval"))
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--workdir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure_one(args.one, args.queries, args.workdir)))
        return
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for size in [int(s) for s in args.sizes.split(",")]:
        print(f"{size:,} documents ...", flush=True)
        with tempfile.TemporaryDirectory() as tmp:
            done = subprocess.run([sys.executable, "-m", "benchmarks.retrieval", "--one", str(size), "--queries",
                                   str(args.queries), "--workdir", tmp], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            print(done.stderr[-3000:], file=sys.stderr)
            raise SystemExit(f"{size} documents: the measurement failed")
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(json.dumps(rows[-1]), flush=True)
        write_json(args.out / "results.json", rows)
    table = render(rows)
    write_text(args.out / "table.md", table + "\n")
    plot(rows, args.out / "retrieval.png")
    print(table)


if __name__ == "__main__":
    main()
