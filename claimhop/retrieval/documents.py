"""Your own documents in: a folder of files (Markdown, text, HTML, PDF, DOCX), or a JSONL, CSV or Parquet table.

Each source file is hashed before it is read, so an index update converts only the files whose bytes changed
(`read_changed`). Files other than Markdown and text are converted to Markdown by markitdown, so headings survive
for the section splitter (`claimhop.retrieval.sections`). A table's rows are documents: a title column (title,
name or id) and a text column (text, content or body)."""

from __future__ import annotations

import csv
import hashlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from claimhop.retrieval import offline  # noqa: F401  (markitdown imports Hugging Face-aware code)
from claimhop.retrieval.corpus import CorpusError, file_sha256, json_objects

TEXT_SUFFIXES = (".md", ".markdown", ".txt")
CONVERTED_SUFFIXES = (".html", ".htm", ".pdf", ".docx")
TABLE_SUFFIXES = (".jsonl", ".csv", ".parquet")
DOCUMENT_SUFFIXES = TEXT_SUFFIXES + CONVERTED_SUFFIXES + TABLE_SUFFIXES
TITLE_COLUMNS = ("title", "name", "id")
TEXT_COLUMNS = ("text", "content", "body")
MAX_FILE_BYTES = 200 * 1024 * 1024  # a larger file is refused by name, not read into memory


@dataclass(frozen=True)
class SourceDocument:
    """One document as read: its title, its text as Markdown, and where it came from (a path, or path#row)."""

    title: str
    text: str
    source: str


@dataclass(frozen=True)
class SourceFile:
    """A file of the collection and the hash of its bytes: what decides whether it is read again."""

    path: Path
    relative: str
    sha256: str


def is_collection_source(path: str | Path) -> bool:
    """A folder, or a CSV or Parquet table: what `claimhop index` keeps as an incremental collection index."""
    path = Path(path)
    return path.is_dir() or path.suffix.lower() in (".csv", ".parquet")


def collection_files(root: Path) -> list[SourceFile]:
    """Every readable file under `root` (recursively, hidden files and folders skipped), sorted, with its hash;
    a single table file is a collection of one file."""
    if not root.exists():
        raise CorpusError(f"no such file or folder: {root}")
    if root.is_file():
        if root.suffix.lower() not in TABLE_SUFFIXES:
            raise CorpusError(f"{root} is not a folder, .jsonl, .csv or .parquet file")
        return [SourceFile(root, root.name, file_sha256(root))]
    if not root.is_dir():
        raise CorpusError(f"not a regular file or folder: {root}")
    found = []
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if any(part.startswith(".") for part in relative.parts) or not path.is_file():
            continue
        if path.suffix.lower() in DOCUMENT_SUFFIXES:
            found.append(SourceFile(path, relative.as_posix(), file_sha256(path)))
    if not found:
        raise CorpusError(f"{root} holds no documents ({', '.join(DOCUMENT_SUFFIXES)})")
    return found


def read_file(source: SourceFile) -> list[SourceDocument]:
    """The documents of one file; a file that cannot be read raises CorpusError naming it and why."""
    path = source.path
    if path.stat().st_size > MAX_FILE_BYTES:
        raise CorpusError(f"{path} is larger than {MAX_FILE_BYTES >> 20} MB")
    suffix = path.suffix.lower()
    try:
        if suffix in TABLE_SUFFIXES:
            return list(_table_rows(path, source.relative))
        text = _plain_text(path) if suffix in TEXT_SUFFIXES else _converted(path)
    except CorpusError:
        raise
    except Exception as err:  # noqa: BLE001 - converters raise many kinds on a damaged file
        raise CorpusError(f"cannot read {path}: {type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
                          ) from None
    text = text.strip()
    if not text:
        return []
    return [SourceDocument(document_title(text, path), text, source.relative)]


def _plain_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return path.read_text(encoding="latin-1")


_CONVERTER = None


def _converted(path: Path) -> str:
    """HTML, PDF or DOCX as Markdown, by markitdown (one converter per process: it loads its plugins once)."""
    global _CONVERTER
    if _CONVERTER is None:
        from markitdown import MarkItDown

        _CONVERTER = MarkItDown(enable_plugins=False)
    return _CONVERTER.convert_local(str(path)).text_content or ""


_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


def document_title(markdown: str, path: Path) -> str:
    """The first heading, else the file's name without its suffix ("annual_report-2024" -> "annual report 2024")."""
    match = _HEADING.search(markdown)
    if match:
        title = re.sub(r"[*_`]+", "", match.group(1))
        title = " ".join(title.split())
        if title:
            return title
    return " ".join(re.sub(r"[_]+", " ", path.stem).split()) or path.name


def _table_rows(path: Path, relative: str) -> Iterator[SourceDocument]:
    """The rows of a JSONL, CSV or Parquet table as documents; the title and text columns are found by name."""
    rows: Iterator[dict]
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        rows = _jsonl_rows(path)
    elif suffix == ".csv":
        rows = _csv_rows(path)
    else:
        rows = _parquet_rows(path)
    pick: Callable[[dict], tuple[str, str]] | None = None
    for number, row in enumerate(rows, start=1):
        if pick is None:
            pick = _columns(path, list(row))
        title, text = pick(row)
        title = " ".join(title.split())
        if title and text.strip():
            yield SourceDocument(title, text.strip(), f"{relative}#{number}")


def _columns(path: Path, names: list[str]) -> Callable[[dict], tuple[str, str]]:
    lower = {str(n).lower(): n for n in names}
    title = next((lower[c] for c in TITLE_COLUMNS if c in lower), None)
    text = next((lower[c] for c in TEXT_COLUMNS if c in lower), None)
    if title is None or text is None:
        raise CorpusError(f"{path} needs a title column ({'/'.join(TITLE_COLUMNS)}) and a text column "
                          f"({'/'.join(TEXT_COLUMNS)}); it has {', '.join(map(str, names[:8]))}")
    return lambda row: (str(row.get(title) or ""), str(row.get(text) or ""))


def _jsonl_rows(path: Path) -> Iterator[dict]:
    return (row for _, row in json_objects(path))


def _csv_rows(path: Path) -> Iterator[dict]:
    csv.field_size_limit(MAX_FILE_BYTES)
    with open(path, encoding="utf-8-sig", newline="") as handle:
        yield from csv.DictReader(handle)


def _parquet_rows(path: Path) -> Iterator[dict]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise CorpusError("reading Parquet needs pyarrow: pip install pyarrow") from None
    table = pq.ParquetFile(path)
    for batch in table.iter_batches(batch_size=1024):
        yield from batch.to_pylist()


def text_sha256(*parts: str) -> str:
    """The hash a document or section is known by across index versions (its vector is reused under it)."""
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()
