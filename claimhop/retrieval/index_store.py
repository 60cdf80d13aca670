"""Persisted indexes for one corpus: FAISS + BM25 in a folder whose manifest (written last) says what built them.

The build streams the corpus once: each shard of documents is embedded and saved (so a killed build resumes
at the first missing shard) and tokenised for BM25; then the FAISS index is filled shard by shard and, if it is
approximate, its recall against exact search is measured and recorded."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from claimhop.atomic import write_json, write_text
from claimhop.cache_root import cache_root
from claimhop.retrieval import ann
from claimhop.retrieval.corpus import Corpus, CorpusError, CorpusFile, iter_documents
from claimhop.retrieval.dense import DenseIndex
from claimhop.retrieval.encoder import ENCODER_NAME
from claimhop.retrieval.lexical import BM25Builder, BM25Index
from claimhop.retrieval.shards import SHARD_SIZE, iter_shards, write_shards

MANIFEST = "manifest.json"
OWNER_MARK = ".claimhop-index"  # written first into a folder claimhop builds in; only such folders are ever cleared
FORMAT_VERSION = 2  # the on-disk layout; an index of another version is rebuilt, never misread
RECALL_QUERIES = 200  # corpus passages an approximate index is probed with to report its recall against exact search
RECALL_K = 10  # ... at this depth
IVF_TRAIN_SIZE = 65_536  # vectors IVF-PQ trains on: a sample, so training time stays bounded at any corpus size


class IndexNotBuiltError(FileNotFoundError):
    """No usable index for this corpus; build it with `claimhop index`."""


class IndexCorruptError(ValueError):
    """The manifest says the index is complete, but its files are missing, truncated or unreadable."""


class IndexFolderError(ValueError):
    """The index folder cannot be used (it is a file, or holds files claimhop did not write)."""


# the optional entity graph (claimhop.retrieval.entity_graph) lives in the index folder, tied to its corpus
GRAPH_DIR = "entity_graph.kuzu"
GRAPH_META = "entity_graph.json"  # which corpus the graph was built from; written last


def claim_index_folder(folder: Path) -> Path:
    """Make `folder` claimhop's to write in: a new folder, or one holding only claimhop's index files, is marked.

    A build clears old index files, so pointing it at a folder of someone else's files must fail, not delete them."""
    if folder.exists() and not folder.is_dir():
        raise IndexFolderError(f"index folder is not a directory: {folder}")
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / OWNER_MARK).is_file():
        entries = sorted(p.name for p in folder.iterdir())
        if entries and MANIFEST not in entries:  # a folder older claimhop versions built has its manifest
            raise IndexFolderError(
                f"index folder {folder} holds files claimhop did not write ({', '.join(entries[:3])}); "
                "choose an empty or new folder"
            )
        write_text(folder / OWNER_MARK, "claimhop index folder\n")
    return folder


def sweep_leftovers(folder: Path) -> None:
    """Temporary files and folders a killed build left (`.name.XXXX.tmp`); only this build writes here now."""
    for leftover in folder.glob(".*.tmp"):
        shutil.rmtree(leftover, ignore_errors=True) if leftover.is_dir() else leftover.unlink(missing_ok=True)


@dataclass
class Indexes:
    dense: DenseIndex
    bm25: BM25Index
    folder: Path
    manifest: dict


def index_dir_for(corpus: Corpus | CorpusFile, root: Path | None = None) -> Path:
    return (root or cache_root() / "indexes") / corpus.sha256[:16]


def read_manifest(folder: Path) -> dict | None:
    try:
        return json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None


def _manifest_ok(folder: Path, corpus: Corpus | CorpusFile) -> dict | None:
    manifest = read_manifest(folder)
    if (
        manifest
        and manifest.get("format_version") == FORMAT_VERSION
        and (manifest.get("encoder") == ENCODER_NAME or manifest.get("collection"))  # a collection names its own
        and manifest.get("corpus_sha256") == corpus.sha256
        and (not isinstance(corpus, Corpus) or manifest.get("count") == len(corpus))
    ):
        return manifest
    return None


