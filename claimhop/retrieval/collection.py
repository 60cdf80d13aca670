"""A collection index: your own folder (or CSV/Parquet table) of documents, kept up to date by re-running
`claimhop index PATH`.

Each run hashes every file and reads again only the files whose bytes changed; their documents are split into
sections (`claimhop.retrieval.sections`), and only sections whose title and text are new are embedded, the others
keep their stored vectors (looked up by content hash). BM25 is re-tokenised (seconds), FAISS is refilled from the
stored vectors, and the link table rescans only the new passages (`claimhop.retrieval.collection_links`).

Every run writes a complete new version beside the serving one (`vNNNNNN/`, an ordinary index folder holding
its own `corpus.jsonl` of passages, so every engine reads it unchanged) and then switches `current.json` to it
in one rename: a killed update leaves the previous version serving, and the next run sweeps what it left."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from claimhop.atomic import atomic_dir, write_json
from claimhop.cache_root import cache_root
from claimhop.retrieval import ann
from claimhop.retrieval.article_links import LINKS_FILE, ArticleLinks
from claimhop.retrieval.collection_links import update_links
from claimhop.retrieval.corpus import CorpusError, file_sha256
from claimhop.retrieval.documents import (
    SourceFile,
    collection_files,
    is_collection_source,
    read_file,
    text_sha256,
)
from claimhop.retrieval.encoder import ENCODER_NAME, passage_text
from claimhop.retrieval.encoders import encoder_for, encoder_name
from claimhop.retrieval.index_store import (
    FORMAT_VERSION,
    MANIFEST,
    IndexFolderError,
    IndexNotBuiltError,
    claim_index_folder,
    file_sizes,
    fill_dense,
    read_manifest,
    sweep_leftovers,
)
from claimhop.retrieval.lexical import BM25Builder
from claimhop.retrieval.sections import split_document
from claimhop.retrieval.shards import SHARD_SIZE, iter_shards, shard_path

CURRENT = "current.json"  # names the serving version; replaced last, in one rename
CORPUS = "corpus.jsonl"
SOURCES = "sources.json"  # each source file's sha256: what decides whether it is read again
LINKABLE = "linkable.json"  # the titles this version links by: the next version scans old passages for new ones
ENCODE_CHUNK = 256  # passages embedded and written at a time: a killed update loses at most this much work
UPDATE_LOCK = ".update.lock"  # held (flock) while an update runs; released however the process ends


def default_folder(source: Path) -> Path:
    """CLAIMHOP_HOME/indexes/collection-<hash of the source's absolute path>: one index per folder or table."""
    key = hashlib.sha256(str(source.expanduser().resolve()).encode("utf-8")).hexdigest()[:16]
    return cache_root() / "indexes" / f"collection-{key}"


