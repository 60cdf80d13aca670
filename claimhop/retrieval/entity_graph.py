"""The corpus as an entity graph in Kuzu (embedded graph database): which article names which.

    (:Article {id, title, embedding}) -[:HAS_SECTION]-> (:Section {id, article, position, text, embedding})
    (:Section)-[:MENTIONS]->(:Article)      the section's text names the article's title
    (:Article)-[:LINKS_TO]->(:Article)      some section of the first names the second

Multi-hop claims hinge on such links ("the lead singer of The Runaways" -> "Cherie Currie"): from documents
already found, the bridge step can follow LINKS_TO to the articles they name. A title is looked for verbatim
(case-sensitive, whole words) with an Aho-Corasick automaton. A one-word title is linked only when the corpus
never writes it in lower case ("Madonna" yes; "Journey", "Foxes" no: "a journey", "foxes" are words). Sections are
runs of sentences up to MENTION_SECTION_CHARS; an article of one section reuses the article's vector, longer ones have
their sections embedded.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import tempfile
import threading
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from tqdm import tqdm

from claimhop.atomic import write_json
from claimhop.retrieval.article_links import rank_linked
from claimhop.retrieval.corpus import CorpusFile, iter_documents
from claimhop.retrieval.index_store import (
    GRAPH_DIR,
    GRAPH_META,
    open_indexes,
    remove_entity_graph,
)
from claimhop.retrieval.title_mentions import (  # noqa: F401  (linkable: part of this module's public face)
    common_words,
    linkable,
    named_articles,
    sections_of,
    title_automaton,
)

if TYPE_CHECKING:
    import ahocorasick

SCHEMA = [
    "CREATE NODE TABLE Article(id INT64 PRIMARY KEY, title STRING, embedding FLOAT[384])",
    "CREATE NODE TABLE Section(id STRING PRIMARY KEY, article INT64, position INT64, text STRING, embedding FLOAT[384])",
    "CREATE REL TABLE HAS_SECTION(FROM Article TO Section)",
    "CREATE REL TABLE MENTIONS(FROM Section TO Article)",
    "CREATE REL TABLE LINKS_TO(FROM Article TO Article)",
]


def _vector_text(vector: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.5f}" for x in vector) + "]"


def _write_tables(corpus: CorpusFile, titles: list[str], automaton: ahocorasick.Automaton, shards: Path,
                  work: Path, counts: dict[str, int]) -> None:
    """The graph's rows as CSV files in the (temporary) work folder, one pass over the corpus."""
    from claimhop.retrieval.encoder import encode
    from claimhop.retrieval.shards import document_vectors

    with ExitStack() as stack:
        writers = {name: csv.writer(stack.enter_context(open(work / f"{name}.csv", "w", newline="", encoding="utf-8")))
                   for name in ("article", "section", "has_section", "mentions", "links")}
        vectors = document_vectors(shards, len(titles))
        documents = zip(iter_documents(corpus.path), vectors, strict=True)
        for doc_id, ((title, text), vector) in enumerate(tqdm(documents, total=len(titles), desc="entity graph")):
            writers["article"].writerow([doc_id, title, _vector_text(vector)])
            parts = sections_of(text)
            section_vectors = [vector] if len(parts) == 1 else list(encode(parts))
            counts["sections_embedded"] += 0 if len(parts) == 1 else len(parts)
            links: set[int] = set()
            for position, (part, part_vector) in enumerate(zip(parts, section_vectors)):
                section_id = f"{doc_id}-{position}"
                writers["section"].writerow([section_id, doc_id, position, " ".join(part.split()),
                                             _vector_text(part_vector)])
                writers["has_section"].writerow([doc_id, section_id])
                named = named_articles(automaton, part) - {doc_id}
                writers["mentions"].writerows([section_id, target] for target in sorted(named))
                counts["mentions"] += len(named)
                links |= named
            writers["links"].writerows([doc_id, target] for target in sorted(links))
            counts["articles"] += 1
            counts["sections"] += len(parts)
            counts["links"] += len(links)