def file_sizes(folder: Path) -> dict[str, int]:
    files = [folder / "dense.faiss", *sorted((folder / "bm25").glob("*"))]
    return {p.relative_to(folder).as_posix(): p.stat().st_size for p in files if p.is_file()}


def load_indexes(corpus: Corpus | CorpusFile, folder: Path | None = None) -> Indexes:
    """Open the indexes built for exactly this corpus, or raise IndexNotBuiltError saying what to run.

    Files that are missing, of another size than the manifest recorded, unreadable, or holding another number
    of documents raise IndexCorruptError: the index is reported, never silently used."""
    folder = folder or index_dir_for(corpus)
    manifest = _manifest_ok(folder, corpus)
    if manifest is None:
        raise IndexNotBuiltError(
            f"no index for corpus {corpus.path} (sha256 {corpus.sha256[:12]}) in {folder}; "
            f"run `claimhop index {corpus.path}`"
        )
    rebuild = f"; rebuild it with `claimhop index {corpus.path} --rebuild`"
    if file_sizes(folder) != manifest.get("files"):
        raise IndexCorruptError(f"index in {folder} is damaged (files missing or of the wrong size){rebuild}")
    try:
        dense = DenseIndex.load(folder / "dense.faiss", manifest.get("encoder", ENCODER_NAME))
        bm25 = BM25Index.load(folder / "bm25")
    except Exception as err:  # noqa: BLE001 - FAISS and bm25s raise many kinds on a damaged file
        raise IndexCorruptError(f"index in {folder} cannot be read ({type(err).__name__}){rebuild}") from None
    if len(dense) != manifest["count"] or len(bm25) != manifest["count"]:
        raise IndexCorruptError(f"index in {folder} does not hold {manifest['count']} documents{rebuild}")
    return Indexes(dense, bm25, folder, manifest)


def _streamed(corpus: Corpus | CorpusFile, bm25: BM25Builder, bar: tqdm) -> Iterator[tuple[str, str]]:
    """The corpus's rows, tokenised for BM25 in chunks as they pass by."""
    pending: list[str] = []
    for title, text in iter_documents(corpus.path):
        pending.append(f"{title} {text}")
        if len(pending) == SHARD_SIZE:
            bm25.add(pending)
            pending = []
        bar.update(1)
        yield title, text
    if pending:
        bm25.add(pending)


def fill_dense(kind: str, shard_paths: list[Path], count: int) -> tuple[DenseIndex, dict]:
    """The FAISS index filled shard by shard; for an approximate kind, its measured recall against exact search."""
    shards = [np.load(p, mmap_mode="r") for p in shard_paths]
    dim = int(shards[0].shape[1])
    index = ann.new_index(kind, dim, count)
    if kind == "ivfpq":
        index.train(ann.train_sample(shards, IVF_TRAIN_SIZE))
    for shard in tqdm(iter_shards(shard_paths), total=len(shard_paths), desc=f"FAISS {kind}", unit="shard"):
        index.add(shard)
    details = {"dense_index": type(index).__name__, "index_type": kind, "dim": dim}
    if kind != "flat":
        queries = ann.probe_queries(shards, RECALL_QUERIES)
        exact = ann.exact_top_k(queries, iter_shards(shard_paths), RECALL_K)
        details[f"recall_at_{RECALL_K}_vs_exact"] = round(ann.recall_against_exact(index, queries, exact), 4)
    return DenseIndex(index), details


@contextmanager
def one_build_at_a_time(folder: Path) -> Iterator[None]:
    """Hold the build lock of `folder` (an flock on a file in claimhop's cache, never in the folder, which may be
    someone else's; released however the process ends). Processes starting together on one machine (Ray workers,
    two `claimhop check`s) would otherwise sweep each other's temporary files and replace each other's index."""
    locks = cache_root() / "locks"
    locks.mkdir(parents=True, exist_ok=True)
    key = hashlib.sha256(str(folder.expanduser().resolve()).encode()).hexdigest()[:16]
    lock = os.open(locks / f"index-{key}.lock", os.O_CREAT | os.O_RDWR, 0o644)  # an empty file, only ever locked
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)  # waits for another build of this folder to end
        yield
    finally:
        os.close(lock)


