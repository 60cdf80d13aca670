"""What a client of the server may set in a run's settings. A person at the CLI or in Python may point claimhop
at any model, corpus, index folder, program file or engine; a server's client must not choose anything that leaves
the server: which model server its calls reach (LiteLLM reads an address out of a model name, e.g.
`huggingface/https://HOST/...`, and sends the operator's key there) or whose key pays, which files it reads
(`program_path` is read as predictor instructions), which folders it writes, or which code it imports.

The rule is an allow-list: a client may name only claimhop's own settings; `model` only as one of the models the
operator lists in CLAIMHOP_MODELS (default: the one the server runs); corpora and index folders only inside the
folders the operator allows; never `program_path` or `retriever`; `reranker` only 'lm', and only when the
operator allows it. The settings that multiply a run's model calls or its work (the model re-ranker, its depth,
gap-loop rounds and queries, attempts, timeouts, documents per search) are capped for clients by CLIENT_LIMITS,
which the operator changes with CLAIMHOP_CLIENT_LIMITS; the operator's own value of a setting (CLAIMHOP_<NAME>)
always passes. An empty value from a client (null, or "" for a text setting: what a form's empty field sends)
chooses nothing: it means the operator's value, never the built-in default the operator replaced.

The server enforces it twice: its middleware refuses such requests with 422 before anything runs, and the nodes
refuse such settings again and fill empty values with the operator's (a run can also take settings from
`config.configurable` or from an assistant stored earlier), so the rule holds however a run was started."""

from __future__ import annotations

import copy
import math
import os
import re
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any

from claimhop.retrieval.corpus import BUNDLED_CORPUS, CorpusError, checked_corpus_path
from state.context import SECRET_NAME, Context
from state.fields import ENV_PREFIX
from state.tuning import TUNING_NAMES, Tuning

MODELS_ENV = "CLAIMHOP_MODELS"
LIMITS_ENV = "CLAIMHOP_CLIENT_LIMITS"
# settings naming where a model is reached, or with what key: never a client's to choose
MODEL_ADDRESS = re.compile(r"api_?base|base_?url|api_?key|endpoint|host|url", re.IGNORECASE)
# settings that name a file or code the server would read or import: the operator's alone, whatever the value
OPERATOR_ONLY = {
    "program_path": "a saved program is a file the server reads; its operator chooses it (CLAIMHOP_PROGRAM_PATH)",
    "retriever": "the retriever engine is chosen by the server's operator (CLAIMHOP_RETRIEVER), not per run",
}
CLIENT_SETTINGS = frozenset({f.name for f in fields(Context)} | set(TUNING_NAMES)) - set(OPERATOR_ONLY)
# settings whose empty string means "none" or "the default" (an empty form field): from a client, the operator's value
TEXT_SETTINGS = frozenset(f.name for cls in (Context, Tuning) for f in fields(cls) if str(f.type) == "str")
# what a client's run may cost at most, setting by setting (the chat page offers max_iterations 0-3); the operator
# sets others in CLAIMHOP_CLIENT_LIMITS ("max_iterations=5,reranker=lm"), and its own CLAIMHOP_<NAME> always passes
CLIENT_LIMITS: dict[str, float | str] = {
    "reranker": "",  # 'lm' asks the model about each of rerank_depth documents of every search: ~100x the calls
    "rerank_depth": 20,
    "max_iterations": 3,
    "loop_queries": 3,
    "model_attempts": 2,
    "model_timeout_s": 300,
    "phase1_k": 50,
    "phase2_k": 50,
    "bridge_k": 10,
    "loop_k": 10,
    "top_k": 50,
}


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


def operators_context() -> Context | None:
    """The settings the server runs with when a client sets nothing (its environment and defaults), or None when
    the operator's environment is broken (every run fails on it anyway, with its message)."""
    try:
        return Context()
    except ValueError:
        return None


