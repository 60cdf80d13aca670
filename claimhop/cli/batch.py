"""`claimhop check --file CLAIMS`: many claims at once, one JSON line per finished claim, resumable.

For users with a list to check rather than one claim. The input is JSONL (a `claim` field, and optionally `id`),
CSV (a `claim` column, optionally `id`) or `-` for standard input (one claim per line, or JSON lines). Each
finished claim is appended to the output file and fsynced at once, so Ctrl-C or a crash loses at most the claim
being checked, and the same command again skips every claim already in the output. Each claim's run is also
checkpointed node by node (`graph.durable`; in PostgreSQL with CLAIMHOP_CHECKPOINTS), on a thread named by
the claim and the settings, so the claim that was being checked resumes from its last finished node, on this
machine or any other that shares the checkpoints."""

from __future__ import annotations

import csv
import fcntl
import hashlib
import io
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tqdm import tqdm

from claimhop.atomic import atomic_path
from claimhop.evaluation.runner import append_row, json_objects, jsonl_lines


class ClaimsFileError(ValueError):
    """A claims file that cannot be read as claims: the message names the file, the line and the problem."""


def _from_json_lines(lines: list[str], source: str, plain_text_ok: bool) -> list[dict[str, str]]:
    items = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if plain_text_ok and not line.lstrip().startswith("{"):
            items.append({"claim": line.strip(), "line": number})
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise ClaimsFileError(f"{source}:{number}: not valid JSON ({err.msg})") from None
        if not isinstance(row, dict) or not isinstance(row.get("claim"), str):
            raise ClaimsFileError(f"{source}:{number}: expected an object with a \"claim\" string")
        items.append({**row, "line": number})
    return items


def _from_csv(text: str, source: str) -> list[dict[str, str]]:
    reader = csv.DictReader(io.StringIO(text))
    if not reader.fieldnames or "claim" not in reader.fieldnames:
        raise ClaimsFileError(f"{source}: a CSV claims file needs a 'claim' column; its header is "
                              f"{', '.join(reader.fieldnames or []) or 'empty'}")
    return [{**row, "line": reader.line_num} for row in reader if (row.get("claim") or "").strip()]


def read_claims(source: str) -> list[dict[str, str]]:
    """The claims of a file or of standard input ("-"), each {"id", "claim"}; the id is the file's own `id` (or
    `uid`) when it has one, else a hash of the claim's text, which is what resuming matches on."""
    if source == "-":
        items = _from_json_lines(jsonl_lines(sys.stdin.read()), "standard input", plain_text_ok=True)
    else:
        path = Path(source)
        if not path.is_file():
            raise ClaimsFileError(f"claims file not found: {source}")
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise ClaimsFileError(f"{source}: not UTF-8 text") from None
        items = _from_csv(text, source) if path.suffix.lower() == ".csv" else _from_json_lines(
            jsonl_lines(text), source, plain_text_ok=False)
    where = "standard input" if source == "-" else source
    if not items:
        raise ClaimsFileError(f"no claims in {where}")
    claims = [{"id": claim_id(item), "claim": item["claim"], "line": item["line"]} for item in items]
    refuse_duplicates(claims, where)
    return [{"id": c["id"], "claim": c["claim"]} for c in claims]


def claim_id(item: dict) -> str:
    """The file's own `id` (or `uid`), else a hash of the claim's text: what resuming matches on."""
    given = item.get("id") or item.get("uid")
    return str(given) if given not in (None, "") else hashlib.sha256(item["claim"].encode()).hexdigest()[:16]


def refuse_duplicates(claims: list[dict], where: str, shown: int = 3) -> None:
    """Two claims with one id would share one result line (the second never checked, or its row read as the
    first's): refused, naming the lines, in one line."""
    lines: dict[str, list[int]] = {}
    for claim in claims:
        lines.setdefault(claim["id"], []).append(claim["line"])
    twice = {i: at for i, at in lines.items() if len(at) > 1}
    if not twice:
        return
    named = "; ".join(f"id {i!r} on lines {', '.join(map(str, at))}" for i, at in list(twice.items())[:shown])
    more = f" and {len(twice) - shown} more" if len(twice) > shown else ""
    raise ClaimsFileError(f"{where}: {len(twice)} duplicate claim id(s): {named}{more} (each claim needs an id of "
                          "its own; a claim without one is named by its text)")


class OutputBusyError(ValueError):
    """Another run is writing the same results file."""


def lock_file(out: Path) -> Path:
    """The lock beside a results file (`RESULTS.lock`, an empty file, only ever locked)."""
    return out.with_name(out.name + ".lock")


@contextmanager
def one_writer(out: Path) -> Iterator[None]:
    """Hold the results file's lock (flock, exclusive, not waited for) for the whole run: a second run on the same
    `--out` would append its rows among this one's and check the same claims again. Refused at once, naming the
    file; the lock goes with the process however it ends."""
    if not out.parent.is_dir():
        raise ValueError(f"--out {out}: its folder {out.parent} does not exist")
    lock = os.open(lock_file(out), os.O_CREAT | os.O_RDWR, 0o644)
    try:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise OutputBusyError(f"{out} is being written by another run (it holds {lock_file(out)}); wait for "
                                  "that run to end, or give this one another --out") from None
        yield
    finally:
        os.close(lock)


def default_output(source: str) -> Path:
    return Path("claimhop-results.jsonl") if source == "-" else Path(source).with_suffix(".results.jsonl")