def current_version(folder: Path) -> Path | None:
    """The serving version's folder, or None when the folder holds no collection index."""
    try:
        name = json.loads((folder / CURRENT).read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    version = folder / str(name)
    return version if (version / MANIFEST).is_file() else None


def resolve(corpus_path: str | Path | None, index_dir: str | Path | None) -> tuple[Path, Path] | None:
    """(passages file, index folder) of the collection a run names, by its source (`--corpus FOLDER`) or by its
    index folder (`--set index_dir=DIR`); None when the run names an ordinary JSONL corpus."""
    folder = Path(index_dir).expanduser() if index_dir else None
    if corpus_path and is_collection_source(Path(corpus_path).expanduser()):
        source = Path(corpus_path).expanduser()
        folder = folder or default_folder(source)
        version = current_version(folder)
        if version is None:
            raise IndexNotBuiltError(f"{source} has no index{f' in {folder}' if index_dir else ''}; run "
                                     f"`claimhop index {source}{f' --index-dir {folder}' if index_dir else ''}` first")
        return version / CORPUS, version
    if folder is not None and not corpus_path:
        version = current_version(folder)
        if version is not None:
            return version / CORPUS, version
    return None


@dataclass
class _Previous:
    """The serving version, as the update reads it: its passages (with hashes and link names), its files' hashes,
    its linkable names and its vectors."""

    folder: Path
    manifest: dict
    rows: list[dict]
    sources: dict[str, str]
    linkable: set[str]

    def vectors(self) -> np.ndarray:
        shards = sorted((self.folder / "shards").glob("emb-*.npy"))
        return np.concatenate([np.load(p) for p in shards]) if shards else np.zeros((0, 0), dtype=np.float16)


def _previous(folder: Path) -> _Previous | None:
    version = current_version(folder)
    if version is None:
        return None
    try:
        with open(version / CORPUS, encoding="utf-8") as handle:
            rows = [json.loads(line) for line in handle if line.strip()]
        sources = json.loads((version / SOURCES).read_text(encoding="utf-8"))
        linkable = set(json.loads((version / LINKABLE).read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None  # a damaged version is rebuilt from the files, not trusted
    return _Previous(version, read_manifest(version) or {}, rows, sources, linkable)


def update_collection(source: str | Path, folder: str | Path | None = None, encoder: str | None = None,
                      index_type: str = "auto", rebuild: bool = False) -> dict:
    """Bring the collection index of `source` up to date and switch to it; returns what was done."""
    ann.resolve(index_type, 0)
    source = Path(source).expanduser().resolve()
    files = collection_files(source)  # hashes only: a missing or empty source fails before anything is written
    folder = claim_index_folder(Path(folder).expanduser() if folder else default_folder(source))
    if (folder / MANIFEST).is_file():
        raise IndexFolderError(f"{folder} holds an index of a JSONL corpus; give a new --index-dir for {source}")
    lock = os.open(folder / UPDATE_LOCK, os.O_CREAT | os.O_RDWR, 0o644)  # an empty file, only ever locked
    try:
        try:  # two updates of one index would write the same next version
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise IndexFolderError(f"another `claimhop index` is updating {folder}; wait for it to finish") from None
        return _update(source, files, folder, encoder, index_type, rebuild)
    finally:
        os.close(lock)


def _update(source: Path, files: list[SourceFile], folder: Path, encoder: str | None, index_type: str,
            rebuild: bool) -> dict:
    started = time.perf_counter()
    sweep_leftovers(folder)
    previous = None if rebuild else _previous(folder)
    wanted = encoder_name(encoder) if encoder else (previous.manifest.get("encoder") if previous else ENCODER_NAME)
    if previous and wanted != previous.manifest.get("encoder"):
        raise IndexFolderError(f"the index in {folder} was embedded with {previous.manifest.get('encoder')}, not "
                               f"{wanted}; add --rebuild to embed every document again with {wanted}")
    encode = encoder_for(wanted)  # a missing model fails here, before any file is read
    rows, counts = _read_changed(files, previous)
    if not rows:
        raise CorpusError(f"{source} holds no text to index")
    _title_rows(rows)
    vectors, encoded = _vectors(rows, previous, encode)
    version = _write_version(folder, source, rows, vectors, files, previous, wanted, index_type)
    manifest = read_manifest(version) or {}
    write_json(folder / CURRENT, {"version": version.name, "source": str(source), "encoder": wanted})
    for old in folder.glob("v[0-9]*"):  # older versions: nothing serves them any more
        if old != version:
            shutil.rmtree(old, ignore_errors=True)
    return {"source": str(source), "folder": str(folder), "version": version.name, "encoder": wanted,
            "files": counts, "passages": len(rows), "embedded": encoded, "reused_vectors": len(rows) - encoded,
            "links_scanned": manifest.get("links_scanned"), "index_type": manifest.get("index_type"),
            "seconds": round(time.perf_counter() - started, 2)}


def _read_changed(files: list[SourceFile], previous: _Previous | None) -> tuple[list[dict], dict[str, int]]:
    """Passages of every file: an unchanged file's from the serving version, the others read and split again."""
    before = previous.sources if previous else {}
    old_rows: dict[str, list[dict]] = {}
    for row in previous.rows if previous else []:
        old_rows.setdefault(row["file"], []).append(row)
    counts = {"added": 0, "changed": 0, "removed": 0, "unchanged": 0}
    rows: list[dict] = []
    changed = sum(before.get(f.relative) != f.sha256 for f in files)
    with tqdm(total=changed, desc="reading files", unit="file", disable=not changed) as bar:
        for f in files:
            if before.get(f.relative) == f.sha256:
                counts["unchanged"] += 1
                rows += [{k: row[k] for k in ("base", "text", "source", "file")} for row in old_rows.get(f.relative, [])]
                continue
            counts["changed" if f.relative in before else "added"] += 1
            for document in read_file(f):
                rows += [{"base": section.title, "text": section.text, "source": document.source, "file": f.relative}
                         for section in split_document(document.title, document.text)]
            bar.update(1)
    counts["removed"] = len(set(before) - {f.relative for f in files})
    return rows, counts


def _title_rows(rows: list[dict]) -> None:
    """Every passage gets a title no other has (they are keys): a repeated one names its file, then a number."""
    seen: set[str] = set()
    for row in rows:
        title = row["base"]
        if title in seen:
            title = f"{row['base']} ({row['source']})"
            number = 2
            while title in seen:
                title, number = f"{row['base']} ({row['source']}, {number})", number + 1
        seen.add(title)
        row["title"] = title
        row["hash"] = text_sha256(title, row["text"])


def _vectors(rows: list[dict], previous: _Previous | None, encode) -> tuple[np.ndarray, int]:
    """Each passage's vector: the stored one when its hash is known, else encoded now (in chunks, with a bar)."""
    stored: dict[str, int] = {}
    old = np.zeros((0, 0), dtype=np.float16)
    if previous:
        old = previous.vectors()
        if len(old) == len(previous.rows):
            stored = {row["hash"]: i for i, row in enumerate(previous.rows)}
    missing = [i for i, row in enumerate(rows) if row["hash"] not in stored]
    fresh: dict[int, np.ndarray] = {}
    with tqdm(total=len(missing), desc="embedding passages", unit="passage", disable=not missing) as bar:
        for start in range(0, len(missing), ENCODE_CHUNK):
            chunk = missing[start:start + ENCODE_CHUNK]
            for i, vector in zip(chunk, encode([passage_text(rows[i]["title"], rows[i]["text"]) for i in chunk])):
                fresh[i] = vector
            bar.update(len(chunk))
    dim = len(next(iter(fresh.values()))) if fresh else old.shape[1]
    vectors = np.zeros((len(rows), dim), dtype=np.float16)
    for i, row in enumerate(rows):
        vectors[i] = fresh[i] if i in fresh else old[stored[row["hash"]]]
    return vectors, len(missing)


def _write_version(folder: Path, source: Path, rows: list[dict], vectors: np.ndarray, files: list[SourceFile],
                   previous: _Previous | None, encoder: str, index_type: str) -> Path:
    """A complete index folder beside the serving one, renamed into place only when every file is written."""
    number = 1 + max((int(p.name[1:]) for p in folder.glob("v[0-9]*") if p.name[1:].isdigit()), default=0)
    target = folder / f"v{number:06d}"
    with atomic_dir(target) as building:  # `.vNNNNNN.XXXX.tmp` until every file is written, then renamed
        _fill_version(building, target, source, rows, vectors, files, previous, encoder, index_type)
    return target


def _fill_version(building: Path, target: Path, source: Path, rows: list[dict], vectors: np.ndarray,
                  files: list[SourceFile], previous: _Previous | None, encoder: str, index_type: str) -> None:
    (building / "shards").mkdir(parents=True)
    before = {row["hash"]: row.get("names") for row in previous.rows} if previous else {}
    titles, texts = [r["title"] for r in rows], [r["text"] for r in rows]
    links, names, linkable, scanned = update_links(titles, texts, [before.get(r["hash"]) for r in rows],
                                                   previous.linkable if previous else None)
    with open(building / CORPUS, "w", encoding="utf-8") as handle:
        for row, matched in zip(rows, names, strict=True):
            handle.write(json.dumps({**row, "names": matched}, ensure_ascii=False) + "\n")
    corpus_sha = file_sha256(building / CORPUS)
    shard_paths = []
    for number, start in enumerate(range(0, len(rows), SHARD_SIZE)):
        shard_paths.append(shard_path(building / "shards", number))
        np.save(shard_paths[-1], vectors[start:start + SHARD_SIZE])
    kind = ann.resolve(index_type, len(rows))
    dense, details = fill_dense(kind, shard_paths, len(rows))
    dense.persist(building / "dense.faiss")
    bm25 = BM25Builder()
    for start in range(0, len(rows), SHARD_SIZE):
        bm25.add([f"{r['title']} {r['text']}" for r in rows[start:start + SHARD_SIZE]])
    bm25.build().persist(building / "bm25")
    table = ArticleLinks.from_lists(links, corpus_sha)
    np.savez(building / LINKS_FILE, offsets=table.offsets, targets=table.targets, corpus_sha256=np.array(corpus_sha))
    write_json(building / SOURCES, {f.relative: f.sha256 for f in files})
    write_json(building / LINKABLE, sorted(linkable))
    write_json(building / MANIFEST, {
        "format_version": FORMAT_VERSION, "encoder": encoder, "corpus_path": str(target / CORPUS),
        "corpus_sha256": corpus_sha, "count": len(rows), **details,
        "bm25": "bm25s, english stemmer and stop words", "embeddings_source": "encoded+reused",
        "shards": len(shard_paths), "files": file_sizes(building),
        "collection": {"source": str(source), "files": len(files)}, "links_scanned": scanned,
    })
    for path in building.rglob("*"):  # everything on disk before the switch: a crash after it finds it whole
        if path.is_file():
            with open(path, "rb") as handle:
                os.fsync(handle.fileno())


def vectors_in(version: Path) -> np.ndarray:
    """All of a version's vectors, in passage order (tests and the PostgreSQL loader read them)."""
    return np.concatenate(list(iter_shards(sorted((version / "shards").glob("emb-*.npy")))))
