"""What a client of the server may set in a run's settings. A person at the CLI or in Python may point claimhop
at any corpus, index folder or engine; a server's client must not make the server read any file it can name,
write into any folder, or import code. The server enforces this twice: its middleware refuses such requests
with 422, and the nodes refuse such settings again (a run can also take settings from `config.configurable`
or from an assistant stored earlier), so the rule holds however a run was started."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

from claimhop.retrieval.corpus import BUNDLED_CORPUS, CorpusError, checked_corpus_path

# settings naming where a model is reached, or with what key: never a client's to choose
MODEL_ADDRESS = re.compile(r"api_?base|base_?url|api_?key|endpoint|host|url", re.IGNORECASE)


def enforced() -> bool:
    """True in a LangGraph server process (its API package is loaded), or when CLAIMHOP_CLIENT_POLICY=1."""
    return "langgraph_api" in sys.modules or os.environ.get("CLAIMHOP_CLIENT_POLICY") == "1"


def allowed_dirs() -> list[Path]:
    """Folders a client may name corpora and indexes in: the bundled data and CLAIMHOP_CORPUS_DIRS (os.pathsep)."""
    extra = [Path(p).expanduser() for p in os.environ.get("CLAIMHOP_CORPUS_DIRS", "").split(os.pathsep) if p.strip()]
    return [BUNDLED_CORPUS.parent, *extra]


def _inside(path: str, folders: list[Path]) -> bool:
    resolved = Path(path).expanduser().resolve()
    return any(resolved.is_relative_to(folder.resolve()) for folder in folders)


def corpus_problem(corpus_path: str) -> str | None:
    if not corpus_path:
        return None
    if not _inside(corpus_path, allowed_dirs()):
        return (f"corpus_path {corpus_path} is outside the folders this server reads corpora from; "
                "its operator can allow a folder with CLAIMHOP_CORPUS_DIRS")
    try:
        checked_corpus_path(corpus_path)
    except CorpusError as err:
        return str(err)
    return None


def index_dir_problem(index_dir: str) -> str | None:
    """Building an index writes files: only inside a folder the operator allowed (not the bundled data)."""
    if index_dir and not _inside(index_dir, allowed_dirs()[1:]):
        return (f"index_dir {index_dir} is outside the folders this server may use; "
                "its operator can allow a folder with CLAIMHOP_CORPUS_DIRS")
    return None


def client_settings_problem(settings: Any) -> str | None:
    """Why a server client may not use these raw settings (a mapping as the client sent it), or None."""
    if not isinstance(settings, dict):
        return None
    named = [str(name) for name in settings if MODEL_ADDRESS.search(str(name))]
    if named:  # the operator's API key must never go to an address a client chose
        return (f"{', '.join(named)}: a model server's address and key are not run settings: they come from "
                "the server's environment (OPENAI_API_BASE, OPENAI_API_KEY, ...)")
    if settings.get("retriever"):
        return "the retriever engine is chosen by the server's operator (CLAIMHOP_RETRIEVER), not per run"
    if str(settings.get("reranker") or "") not in {"", "lm"}:
        return "a re-ranker other than 'lm' is code the server's operator chooses (CLAIMHOP_RERANKER), not per run"
    return corpus_problem(str(settings.get("corpus_path") or "")) or index_dir_problem(str(settings.get("index_dir") or ""))
