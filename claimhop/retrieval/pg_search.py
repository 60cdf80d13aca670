"""claimhop's whole search in PostgreSQL: BM25, dense (pgvector), title lookup and the link table, so the graph
runs the same algorithm, every hop included, on a corpus that lives in a database.

    CLAIMHOP_PG_URL=postgresql://user:pass@host/db claimhop index CORPUS --pg [--collection NAME]
    CLAIMHOP_PG_URL=... claimhop check "..." --set retriever=postgresql

One schema per collection (`claimhop_<name>`): `documents` (id, title, text, normalised title keys, how many
articles name it, its vector), `terms` and `postings` (BM25), `links` (which article names which) and `meta`.
Nothing is recomputed on the way in: the postings are the BM25 weights of claimhop's own bm25s index (the same
tokeniser, stemmer and stop words at query time), the vectors its shards' vectors and the links its link table,
so PostgreSQL ranks as the in-memory engine does. Why BM25 in plain SQL rather than PostgreSQL's full-text
ranking: `ts_rank` has no inverse document frequency, which matters most for the long OR-queries claims make.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import threading
import time
import uuid
from pathlib import Path

import numpy as np
from tqdm import tqdm

from claimhop.retrieval.article_links import specificity_of
from claimhop.retrieval.service import Hit, HybridSearch
from claimhop.retrieval.titles import FUZZY_TITLE_CUTOFF, base_title, normalize_title

ENV_URL = "CLAIMHOP_PG_URL"
ENV_COLLECTION = "CLAIMHOP_PG_COLLECTION"
DEFAULT_COLLECTION = "claimhop"
ENGINE_NAME = "postgresql"  # the `retriever` setting that picks this engine
_NAME = re.compile(r"^[a-z0-9_]{1,40}$")
_BATCH = 5000  # rows a COPY writes at once: memory bounded, changes no result


class PostgresError(ValueError):
    """The database cannot serve this collection: one line, without the URL or its password."""


def schema_of(collection: str) -> str:
    if not _NAME.match(collection):
        raise PostgresError(f"collection names are 1-40 lower-case letters, digits or '_', got {collection!r}")
    return f"claimhop_{collection}"


def connect(url: str):
    """A psycopg connection; an unreachable server is a clear one-line error."""
    import psycopg

    if not url.startswith(("postgresql://", "postgres://")):
        raise PostgresError("the PostgreSQL URL must start with postgresql:// (credentials are not shown here)")
    try:
        return psycopg.connect(url, autocommit=True)
    except psycopg.Error as err:
        reason = str(err).replace(url, "<url>").splitlines()[0][:300]
        raise PostgresError(f"cannot connect to the PostgreSQL database at {ENV_URL}: {reason}") from None


def _vector(values: np.ndarray) -> str:
    return "[" + ",".join(f"{v:.7g}" for v in np.asarray(values, dtype=np.float32)) + "]"


# -- loading -----------------------------------------------------------------------------------------------------


def load_into_postgres(corpus_path: str | Path | None, url: str, collection: str = DEFAULT_COLLECTION,
                       index_dir: Path | None = None, hnsw: bool = False) -> dict:
    """Copy claimhop's own indexes of the corpus (built first when missing) into the collection's schema. The
    load fills a staging schema and renames it into place in one transaction, so a killed load leaves the old
    collection as it was (and serving), and running it again starts over. One load of a collection at a time (a
    PostgreSQL advisory lock, released when the loading connection ends, however it ends); a database error is
    one line."""
    import psycopg

    from claimhop.retrieval.service import index_search

    schema_of(collection)
    started = time.perf_counter()
    engine = index_search(corpus_path or None, index_dir=index_dir)
    try:
        with connect(url) as conn:
            _lock_collection(conn, collection)
            report = _load(conn, engine, collection, hnsw)
    except psycopg.Error as err:
        reason = str(err).replace(url, "<url>").strip().splitlines()[0][:300] if str(err).strip() else type(err).__name__
        raise PostgresError(f"loading the collection {collection!r} failed: {reason} (the collection as it was "
                            "before still serves; run the load again)") from None
    _ENGINES.pop((url, collection), None)
    return {**report, "seconds": round(time.perf_counter() - started, 1)}


LOAD_LOCK = "claimhop index --pg"


def _lock_collection(conn, collection: str) -> None:
    """Take the collection's load lock, or say at once that another load holds it (two loads would fill one
    staging schema)."""
    took = conn.execute("SELECT pg_try_advisory_lock(hashtext(%s))", (f"{LOAD_LOCK} {collection}",)).fetchone()[0]
    if not took:
        raise PostgresError(f"another `claimhop index --pg` is loading the collection {collection!r} into this "
                            "database; wait for it to finish (or end it) and run this again")


def _load(conn, engine, collection: str, hnsw: bool) -> dict:
    """Fill the staging schema (dropping one a killed load left) and rename it into place; a load that fails
    drops its staging schema."""
    staging = f"{schema_of(collection)}_loading"
    conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    conn.execute(f"DROP SCHEMA IF EXISTS {staging} CASCADE")  # what a killed load left
    conn.execute(f"CREATE SCHEMA {staging}")
    try:
        return _fill(conn, engine, collection, staging, hnsw)
    except BaseException:
        with contextlib.suppress(Exception):  # the connection may be what failed: the next load drops it then
            conn.execute(f"DROP SCHEMA IF EXISTS {staging} CASCADE")
        raise


def _fill(conn, engine, collection: str, staging: str, hnsw: bool) -> dict:
    """The staging schema's tables, filled from claimhop's own indexes, then renamed into place."""
    from claimhop.retrieval.shards import document_vectors

    schema = schema_of(collection)
    corpus, indexes, links = engine.corpus, engine.indexes, engine.link_table()
    scores = indexes.bm25.model.scores
    vocab = indexes.bm25.model.vocab_dict
    dim = int(indexes.manifest.get("dim") or 384)  # the index's encoder's (all-MiniLM-L6-v2: 384)
    conn.execute(f"""
        CREATE TABLE {staging}.documents (doc_id int PRIMARY KEY, title text NOT NULL, body text NOT NULL,
            title_key text NOT NULL, base_key text NOT NULL, times_named int NOT NULL, embedding vector({dim}),
            source text NOT NULL DEFAULT '');
        CREATE TABLE {staging}.terms (term text PRIMARY KEY, term_id int NOT NULL);
        CREATE TABLE {staging}.postings (term_id int NOT NULL, doc_id int NOT NULL, weight real NOT NULL);
        CREATE TABLE {staging}.links (source int NOT NULL, target int NOT NULL);
        CREATE TABLE {staging}.meta (key text PRIMARY KEY, value jsonb NOT NULL);""")
    vectors = document_vectors(indexes.folder / "shards", len(corpus))
    with conn.cursor() as cur, tqdm(total=len(corpus), desc=f"postgres {collection}: documents",
                                      unit="doc") as bar:
        with cur.copy(f"COPY {staging}.documents FROM STDIN") as copy:
            for doc_id, (title, body, vector) in enumerate(zip(corpus.titles, corpus.texts, vectors, strict=True)):
                copy.write_row((doc_id, title, body, normalize_title(title), normalize_title(base_title(title)),
                                links.times_named_of(doc_id), _vector(vector), corpus.source(doc_id)))
                if doc_id % _BATCH == 0:
                    bar.update(min(_BATCH, len(corpus) - bar.n))
        bar.update(len(corpus) - bar.n)
        with cur.copy(f"COPY {staging}.terms FROM STDIN") as copy:
            for term, term_id in vocab.items():
                copy.write_row((term, term_id))
        indptr, indices, data = scores["indptr"], scores["indices"], scores["data"]
        with cur.copy(f"COPY {staging}.postings FROM STDIN") as copy:
            for term_id in tqdm(range(len(indptr) - 1), desc=f"postgres {collection}: BM25 postings",
                                unit="term"):
                for doc_id, weight in zip(indices[indptr[term_id]:indptr[term_id + 1]].tolist(),
                                          data[indptr[term_id]:indptr[term_id + 1]].tolist()):
                    copy.write_row((term_id, doc_id, weight))
        with cur.copy(f"COPY {staging}.links FROM STDIN") as copy:
            for source, target in links.pairs():
                copy.write_row((source, target))
    meta = {"corpus_sha256": corpus.sha256, "count": len(corpus), "encoder": indexes.manifest.get("encoder"),
            "bm25": "bm25s lucene weights of claimhop's index", "hnsw": hnsw, "sources": True, "load_id": uuid.uuid4().hex}
    for key, value in meta.items():
        conn.execute(f"INSERT INTO {staging}.meta VALUES (%s, %s)", (key, json.dumps(value)))
    conn.execute(f"""
        CREATE INDEX ON {staging}.postings (term_id) INCLUDE (doc_id, weight);
        CREATE INDEX ON {staging}.links (source);
        CREATE INDEX ON {staging}.documents (title_key);
        CREATE INDEX ON {staging}.documents (base_key);""")
    if hnsw:  # approximate dense search for corpora too large to scan; exact (a full scan) without it
        conn.execute(f"CREATE INDEX ON {staging}.documents USING hnsw (embedding vector_cosine_ops)")
    with conn.transaction():
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        conn.execute(f"ALTER SCHEMA {staging} RENAME TO {schema}")
    return {"collection": collection, "schema": schema, "documents": len(corpus), "terms": len(vocab),
            "postings": int(len(scores["data"])), "links": len(links.pairs()), "hnsw_index": hnsw,
            "corpus_sha256": corpus.sha256}


# -- searching ---------------------------------------------------------------------------------------------------


class PgLinks:
    """The link table in PostgreSQL, read as `claimhop.retrieval.article_links.LinkTable`. What a run asks of it
    (which articles a few dozen name, how often those are named) is read once and kept."""

    def __init__(self, search: PgSearch):
        self.search = search
        self._named_by: dict[int, list[int]] = {}
        self._times: dict[int, int] = {}
        self._generic: dict[int, list[int]] = {}
        self._lock = threading.Lock()

    @property
    def count(self) -> int:
        return self.search.count

    def _read(self, articles: list[int]) -> None:
        missing = [a for a in dict.fromkeys(articles) if a not in self._named_by]
        if not missing:
            return
        rows = self.search.query(f"SELECT source, target FROM {self.search.schema}.links WHERE source = ANY(%s) "
                                 "ORDER BY source, target", (missing,))
        found: dict[int, list[int]] = {a: [] for a in missing}
        for source, target in rows:
            found[source].append(target)
        self._times_of([t for targets in found.values() for t in targets])
        with self._lock:
            self._named_by.update(found)

    def _times_of(self, articles: list[int]) -> None:
        missing = [a for a in dict.fromkeys(articles) if a not in self._times]
        if missing:
            rows = self.search.query(f"SELECT doc_id, times_named FROM {self.search.schema}.documents "
                                     "WHERE doc_id = ANY(%s)", (missing,))
            with self._lock:
                self._times.update(dict(rows))

    def named_by(self, article: int) -> list[int]:
        self._read([article])
        return list(self._named_by[article])

    def pairs(self, sources: list[int] | None = None) -> list[tuple[int, int]]:
        if sources is None:
            return [tuple(row) for row in self.search.query(
                f"SELECT source, target FROM {self.search.schema}.links ORDER BY source, target")]
        self._read(list(sources))
        return [(source, target) for source in sources for target in self._named_by[source]]

    def times_named_of(self, article: int) -> int:
        self._times_of([article])
        return self._times.get(article, 0)

    def named_at_least(self, times: int) -> list[int]:
        if times not in self._generic:
            self._generic[times] = [r[0] for r in self.search.query(
                f"SELECT doc_id FROM {self.search.schema}.documents WHERE times_named >= %s ORDER BY doc_id", (times,))]
        return self._generic[times]

    def specificity(self, article: int) -> float:
        return specificity_of(self.times_named_of(article), self.count)

    def relative_specificity(self, article: int) -> float:
        return self.specificity(article) / math.log(self.count + 1)


class PgSearch(HybridSearch):
    """Hybrid search, title lookup, documents and links, all read from the collection's schema. Rankings are
    fused in Python the way the in-memory engine fuses them (`claimhop.retrieval.service.fuse`). What it reads of a
    load (texts, title keys, links) it keeps, until it notices, at most RELOAD_CHECK_S later, that the collection
    was loaded again."""

    RELOAD_CHECK_S = 5.0

    def __init__(self, url: str, collection: str = DEFAULT_COLLECTION):
        from psycopg_pool import ConnectionPool

        self.schema = schema_of(collection)
        self.collection = collection
        connect(url).close()  # a clear error now, not a pool timeout later
        self.pool = ConnectionPool(url, min_size=1, max_size=4, kwargs={"autocommit": True}, open=True,
                                   check=ConnectionPool.check_connection)
        self._checked = 0.0
        try:
            self._forget(self._read_meta())
        except BaseException:
            self.pool.close()  # a collection never loaded: no pool left for the garbage collector to stop
            raise

    def _read_meta(self) -> dict:
        rows = self._fetch(f"SELECT key, value FROM {self.schema}.meta",
                           missing=f"the collection {self.collection!r} is not in the database: load it with "
                                   f"`claimhop index --pg --collection {self.collection}`")
        return {key: value for key, value in rows}

    def _forget(self, meta: dict) -> None:
        """Start from this load of the collection: what was read of an earlier load (documents, title keys,
        links) is dropped, since its row numbers and texts may differ."""
        self.meta = meta
        self.count = int(meta["count"])
        self._documents: dict[int, Hit] = {}
        self._keys: list[tuple[str, int]] | None = None
        self._links = PgLinks(self)
        self._checked = time.monotonic()

    def identity(self) -> dict:
        """What the loader recorded of the collection now (its corpus's sha256, size, encoder, index kind), read
        afresh: the part of a verdict's fingerprint the corpus and index give."""
        meta = self._read_meta()
        return {"collection": self.collection, **{k: meta.get(k) for k in ("corpus_sha256", "count", "encoder", "hnsw")}}

    def _notice_reload(self) -> None:
        """Every RELOAD_CHECK_S, whether `claimhop index --pg` has loaded the collection again (elsewhere): then
        forget what was read of the old load instead of citing its texts."""
        if time.monotonic() - self._checked < self.RELOAD_CHECK_S:
            return
        self._checked = time.monotonic()
        meta = self._read_meta()
        if meta.get("load_id") != self.meta.get("load_id") or meta.get("corpus_sha256") != self.meta.get("corpus_sha256"):
            self._forget(meta)

    def query(self, sql: str, params: tuple | dict = (), missing: str = "") -> list[tuple]:
        self._notice_reload()
        return self._fetch(sql, params, missing)

    def _fetch(self, sql: str, params: tuple | dict = (), missing: str = "") -> list[tuple]:
        import psycopg

        try:
            with self.pool.connection() as conn:
                return conn.execute(sql, params).fetchall()
        except psycopg.errors.UndefinedTable:
            raise PostgresError(missing or f"the collection {self.collection!r} is incomplete: load it again "
                                "with `claimhop index --pg`") from None

    def lexical(self, queries: list[str], k: int) -> list[list[tuple[int, float]]]:
        """BM25 over the postings: the sum of each query token's weight, repeated tokens counted again (bm25s)."""
        from claimhop.retrieval.lexical import tokens_of

        results = []
        for tokens in tokens_of(queries):  # the in-memory index's terms
            rows = self.query(
                f"SELECT p.doc_id, SUM(p.weight) AS score FROM unnest(%s::text[]) AS q(term) "
                f"JOIN {self.schema}.terms USING (term) JOIN {self.schema}.postings p USING (term_id) "
                "GROUP BY p.doc_id ORDER BY score DESC, p.doc_id LIMIT %s", (tokens, k)) if tokens else []
            results.append([(int(i), float(s)) for i, s in rows if s > 0])
        return results

    def dense(self, queries: list[str], k: int) -> list[list[tuple[int, float]]]:
        """Cosine similarity by pgvector: exact (a scan) unless the collection was loaded with an HNSW index."""
        from claimhop.retrieval.encoder import ENCODER_NAME
        from claimhop.retrieval.encoders import encoder_for

        encode = encoder_for(self.meta.get("encoder") or ENCODER_NAME)  # the model that embedded the collection
        results = []
        for vector in map(_vector, encode(queries)):
            rows = self.query(
                f"SELECT doc_id, 1 - (embedding <=> %(q)s::vector) FROM {self.schema}.documents "
                "ORDER BY embedding <=> %(q)s::vector LIMIT %(k)s", {"q": vector, "k": k})
            results.append([(int(i), float(s)) for i, s in rows])
        return results

    def documents(self, doc_ids: list[int]) -> list[Hit]:
        self._notice_reload()  # the texts kept below are of one load
        missing = [i for i in dict.fromkeys(doc_ids) if i not in self._documents]
        if missing:
            source = "source" if self.meta.get("sources") else "''"  # collections loaded before sources were kept
            for doc_id, title, body, source in self.query(
                    f"SELECT doc_id, title, body, {source} FROM {self.schema}.documents WHERE doc_id = ANY(%s)",
                    (missing,)):
                self._documents[doc_id] = Hit(doc_id, title, 0.0, body, source)
        return [self._documents[i] for i in doc_ids if i in self._documents]

    def document_frequencies(self, terms: list[str]) -> tuple[dict[str, int], int]:
        """From the postings, as the in-memory index counts them (a posting is a document holding the term)."""
        rows = self.query(f"SELECT t.term, count(*) FROM {self.schema}.terms t JOIN {self.schema}.postings p "
                          "USING (term_id) WHERE t.term = ANY(%s) GROUP BY t.term", (terms,)) if terms else []
        return {term: int(n) for term, n in rows}, self._size()

    def holding_all(self, word_sets: list[list[str]]) -> tuple[list[int], int]:
        """From the postings, as the in-memory index counts them: the documents with a posting of every term."""
        counts = []
        for words in word_sets:
            words = sorted(set(words))
            rows = self.query(
                f"SELECT count(*) FROM (SELECT p.doc_id FROM {self.schema}.terms t JOIN {self.schema}.postings p "
                "USING (term_id) WHERE t.term = ANY(%s) GROUP BY p.doc_id HAVING count(*) = %s) held",
                (words, len(words))) if words else [(0,)]
            counts.append(int(rows[0][0]))
        return counts, self._size()

    def _size(self) -> int:
        """How many documents the collection holds (what a term's or a name's count is a share of)."""
        return int(self.query(f"SELECT count(*) FROM {self.schema}.documents")[0][0])

    def by_title(self, name: str, limit: int = 5) -> list[Hit]:
        """Documents titled `name` as the in-memory `TitleIndex` finds them: normalised exact, then base title
        (both by index in SQL), then a close spelling among the title keys (read once, only when needed)."""
        key = normalize_title(name)
        if not key:
            return []
        found = [r[0] for r in self.query(f"SELECT doc_id FROM {self.schema}.documents WHERE title_key = %s "
                                          "ORDER BY doc_id", (key,))]
        found += [r[0] for r in self.query(f"SELECT doc_id FROM {self.schema}.documents WHERE base_key = %s "
                                           "ORDER BY doc_id", (key,)) if r[0] not in found]
        if not found:
            found = self._fuzzy(key, limit)
        return [Hit(d.doc_id, d.title, 1.0, d.text, d.source) for d in self.documents(found[:limit])]

    def _fuzzy(self, key: str, limit: int) -> list[int]:
        from rapidfuzz import fuzz, process

        self._notice_reload()
        if self._keys is None:
            by_key: dict[str, list[int]] = {}
            for doc_id, title_key in self.query(f"SELECT doc_id, title_key FROM {self.schema}.documents ORDER BY doc_id"):
                by_key.setdefault(title_key, []).append(doc_id)
            self._keys = list(by_key.items())
        keys = [k for k, _ in self._keys]
        found: list[int] = []
        for _match, _score, index in process.extract(key, keys, scorer=fuzz.ratio, limit=limit,
                                                     score_cutoff=FUZZY_TITLE_CUTOFF):
            found.extend(i for i in self._keys[index][1] if i not in found)
        return found

    def link_table(self) -> PgLinks:
        return self._links


_ENGINES: dict[tuple[str, str], PgSearch] = {}
_LOCK = threading.Lock()


def pg_search(url: str | None = None, collection: str | None = None) -> PgSearch:
    """The process-wide engine for the collection (CLAIMHOP_PG_COLLECTION) at CLAIMHOP_PG_URL."""
    url = url or os.environ.get(ENV_URL, "")
    if not url:
        raise PostgresError(f"retriever={ENGINE_NAME} reads the corpus from the database at {ENV_URL}; set it")
    collection = collection or os.environ.get(ENV_COLLECTION, DEFAULT_COLLECTION)
    with _LOCK:
        if (url, collection) not in _ENGINES:
            _ENGINES[(url, collection)] = PgSearch(url, collection)
        return _ENGINES[(url, collection)]
