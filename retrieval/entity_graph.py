"""The corpus as an entity graph in Kuzu (embedded graph database): which article names which.

    (:Article {id, title, embedding}) -[:HAS_SECTION]-> (:Section {id, article, position, text, embedding})
    (:Section)-[:MENTIONS]->(:Article)      the section's text names the article's title
    (:Article)-[:LINKS_TO]->(:Article)      some section of the first names the second

Multi-hop claims hinge on such links ("the lead singer of The Runaways" -> "Cherie Currie"): from documents
already found, the bridge step can follow LINKS_TO to the articles they name. A title is looked for verbatim
(case-sensitive, whole words) with an Aho-Corasick automaton. A one-word title is linked only when the corpus
never writes it in lower case ("Madonna" yes; "Journey", "Foxes" no: "a journey", "foxes" are words). Sections are runs of sentences up to SECTION_CHARS;
an article of one section reuses the article's vector, longer ones have their sections embedded.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import tempfile
import threading
from contextlib import ExitStack
from pathlib import Path

import ahocorasick
import numpy as np
from tqdm import tqdm

from retrieval.atomic import write_json
from retrieval.corpus import CorpusFile, iter_documents
from retrieval.index_store import open_indexes
from retrieval.titles import base_title

GRAPH_DIR = "entity_graph.kuzu"
GRAPH_META = "entity_graph.json"  # which corpus the graph was built from; written last
SECTION_CHARS = 800
MAX_TARGETS_PER_NAME = 3
SCHEMA = [
    "CREATE NODE TABLE Article(id INT64 PRIMARY KEY, title STRING, embedding FLOAT[384])",
    "CREATE NODE TABLE Section(id STRING PRIMARY KEY, article INT64, position INT64, text STRING, embedding FLOAT[384])",
    "CREATE REL TABLE HAS_SECTION(FROM Article TO Section)",
    "CREATE REL TABLE MENTIONS(FROM Section TO Article)",
    "CREATE REL TABLE LINKS_TO(FROM Article TO Article)",
]


def linkable(name: str, common_words: set[str]) -> bool:
    """Several words, or one capitalised word the corpus never uses as an ordinary (lower-case) word."""
    words = name.split()
    return len(words) >= 2 or (len(name) >= 4 and name[:1].isupper() and name.lower() not in common_words)


_LOWER_WORD = re.compile(r"\b[a-z][a-z'-]+\b")


def common_words(texts) -> set[str]:
    """Every lower-case word the texts use."""
    found: set[str] = set()
    for text in texts:
        found.update(_LOWER_WORD.findall(text))
    return found


def title_automaton(titles: list[str], ordinary: set[str]) -> ahocorasick.Automaton:
    """Every linkable title and base title ("Foxes (soundtrack)" -> "Foxes") -> the articles it names."""
    names: dict[str, list[int]] = {}
    for doc_id, title in enumerate(titles):
        for name in dict.fromkeys([title, base_title(title)]):
            if linkable(name, ordinary):
                targets = names.setdefault(name, [])
                if len(targets) < MAX_TARGETS_PER_NAME:
                    targets.append(doc_id)
    automaton = ahocorasick.Automaton()
    for name, targets in names.items():
        automaton.add_word(name, (name, tuple(targets)))
    automaton.make_automaton()
    return automaton


_WORD = re.compile(r"\w")


def named_articles(automaton: ahocorasick.Automaton, text: str) -> set[int]:
    """Articles whose title stands in `text` as whole words."""
    found: set[int] = set()
    for end, (name, targets) in automaton.iter(text):
        start = end - len(name) + 1
        before = text[start - 1] if start > 0 else " "
        after = text[end + 1] if end + 1 < len(text) else " "
        if not _WORD.match(before) and not _WORD.match(after):
            found.update(targets)
    return found


def sections_of(text: str) -> list[str]:
    from verification.sentences import split_sentences

    sections: list[str] = []
    for sentence in split_sentences(text) or [text]:
        if sections and len(sections[-1]) + 1 + len(sentence) <= SECTION_CHARS:
            sections[-1] += " " + sentence
        else:
            sections.append(sentence)
    return sections


def _vector_text(vector: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.5f}" for x in vector) + "]"


def _write_tables(corpus: CorpusFile, titles: list[str], automaton: ahocorasick.Automaton, shards: Path,
                  work: Path, counts: dict[str, int]) -> None:
    """The graph's rows as CSV files in the (temporary) work folder, one pass over the corpus."""
    from retrieval.encoder import encode
    from retrieval.shards import document_vectors

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


def build_entity_graph(corpus: CorpusFile, folder: Path | None = None) -> dict:
    """Write the Kuzu graph beside the corpus's indexes (built first if needed). Written to a temporary folder and
    renamed into place, so a killed build leaves no half graph."""
    import kuzu

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


def remove_entity_graph(folder: Path) -> None:
    """The graph's ids are row numbers of one corpus: an index rebuilt for another corpus must not keep it."""
    (folder / GRAPH_META).unlink(missing_ok=True)
    target = folder / GRAPH_DIR
    if target.is_dir():
        shutil.rmtree(target)
    elif target.exists():
        target.unlink()
    for side in folder.glob(GRAPH_DIR + ".*"):  # Kuzu's write-ahead log, if one was left
        side.unlink()


_CONNECTIONS: dict[str, object] = {}
_LOCK = threading.Lock()


def graph_connection(index_folder: Path, corpus_sha256: str):
    """A read-only connection to the folder's entity graph for this corpus (one per process), or None when no
    graph was built for exactly this corpus."""
    import kuzu

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
            _CONNECTIONS[key] = kuzu.Connection(kuzu.Database(str(path), read_only=True))
        return _CONNECTIONS[key]


def linked_articles(connection, article_ids: list[int], limit: int, exclude: list[int] | None = None
                    ) -> list[tuple[int, int, str]]:
    """(from id, to id, to title) for articles the given ones link to (other than themselves and `exclude`):
    the most linked-to first, then, among equals, those named by an earlier (better) one of `article_ids`, which
    callers pass best first; "from" is that best source. Most articles are named once, so the order among
    equals decides what a small budget follows."""
    if not article_ids or limit <= 0:
        return []
    position = {article: i for i, article in reversed(list(enumerate(article_ids)))}
    result = connection.execute(
        "MATCH (a:Article)-[:LINKS_TO]->(b:Article) WHERE a.id IN $ids AND NOT b.id IN $skip "
        "RETURN a.id, b.id, b.title",
        {"ids": article_ids, "skip": sorted(set(article_ids) | set(exclude or []))},
    )
    sources: dict[int, list[int]] = {}
    titles: dict[int, str] = {}
    while result.has_next():
        source, target, title = result.get_next()
        sources.setdefault(int(target), []).append(int(source))
        titles[int(target)] = str(title)
    best = {target: min(found, key=position.__getitem__) for target, found in sources.items()}
    order = sorted(sources, key=lambda t: (-len(sources[t]), position[best[t]], t))
    return [(best[t], t, titles[t]) for t in order[:limit]]
