"""Document embeddings written in shards while the corpus streams by, so a killed build resumes at the first
unfinished shard and memory holds one shard of text at a time."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from claimhop.atomic import atomic_path, write_json
from claimhop.retrieval import embeddings as emb
from claimhop.retrieval.corpus import CorpusFile
from claimhop.retrieval.encoder import ENCODER_NAME, encode, passage_text

SHARD_SIZE = 4096  # embeddings a shard file holds: a killed build resumes from the last whole shard
Encoder = Callable[[list[str]], np.ndarray]


def shard_path(folder: Path, number: int) -> Path:
    return folder / f"emb-{number:06d}.f16.npy"


def _plan(folder: Path, corpus: CorpusFile, shard_size: int) -> dict:
    """What the shards in `folder` were made from; shards of another corpus, encoder or size are cleared."""
    plan = {"corpus_sha256": corpus.sha256, "encoder": ENCODER_NAME, "shard_size": shard_size}
    plan_file = folder / "plan.json"
    try:
        same = json.loads(plan_file.read_text(encoding="utf-8")) == plan
    except (OSError, json.JSONDecodeError):
        same = False
    if not same:
        folder.mkdir(parents=True, exist_ok=True)
        for stale in folder.glob("emb-*.npy"):
            stale.unlink()
        write_json(plan_file, plan)
    return plan


def _bundled_vectors(corpus: CorpusFile) -> np.ndarray | None:
    """The shipped embeddings when they were made from exactly this corpus file (memory-mapped, not read)."""
    manifest = emb.read_manifest(emb.BUNDLED_EMBEDDINGS)
    if manifest and manifest.get("encoder") == ENCODER_NAME and manifest.get("corpus_sha256") == corpus.sha256:
        return np.load(emb.BUNDLED_EMBEDDINGS, mmap_mode="r")
    return None


def write_shards(
    corpus: CorpusFile, documents: Iterator[tuple[str, str]], folder: Path, shard_size: int = SHARD_SIZE,
    encoder: Encoder | None = None, on_shard: Callable[[int, int, str], None] | None = None,
) -> tuple[list[Path], int, str]:
    """Embed `documents` (the corpus's rows, in order) into float16 shards in `folder`.

    A shard already on disk from the same corpus, encoder and shard size is kept; shipped embeddings of the
    bundled corpus are copied instead of encoded. Returns the shard files, the document count and where the
    vectors came from ("bundled", "encoded", "resumed" or a mix)."""
    _plan(folder, corpus, shard_size)
    bundled = _bundled_vectors(corpus)
    paths: list[Path] = []
    sources: set[str] = set()
    count = 0
    batch: list[str] = []

    def flush() -> None:
        number = len(paths)
        target = shard_path(folder, number)
        if target.is_file() and _rows(target) == len(batch):
            source = "resumed"
        else:
            if bundled is not None and count <= len(bundled):
                vectors = np.asarray(bundled[count - len(batch):count], dtype=np.float16)
                source = "bundled"
            else:
                vectors = (encoder or encode)(batch).astype(np.float16)
                source = "encoded"
            with atomic_path(target) as tmp, open(tmp, "wb") as handle:
                np.save(handle, vectors)
        paths.append(target)
        sources.add(source)
        if on_shard:
            on_shard(number, len(batch), source)
        batch.clear()

    for title, text in documents:
        batch.append(passage_text(title, text))
        count += 1
        if len(batch) == shard_size:
            flush()
    if batch:
        flush()
    for extra in folder.glob("emb-*.npy"):  # a shorter corpus than a killed build's leaves none behind
        if extra not in paths:
            extra.unlink()
    return paths, count, "+".join(sorted(sources)) or "none"


def _rows(path: Path) -> int:
    try:
        return int(np.load(path, mmap_mode="r").shape[0])
    except (OSError, ValueError):
        return -1


def document_vectors(folder: Path, count: int) -> Iterator[np.ndarray]:
    """Every document's vector, in corpus order, from an index's shards; refuses shards that do not hold exactly
    `count` vectors (deleted or partial shards would silently drop documents)."""
    paths = sorted(folder.glob("emb-*.npy"))
    held = sum(max(0, _rows(p)) for p in paths)
    if held != count:
        raise ValueError(f"the index's shards in {folder} hold {held} vectors for {count} documents; "
                         "rebuild it with `claimhop index CORPUS --rebuild`")
    return (row for shard in iter_shards(paths) for row in shard)


def iter_shards(paths: list[Path]) -> Iterator[np.ndarray]:
    """Each shard as float32, one at a time."""
    for path in paths:
        yield np.asarray(np.load(path), dtype=np.float32)
