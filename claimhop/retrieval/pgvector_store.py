"""A corpus in PostgreSQL with pgvector, through langchain-postgres: an engine that scales past one machine.

    CLAIMHOP_PG_URL=postgresql://user:pass@host/db claimhop index CORPUS --pgvector [--collection NAME]
    CLAIMHOP_PG_URL=... claimhop check "..." --set retriever=claimhop.retrieval.pgvector_store:pgvector_retriever

The vectors are the ones claimhop's own index holds (same encoder, read from its shards, never re-encoded), so
pgvector's exact cosine search returns what the built-in dense search returns. Loading upserts by a stable id
per document, so a killed load is simply run again. The password comes from the URL in the environment and is
never printed.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

from claimhop.retrieval.corpus import BUNDLED_CORPUS, corpus_file, iter_documents
from claimhop.retrieval.engines import ClaimhopEmbeddings
from claimhop.retrieval.index_store import open_indexes
from claimhop.retrieval.shards import document_vectors

ENV_URL = "CLAIMHOP_PG_URL"
ENV_COLLECTION = "CLAIMHOP_PG_COLLECTION"
DEFAULT_COLLECTION = "claimhop"
DIM = 384  # all-MiniLM-L6-v2's embedding size, the column's width


def sqlalchemy_url(url: str) -> str:
    """postgresql://... -> postgresql+psycopg://... (the driver langchain-postgres uses)."""
    if url.startswith("postgresql+psycopg://"):
        return url
    if url.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    raise ValueError("the PostgreSQL URL must start with postgresql:// (credentials are not shown here)")


def vector_store(url: str, collection: str = DEFAULT_COLLECTION):
    """The collection, connected: an unreachable server or a database without pgvector is a clear error (one
    line, without the URL and its password), not a driver traceback."""
    from langchain_postgres import PGVector

    connection = sqlalchemy_url(url)
    try:
        return PGVector(ClaimhopEmbeddings(), connection=connection, embedding_length=DIM,
                        collection_name=collection, use_jsonb=True)
    except Exception as err:  # noqa: BLE001 - the driver raises many kinds; each is bad configuration here
        reason = str(err).replace(url, "<url>").replace(connection, "<url>").splitlines()[0][:300]
        raise ValueError(f"cannot use the PostgreSQL database at {ENV_URL}: {reason}") from None


def load_into_pgvector(corpus_path: str | Path | None, url: str, collection: str = DEFAULT_COLLECTION,
                       batch: int = 1000, hnsw: bool = True, index_dir: Path | None = None) -> dict:
    """Upsert every document (text, title, doc_id metadata, claimhop's vector) into the collection."""
    from sqlalchemy import text

    corpus = corpus_file(corpus_path or BUNDLED_CORPUS)
    indexes = open_indexes(corpus, folder=index_dir)  # its shards hold the vectors, in corpus order
    store = vector_store(url, collection)
    started = time.perf_counter()
    vectors = document_vectors(indexes.folder / "shards", indexes.manifest["count"])
    rows: list[tuple[int, str, str, list[float]]] = []
    loaded = 0
    with tqdm(total=indexes.manifest["count"], desc=f"pgvector {collection}", unit="doc") as bar:
        for doc_id, ((title, body), vector) in enumerate(zip(iter_documents(corpus.path), vectors, strict=True)):
            rows.append((doc_id, title, body, np.asarray(vector, dtype=np.float32).tolist()))
            if len(rows) == batch:
                loaded += _upsert(store, rows, corpus.sha256)
                bar.update(len(rows))
                rows = []
        if rows:
            loaded += _upsert(store, rows, corpus.sha256)
            bar.update(len(rows))
    if hnsw:
        with store._make_sync_session() as session:  # langchain-postgres has no public call for a vector index
            session.execute(text("CREATE INDEX IF NOT EXISTS claimhop_embedding_hnsw ON langchain_pg_embedding "
                                 "USING hnsw ((embedding::vector(384)) vector_cosine_ops)"))
            session.commit()
    return {"collection": collection, "documents": loaded, "corpus_sha256": corpus.sha256,
            "hnsw_index": hnsw, "seconds": round(time.perf_counter() - started, 1)}


def _upsert(store, rows: list[tuple[int, str, str, list[float]]], corpus_sha256: str) -> int:
    store.add_embeddings(
        texts=[body for _, _, body, _ in rows], embeddings=[vector for *_, vector in rows],
        metadatas=[{"title": title, "doc_id": doc_id} for doc_id, title, _, _ in rows],
        ids=[f"{corpus_sha256[:16]}-{doc_id}" for doc_id, *_ in rows],
    )
    return len(rows)


def pgvector_retriever():
    """The `retriever` setting's factory: the collection named by CLAIMHOP_PG_COLLECTION at CLAIMHOP_PG_URL."""
    url = os.environ.get(ENV_URL)
    if not url:
        raise ValueError(f"set {ENV_URL} to the PostgreSQL URL of the pgvector collection")
    return vector_store(url, os.environ.get(ENV_COLLECTION, DEFAULT_COLLECTION)).as_retriever(search_kwargs={"k": 21})