def require_kuzu():
    """Kuzu, which only the entity graph uses, so it is an extra: a clear error when it is not installed.

    xllamacpp is loaded first: with Kuzu's native library already in the process, loading xllamacpp's aborts it
    (`std::bad_alloc`, kuzu 0.11.3 with xllamacpp 2026.10), and a process that searches the graph may later need the
    local model; the other order is safe (tests/unit_tests/test_native_load_order.py)."""
    import xllamacpp  # noqa: F401 - loaded before kuzu on purpose (see above)

    try:
        import kuzu
    except ImportError:
        raise ValueError("the entity graph needs Kuzu: pip install 'claimhop[entity-graph]'") from None
    return kuzu


def build_entity_graph(corpus: CorpusFile, folder: Path | None = None) -> dict:
    """Write the Kuzu graph beside the corpus's indexes (built first if needed). Written to a temporary folder and
    renamed into place, so a killed build leaves no half graph."""
    kuzu = require_kuzu()

    indexes = open_indexes(corpus, folder=folder)
    shards = indexes.folder / "shards"
    titles: list[str] = []
    ordinary: set[str] = set()
    for title, text in iter_documents(corpus.path):
        titles.append(title)
        ordinary |= common_words([text])
    automaton = title_automaton(titles, ordinary)
    work = Path(tempfile.mkdtemp(prefix=".entity-graph.", suffix=".tmp", dir=indexes.folder))
    counts = {"articles": 0, "sections": 0, "mentions": 0, "links": 0, "sections_embedded": 0}
    try:
        _write_tables(corpus, titles, automaton, shards, work, counts)
        database = kuzu.Database(str(work / GRAPH_DIR))
        connection = kuzu.Connection(database)
        for statement in SCHEMA:
            connection.execute(statement)
        for table, name in [("Article", "article"), ("Section", "section"), ("HAS_SECTION", "has_section"),
                            ("MENTIONS", "mentions"), ("LINKS_TO", "links")]:
            source = (work / f"{name}.csv").as_posix().replace("\\", "\\\\").replace("'", "\\'")
            connection.execute(f"COPY {table} FROM '{source}' (HEADER=false)")
        connection.close()
        database.close()
        remove_entity_graph(indexes.folder)
        os.replace(work / GRAPH_DIR, indexes.folder / GRAPH_DIR)
        write_json(indexes.folder / GRAPH_META, {"corpus_sha256": corpus.sha256, **counts})
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {"graph": str(indexes.folder / GRAPH_DIR), **counts}


_CONNECTIONS: dict[str, object] = {}
_LOCK = threading.Lock()


def graph_connection(index_folder: Path, corpus_sha256: str):
    """A read-only connection to the folder's entity graph for this corpus (one per process), or None when no
    graph was built for exactly this corpus."""
    path = index_folder / GRAPH_DIR
    try:
        meta = json.loads((index_folder / GRAPH_META).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    if meta.get("corpus_sha256") != corpus_sha256 or not path.exists():
        return None
    key = f"{path}|{corpus_sha256}|{path.stat().st_mtime_ns}"
    with _LOCK:
        if key not in _CONNECTIONS:
            kuzu = require_kuzu()
            _CONNECTIONS[key] = kuzu.Connection(kuzu.Database(str(path), read_only=True))
        return _CONNECTIONS[key]


def linked_articles(connection, article_ids: list[int], limit: int, exclude: list[int] | None = None
                    ) -> list[tuple[int, int, str]]:
    """(from id, to id, to title) for articles the given ones link to, ranked as `rank_linked` says."""
    if not article_ids or limit <= 0:
        return []
    result = connection.execute(
        "MATCH (a:Article)-[:LINKS_TO]->(b:Article) WHERE a.id IN $ids RETURN a.id, b.id, b.title",
        {"ids": article_ids},
    )
    pairs, titles = [], {}
    while result.has_next():
        source, target, title = result.get_next()
        pairs.append((int(source), int(target)))
        titles[int(target)] = str(title)
    return [(source, target, titles[target]) for source, target in rank_linked(pairs, article_ids, limit, exclude)]
