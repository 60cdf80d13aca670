"""The document collection: a JSONL file of {"title","text"} (or {"id","text"}) rows, read and validated once; a
row's optional "source" (the file a passage came from, `claimhop index FOLDER`) is kept and shown in citations."""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from claimhop.data import bundled

BUNDLED_CORPUS = bundled("corpus.jsonl.gz")


class CorpusError(ValueError):
    """The corpus file is missing or malformed; the message names the file and the line."""


@dataclass(frozen=True)
class Corpus:
    """Titles and texts in file order; a document's id is its row number."""

    path: Path
    titles: list[str]
    texts: list[str]
    sha256: str
    sources: list[str] | None = None  # where each document came from, when the corpus records it

    def __len__(self) -> int:
        return len(self.titles)

    def document(self, doc_id: int) -> dict:
        return {"title": self.titles[doc_id], "text": self.texts[doc_id]}

    def source(self, doc_id: int) -> str:
        return self.sources[doc_id] if self.sources else ""


def _open_text(path: Path):
    return gzip.open(path, "rt", encoding="utf-8") if path.suffix == ".gz" else open(path, encoding="utf-8")


def json_objects(path: Path, expected: str = "a JSON object") -> Iterator[tuple[int, dict]]:
    """(line number, object) for each non-blank line of a JSON Lines file (gzipped or not); a line that is not a JSON
    object is a CorpusError naming the file and line."""
    with _open_text(path) as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as err:
                raise CorpusError(f"{path}:{line_no}: not valid JSON ({err.msg})") from None
            if not isinstance(row, dict):
                raise CorpusError(f"{path}:{line_no}: expected {expected}")
            yield line_no, row


def file_sha256(path: Path) -> str:
    """Content hash of the file as stored, so an index can tell whether it was built from this corpus."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


CORPUS_SUFFIXES = (".jsonl", ".jsonl.gz")


def checked_corpus_path(path: str | Path) -> Path:
    """The path if it names a regular .jsonl or .jsonl.gz file; otherwise CorpusError saying what is wrong.

    Refusing directories, devices and FIFOs (e.g. /dev/zero) and other file types keeps a mistyped or hostile
    path from hanging the reader or feeding it some unrelated file."""
    path = Path(path)
    if not path.exists():
        raise CorpusError(f"corpus file not found: {path}")
    if not path.is_file():
        raise CorpusError(f"corpus path is not a regular file: {path}")
    if not path.name.endswith(CORPUS_SUFFIXES):
        raise CorpusError(f"corpus file must end in .jsonl or .jsonl.gz: {path}")
    return path


def iter_documents(path: str | Path):
    """Stream (title, text) rows of a corpus file, validated; a repeated title keeps its first row.

    Only the titles seen so far stay in memory, so an index build never holds the whole corpus."""
    for title, text, _ in iter_rows(path):
        yield title, text


def iter_rows(path: str | Path):
    """(title, text, source) rows; source is "" when the row has none."""
    path = checked_corpus_path(path)
    seen: set[str] = set()
    try:
        for line_no, row in json_objects(path, "a JSON object with 'title' and 'text'"):
            title = row.get("title", row.get("id"))
            text = row.get("text")
            if not isinstance(title, (str, int)) or str(title).strip() == "":
                raise CorpusError(f"{path}:{line_no}: missing 'title' (or 'id')")
            if not isinstance(text, str):
                raise CorpusError(f"{path}:{line_no}: missing 'text' string")
            title = " ".join(str(title).split())  # one line: titles are keys, labels and CSV fields
            if title not in seen:
                seen.add(title)
                source = row.get("source")
                yield title, text, source if isinstance(source, str) else ""
    except (UnicodeDecodeError, OSError, EOFError) as err:
        raise CorpusError(f"cannot read corpus {path}: {err}") from None


@dataclass(frozen=True)
class CorpusFile:
    """A corpus file and its content hash, without its documents (what an index build starts from)."""

    path: Path
    sha256: str


def corpus_file(path: str | Path = BUNDLED_CORPUS) -> CorpusFile:
    path = checked_corpus_path(path)
    return CorpusFile(path, file_sha256(path))


def load_corpus(path: str | Path = BUNDLED_CORPUS) -> Corpus:
    """Read and validate a corpus; duplicate titles keep their first row (a warning-free, documented rule)."""
    path = checked_corpus_path(path)
    titles: list[str] = []
    texts: list[str] = []
    sources: list[str] = []
    for title, text, source in iter_rows(path):
        titles.append(title)
        texts.append(text)
        sources.append(source)
    if not titles:
        raise CorpusError(f"corpus {path} has no documents")
    return Corpus(path=path, titles=titles, texts=texts, sha256=file_sha256(path),
                  sources=sources if any(sources) else None)


def documents_by_title(corpus: Corpus, titles: list[str]) -> list[dict]:
    """The corpus documents with these titles (normalised match), in the titles' order; unknown titles dropped."""
    from claimhop.retrieval.titles import normalize_title

    index = {normalize_title(t): i for i, t in enumerate(corpus.titles)}
    found = [index.get(normalize_title(t)) for t in titles]
    return [{"title": corpus.titles[i], "text": corpus.texts[i]} for i in found if i is not None]