def finished_ids(out: Path) -> set[str]:
    """Ids of the claims the output already holds (a torn last line, from a crash mid-write, is ignored; a claim
    that failed is not finished: `forget_failures` takes its row out and the rerun checks it again)."""
    return {str(row["id"]) for row in json_objects(out) if "id" in row and not row.get("failed")}


def forget_failures(out: Path) -> int:
    """Take the rows of claims that failed out of the output (rewritten whole, atomically and fsynced, every
    other line as it was), so a rerun checks them again and each claim keeps exactly one line; how many."""
    if not out.is_file():
        return 0
    lines = jsonl_lines(out.read_bytes().decode("utf-8", errors="replace"))
    kept = [line for line in lines if not _failed(line)]
    if len(kept) == len(lines):
        return 0
    with atomic_path(out) as tmp, open(tmp, "wb") as handle:
        handle.write("\n".join(kept).encode("utf-8"))
        handle.flush()
        os.fsync(handle.fileno())
    return len(lines) - len(kept)


def _failed(line: str) -> bool:
    try:
        row = json.loads(line)
    except json.JSONDecodeError:
        return False
    return isinstance(row, dict) and bool(row.get("failed"))


ATTEMPTS = 3  # a claim that raises is tried this often (a dropped connection, a restarted database) before its failed row
RETRY_WAIT_S = (2.0, 8.0)  # between attempts: time for a restarting database or model server to come back


def retry_wait(attempt: int) -> float:
    """Seconds to wait after the `attempt`-th try of a claim raised, before the next (2 s, then 8 s): the same
    schedule for a local batch and a Ray batch."""
    return RETRY_WAIT_S[min(max(attempt, 1), len(RETRY_WAIT_S)) - 1]


def failed_row(item: dict[str, str], error: BaseException | str, attempts: int) -> dict[str, Any]:
    """The row of a claim that could not be checked: why (one line, no traceback), and that a rerun retries it."""
    reason = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
    first = (reason.strip().splitlines() or [type(error).__name__])[0][:500]
    return {"id": item["id"], "claim": item["claim"], "verdict": None, "failed": True, "error": first,
            "attempts": attempts}


def checked_or_failed(item: dict[str, str], claim: str, ctx: Any,
                      run_one: Callable[[str, str, Any], dict[str, Any]], attempts: int = ATTEMPTS) -> dict[str, Any]:
    """The claim's result row, or after `attempts` tries that raised, its failed row (each retry resumes the
    claim from its last checkpointed node)."""
    started = time.perf_counter()
    error: Exception | None = None
    for attempt in range(1, attempts + 1):
        try:
            final = run_one(item["id"], claim, ctx)
            return result_row(item, final, round(time.perf_counter() - started, 2))
        except Exception as err:  # noqa: BLE001 - any fault of one claim is that claim's, not the batch's
            error = err
            print(f"claim {item['id']}: attempt {attempt} of {attempts} failed: {failed_row(item, err, 0)['error']}",
                  file=sys.stderr)
            if attempt < attempts:
                time.sleep(retry_wait(attempt))
    return failed_row(item, error or "no attempt made", attempts)


def result_row(item: dict[str, str], final: dict[str, Any], seconds: float) -> dict[str, Any]:
    """What a user of a batch wants per claim: the verdict first, the cited answer, and what it rests on."""
    return {
        "id": item["id"], "claim": item["claim"], "verdict": final.get("verdict"),
        "confidence": final.get("confidence"), "answer": final.get("answer", ""),
        "documents": [d["title"] for d in final.get("selected", [])],
        "facts": [{"fact": f.get("fact"), "verdict": f.get("verdict")} for f in final.get("facts") or []],
        "degraded": final.get("degraded", []), "lm_calls": final.get("lm_calls", 0), "seconds": seconds,
    }


def check_many(claims: list[dict[str, str]], out: Path, ctx: Any,
               run_one: Callable[[str, str, Any], dict[str, Any]]) -> dict[str, int]:
    """Check every claim (as `read_claims` gives them) not yet in `out`, appending one row each;
    `run_one(claim_id, claim, ctx)` returns the final state. A claim the checker refuses (empty, too long) gets a
    row with its `error`; one that raises is tried again, then gets a failed row with its error (a rerun retries
    only those); either way the run goes on."""
    from state.validation import validate_claim

    retried = forget_failures(out)
    done = finished_ids(out)
    todo = [c for c in claims if c["id"] not in done]
    counts = {"claims": len(claims), "already done": len(claims) - len(todo), "failed before, retried": retried,
              "checked": 0, "refused": 0, "failed": 0}
    verdicts: dict[str, int] = {}
    bar = tqdm(todo, desc="check", unit="claim", file=sys.stderr)
    for item in bar:
        try:
            claim = validate_claim(item["claim"])
        except ValueError as err:
            append_row(out, {"id": item["id"], "claim": item["claim"], "verdict": None, "error": str(err)})
            counts["refused"] += 1
            continue
        row = checked_or_failed(item, claim, ctx, run_one)
        append_row(out, row)
        counts["failed" if row.get("failed") else "checked"] += 1
        if not row.get("failed"):
            verdicts[str(row["verdict"])] = verdicts.get(str(row["verdict"]), 0) + 1
        bar.set_postfix(verdicts)
    return {**counts, **{f"verdict {k}": v for k, v in verdicts.items()}}