def build_indexes(
    corpus: Corpus | CorpusFile, folder: Path | None = None, index_type: str = "auto", rebuild: bool = False,
    shard_size: int = SHARD_SIZE,
) -> Indexes:
    """Build FAISS and BM25 for the corpus, resuming a killed build; the manifest goes last, so a half-built
    folder never loads. `rebuild` also throws away the embedded shards. One build of a folder at a time."""
    ann.resolve(index_type, 0)  # a bad type fails before any work
    folder = folder or index_dir_for(corpus)
    with one_build_at_a_time(folder):
        return _build(corpus, folder, index_type, rebuild, shard_size)


def _build(corpus: Corpus | CorpusFile, folder: Path, index_type: str, rebuild: bool, shard_size: int) -> Indexes:
    folder = claim_index_folder(folder)
    sweep_leftovers(folder)
    previous = read_manifest(folder)
    if previous and previous.get("corpus_sha256") != corpus.sha256:
        remove_entity_graph(folder)
    if rebuild:
        shutil.rmtree(folder / "shards", ignore_errors=True)
    started = time.perf_counter()
    bm25_builder = BM25Builder()
    with tqdm(desc="reading and embedding", unit="doc", total=len(corpus) if isinstance(corpus, Corpus) else None) as bar:
        shard_paths, count, source = write_shards(
            CorpusFile(corpus.path, corpus.sha256), _streamed(corpus, bm25_builder, bar), folder / "shards", shard_size
        )
    if count == 0:
        raise CorpusError(f"corpus {corpus.path} has no documents")
    kind = ann.resolve(index_type, count)
    if kind == "ivfpq" and count < ann.IVF_MIN_DOCUMENTS:
        raise ValueError(f"an IVF-PQ index needs at least {ann.IVF_MIN_DOCUMENTS:,} documents to train on; "
                         f"this corpus has {count:,} (use flat or hnsw)")
    dense, details = fill_dense(kind, shard_paths, count)
    (folder / MANIFEST).unlink(missing_ok=True)  # from here the old index is being replaced
    dense.persist(folder / "dense.faiss")
    del dense  # not held while BM25 builds: the two largest structures never share memory (1M docs: ~1.8 GB each)
    bm25 = bm25_builder.build()
    bm25.persist(folder / "bm25")
    dense = DenseIndex.load(folder / "dense.faiss")
    manifest = {
        "format_version": FORMAT_VERSION,
        "encoder": ENCODER_NAME,
        "corpus_path": str(corpus.path),
        "corpus_sha256": corpus.sha256,
        "count": count,
        **details,
        "bm25": "bm25s, english stemmer and stop words",
        "embeddings_source": source,
        "shards": len(shard_paths),
        "build_seconds": round(time.perf_counter() - started, 2),
        "files": file_sizes(folder),
    }
    write_json(folder / MANIFEST, manifest)
    return Indexes(dense, bm25, folder, manifest)


def open_indexes(
    corpus: Corpus | CorpusFile, rebuild: bool = False, folder: Path | None = None, index_type: str = "auto"
) -> Indexes:
    """Load the indexes for this corpus, building them first when missing or stale (or when asked).

    A damaged index is reported (IndexCorruptError), not rebuilt behind the user's back; `rebuild` rebuilds it.
    An explicit `index_type` other than the built one rebuilds from the saved shards (no re-encoding)."""
    if not rebuild and (ready := _loaded(corpus, folder, index_type)):
        return ready
    ann.resolve(index_type, 0)
    target = folder or index_dir_for(corpus)
    with one_build_at_a_time(target):
        if not rebuild and (ready := _loaded(corpus, folder, index_type)):
            return ready  # another process built it while this one waited
        return _build(corpus, target, index_type, rebuild, SHARD_SIZE)


def _loaded(corpus: Corpus | CorpusFile, folder: Path | None, index_type: str) -> Indexes | None:
    """The built indexes of the corpus when they are there and of the type asked for, else None."""
    try:
        indexes = load_indexes(corpus, folder)
    except IndexNotBuiltError:
        return None
    return indexes if index_type == "auto" or indexes.manifest.get("index_type") == index_type else None


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
