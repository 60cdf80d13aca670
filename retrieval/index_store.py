"""Persisted indexes for one corpus: FAISS + BM25 in a folder whose manifest (written last) says what built them."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from retrieval import embeddings as emb
from retrieval.atomic import write_json, write_text
from retrieval.corpus import Corpus
from retrieval.dense import DenseIndex
from retrieval.encoder import ENCODER_NAME
from retrieval.lexical import BM25Index
from retrieval.settings_paths import cache_root

MANIFEST = "manifest.json"
OWNER_MARK = ".claimhop-index"  # written first into a folder claimhop builds in; only such folders are ever cleared
INDEX_FILES = {MANIFEST, "dense.faiss", "bm25", "embeddings.f16.npy", "embeddings.f16.manifest.json"}
FORMAT_VERSION = 1


class IndexNotBuiltError(FileNotFoundError):
    """No usable index for this corpus; build it with `claimhop index`."""


class IndexFolderError(ValueError):
    """The index folder cannot be used (it is a file, or holds files claimhop did not write)."""


def claim_index_folder(folder: Path) -> Path:
    """Make `folder` claimhop's to write in: a new folder, or one holding only claimhop's index files, is marked.

    A build clears old index files, so pointing it at a folder of someone else's files must fail, not delete them."""
    if folder.exists() and not folder.is_dir():
        raise IndexFolderError(f"index folder is not a directory: {folder}")
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / OWNER_MARK).is_file():
        foreign = [p.name for p in folder.iterdir() if p.name not in INDEX_FILES and not p.name.endswith(".tmp")]
        if foreign:
            raise IndexFolderError(
                f"index folder {folder} holds files claimhop did not write ({', '.join(sorted(foreign)[:3])}); "
                "choose an empty or new folder"
            )
        write_text(folder / OWNER_MARK, "claimhop index folder\n")
    return folder


@dataclass
class Indexes:
    dense: DenseIndex
    bm25: BM25Index
    folder: Path
    manifest: dict


def index_dir_for(corpus: Corpus, root: Path | None = None) -> Path:
    return (root or cache_root() / "indexes") / corpus.sha256[:16]


def _manifest_ok(folder: Path, corpus: Corpus) -> dict | None:
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    if (
        manifest.get("format_version") == FORMAT_VERSION
        and manifest.get("encoder") == ENCODER_NAME
        and manifest.get("corpus_sha256") == corpus.sha256
        and manifest.get("count") == len(corpus)
    ):
        return manifest
    return None


def load_indexes(corpus: Corpus, folder: Path | None = None) -> Indexes:
    """Open the indexes built for exactly this corpus, or raise IndexNotBuiltError saying what to run."""
    folder = folder or index_dir_for(corpus)
    manifest = _manifest_ok(folder, corpus)
    if manifest is None:
        raise IndexNotBuiltError(
            f"no index for corpus {corpus.path} (sha256 {corpus.sha256[:12]}) in {folder}; "
            f"run `claimhop index --corpus {corpus.path}`"
        )
    return Indexes(DenseIndex.load(folder / "dense.faiss"), BM25Index.load(folder / "bm25"), folder, manifest)


def _document_vectors(corpus: Corpus, folder: Path) -> tuple[np.ndarray, str]:
    """Shipped embeddings when they were made from this corpus; otherwise encode (minutes, with progress)."""
    if emb.matches(emb.read_manifest(emb.BUNDLED_EMBEDDINGS), corpus):
        return np.load(emb.BUNDLED_EMBEDDINGS), "bundled"
    target = folder / "embeddings.f16.npy"
    if emb.matches(emb.read_manifest(target), corpus):
        return np.load(target), "cached"
    return emb.build_embeddings(corpus, target), "encoded"


def build_indexes(corpus: Corpus, folder: Path | None = None) -> Indexes:
    """Build FAISS and BM25 for the corpus; the manifest goes last, so a half-built folder never loads."""
    folder = claim_index_folder(folder or index_dir_for(corpus))
    (folder / MANIFEST).unlink(missing_ok=True)
    started = time.perf_counter()
    vectors, source = _document_vectors(corpus, folder)
    dense = DenseIndex.from_vectors(vectors.astype(np.float32))
    dense.persist(folder / "dense.faiss")
    bm25 = BM25Index.build([f"{t} {x}" for t, x in zip(corpus.titles, corpus.texts)])
    bm25.persist(folder / "bm25")
    manifest = {
        "format_version": FORMAT_VERSION,
        "encoder": ENCODER_NAME,
        "corpus_path": str(corpus.path),
        "corpus_sha256": corpus.sha256,
        "count": len(corpus),
        "dim": int(vectors.shape[1]),
        "dense_index": "IndexFlatIP",
        "bm25": "bm25s, english stemmer and stop words",
        "embeddings_source": source,
        "build_seconds": round(time.perf_counter() - started, 2),
    }
    write_json(folder / MANIFEST, manifest)
    return Indexes(dense, bm25, folder, manifest)


def open_indexes(corpus: Corpus, rebuild: bool = False, folder: Path | None = None) -> Indexes:
    """Load the indexes for this corpus, building them first when missing or stale (or when asked)."""
    if not rebuild:
        try:
            return load_indexes(corpus, folder)
        except IndexNotBuiltError:
            pass
    return build_indexes(corpus, folder)
