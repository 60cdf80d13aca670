"""What a client of the server may set in a run's settings. A person at the CLI or in Python may point claimhop
at any model, corpus, index folder, program file or engine; a server's client must not choose anything that leaves
the server: which model server its calls reach (LiteLLM reads an address out of a model name, e.g.
`huggingface/https://HOST/...`, and sends the operator's key there) or whose key pays, which files it reads
(`program_path` is read as predictor instructions), which folders it writes, or which code it imports.

The rule is an allow-list: a client may name only claimhop's own settings; `model` only as one of the models the
operator lists in CLAIMHOP_MODELS (default: the one the server runs); corpora and index folders only inside the
folders the operator allows; never `program_path` or `retriever`; `reranker` only 'lm'. The server enforces it
twice: its middleware refuses such requests with 422 before anything runs, and the nodes refuse such settings
again (a run can also take settings from `config.configurable` or from an assistant stored earlier), so the rule
holds however a run was started."""

from __future__ import annotations

import os
import re
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any

from claimhop.retrieval.corpus import BUNDLED_CORPUS, CorpusError, checked_corpus_path
from state.context import SECRET_NAME, Context
from state.fields import ENV_PREFIX
from state.tuning import TUNING_NAMES

MODELS_ENV = "CLAIMHOP_MODELS"
# settings naming where a model is reached, or with what key: never a client's to choose
MODEL_ADDRESS = re.compile(r"api_?base|base_?url|api_?key|endpoint|host|url", re.IGNORECASE)
# settings that name a file or code the server would read or import: the operator's alone, whatever the value
OPERATOR_ONLY = {
    "program_path": "a saved program is a file the server reads; its operator chooses it (CLAIMHOP_PROGRAM_PATH)",
    "retriever": "the retriever engine is chosen by the server's operator (CLAIMHOP_RETRIEVER), not per run",
}
CLIENT_SETTINGS = frozenset({f.name for f in fields(Context)} | set(TUNING_NAMES)) - set(OPERATOR_ONLY)


def enforced() -> bool:
    """True in a LangGraph server process (its API package is loaded), or when CLAIMHOP_CLIENT_POLICY=1."""
    return "langgraph_api" in sys.modules or os.environ.get("CLAIMHOP_CLIENT_POLICY") == "1"


def server_model() -> str:
    """The model the server runs when a client names none: CLAIMHOP_MODEL, else the `model` setting's default."""
    default = next(f.default for f in fields(Context) if f.name == "model")
    return os.environ.get(f"{ENV_PREFIX}MODEL", default)


def allowed_models() -> list[str]:
    """The models a client may pick: the server's own and those its operator lists in CLAIMHOP_MODELS (commas)."""
    listed = [name.strip() for name in os.environ.get(MODELS_ENV, "").split(",") if name.strip()]
    return list(dict.fromkeys([server_model(), *listed]))


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


def model_problem(model: Any) -> str | None:
    """A model name is also an address and a choice of key (LiteLLM's `huggingface/https://HOST`,
    `oobabooga/http://10.0.0.5`, `anthropic/...`): only the names the operator listed pass, compared exactly."""
    offered = allowed_models()
    if isinstance(model, str) and model in offered:
        return None
    shown = repr(model)[:80] if isinstance(model, str) else f"a {type(model).__name__}"
    return (f"model {shown} is not offered by this server; a client may choose {', '.join(offered)} "
            f"(its operator lists them in {MODELS_ENV})")


def names_problem(names: list[str]) -> str | None:
    """Only claimhop's own setting names pass; addresses, keys and anything unknown are refused by name."""
    address = [name for name in names if MODEL_ADDRESS.search(name)]
    if address:  # the operator's API key must never go to an address a client chose
        return (f"{', '.join(address)}: a model server's address and key are not run settings: they come from "
                "the server's environment (OPENAI_API_BASE, OPENAI_API_KEY, ...)")
    secret = [name for name in names if SECRET_NAME.search(name) and name not in CLIENT_SETTINGS]
    if secret:
        return (f"{', '.join(secret)}: API keys and other secrets are not run settings; they come from the "
                "server's environment")
    unknown = sorted(name for name in names if name not in CLIENT_SETTINGS and name not in OPERATOR_ONLY)
    if unknown:
        return f"unknown setting(s): {', '.join(unknown)} (claimhop's settings are listed in its docs/settings.md)"
    chosen = [name for name in names if name in OPERATOR_ONLY]
    return f"{chosen[0]}: {OPERATOR_ONLY[chosen[0]]}" if chosen else None


def context_problem(ctx: Context) -> str | None:
    """The same rule for settings already made into a Context (LangGraph builds one from a run's dict before the
    nodes see it): a value that differs from the server's own (its environment and defaults) is one a client
    chose, and must be one a client may choose."""
    try:
        own = Context()
    except ValueError:  # the operator's environment is broken: every run fails on it anyway, with its message
        return None
    chosen = {name: getattr(ctx, name) for name in CLIENT_SETTINGS | set(OPERATOR_ONLY)
              if name != "tuning" and name not in TUNING_NAMES and getattr(ctx, name) != getattr(own, name)}
    return client_settings_problem(chosen)


def client_settings_problem(settings: Any) -> str | None:
    """Why a server client may not use these settings (a mapping as the client sent it, or the Context a run was
    given), or None."""
    if settings is None:
        return None
    if isinstance(settings, Context):
        return context_problem(settings)
    if not isinstance(settings, dict):
        return f"settings must be a mapping of names to values, got {type(settings).__name__}"
    given = {str(name): value for name, value in settings.items()
             if not (str(name) in OPERATOR_ONLY and value in (None, ""))}  # a form's empty field chooses nothing
    problem = names_problem(list(given))
    if problem:
        return problem
    if "model" in given and (problem := model_problem(given["model"])):
        return problem
    if str(given.get("reranker") or "") not in {"", "lm"}:
        return "a re-ranker other than 'lm' is code the server's operator chooses (CLAIMHOP_RERANKER), not per run"
    return corpus_problem(str(given.get("corpus_path") or "")) or index_dir_problem(str(given.get("index_dir") or ""))