def client_limits() -> dict[str, float | str]:
    """CLIENT_LIMITS with the operator's CLAIMHOP_CLIENT_LIMITS ("name=value,..."); ValueError naming a bad entry."""
    limits = dict(CLIENT_LIMITS)
    for entry in os.environ.get(LIMITS_ENV, "").split(","):
        if not entry.strip():
            continue
        name, _, raw = (part.strip() for part in entry.partition("="))
        if name not in CLIENT_LIMITS:
            raise ValueError(f"{LIMITS_ENV}: {name!r} is not a setting it limits (it limits {', '.join(CLIENT_LIMITS)})")
        if name == "reranker":
            if raw not in {"", "lm"}:
                raise ValueError(f"{LIMITS_ENV}: reranker={raw!r}: a client's re-ranker may only be lm (or none)")
            limits[name] = raw
            continue
        try:
            limits[name] = float(raw)
        except ValueError:
            raise ValueError(f"{LIMITS_ENV}: {name}={raw!r} is not a number") from None
    return limits


def limits_problem(given: dict[str, Any]) -> str | None:
    """The first setting whose value passes the server's limit for clients, named with the limit."""
    try:
        limits = client_limits()
    except ValueError as err:
        return f"this server's limits for clients are misconfigured, its operator must fix them: {err}"
    own = operators_context()
    for name, limit in limits.items():
        if name not in given:
            continue
        value, own_value = given[name], own.value(name) if own is not None else None
        if name == "reranker":
            if value == "lm" and limit != "lm" and own_value != "lm":
                return (f"reranker 'lm' has the model judge each of rerank_depth documents of every search (about a "
                        f"hundred times a check's model calls); this server's limit for clients is no model "
                        f"re-ranking (its operator allows it with {LIMITS_ENV}=reranker=lm)")
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            continue  # not a number: the setting's own check refuses it, naming its type
        cap = max(float(limit), float(own_value)) if isinstance(own_value, (int, float)) else float(limit)
        if value > cap:
            return (f"{name}={value:g} is over this server's limit for clients, {name} <= {cap:g} (it multiplies a "
                    f"check's model calls or work; its operator can raise it with {LIMITS_ENV}={name}=N)")
    return None


def with_operator_values(settings: Any) -> Any:
    """A client's settings with its empty values (null, or "" for a text setting) meaning the operator's: dropped
    from a mapping (so the server's environment fills them), replaced by the operator's value in a Context (which
    LangGraph built from the client's mapping, "" and all)."""
    if isinstance(settings, dict):
        kept = {name: value for name, value in settings.items() if not empty(str(name), value)}
        if isinstance(kept.get("tuning"), dict):
            kept["tuning"] = {name: value for name, value in kept["tuning"].items() if not empty(str(name), value)}
        return kept
    if not isinstance(settings, Context) or (own := operators_context()) is None:
        return settings
    filled, tuning = copy.copy(settings), copy.copy(settings.tuning)
    for name in TEXT_SETTINGS:
        target, source = (tuning, own.tuning) if name in TUNING_NAMES else (filled, own)
        if getattr(target, name) == "":
            setattr(target, name, getattr(source, name))
    filled.tuning = tuning
    return filled


def empty(name: str, value: Any) -> bool:
    """A value that chooses nothing: null for any setting, "" for a text one."""
    return value is None or (value == "" and name in TEXT_SETTINGS)


def context_problem(ctx: Context) -> str | None:
    """The same rule for settings already made into a Context (LangGraph builds one from a run's dict before the
    nodes see it): a value that differs from the server's own (its environment and defaults) is one a client
    chose, and must be one a client may choose; an empty text value means the server's own."""
    own = operators_context()
    if own is None:
        return None
    ctx = with_operator_values(ctx)
    chosen = {name: ctx.value(name) for name in (CLIENT_SETTINGS | set(OPERATOR_ONLY)) - {"tuning"}
              if ctx.value(name) != own.value(name)}
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
    given = with_operator_values({str(name): value for name, value in settings.items()})  # empty: the operator's
    problem = names_problem(list(given))
    if problem:
        return problem
    if "model" in given and (problem := model_problem(given["model"])):
        return problem
    if str(given.get("reranker") or "") not in {"", "lm"}:
        return "a re-ranker other than 'lm' is code the server's operator chooses (CLAIMHOP_RERANKER), not per run"
    tuning = given.get("tuning") if isinstance(given.get("tuning"), dict) else {}
    return (limits_problem({**{str(name): value for name, value in tuning.items()}, **given})
            or corpus_problem(str(given.get("corpus_path") or ""))
            or index_dir_problem(str(given.get("index_dir") or "")))
