"""Run systems over claims, one JSON line per (system, claim) appended as each finishes, so a run resumes."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any, BinaryIO

from tqdm import tqdm

from claimhop.evaluation.metric import retrieval_metrics
from claimhop.evaluation.systems import SystemFn, timed


def jsonl_lines(text: str) -> list[str]:
    """The lines of JSON Lines text: split at "\\n" only. `str.splitlines` also splits at U+2028, U+2029, U+0085
    and others, which `json.dumps(..., ensure_ascii=False)` writes as they are inside a string: a claim holding
    one would be read as two broken lines, never count as done, and be checked again on every resume."""
    return text.split("\n")


def json_objects(path: Path) -> list[dict]:
    """The JSON objects of an append-only JSONL file (none when it does not exist); a torn last line (a crash
    mid-write) or any line that is not an object is skipped, so a resumed run starts from what was written."""
    if not path.is_file():
        return []
    rows = []
    for line in jsonl_lines(path.read_bytes().decode("utf-8", errors="replace")):
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(row, dict):
            rows.append(row)
    return rows


def rows_in(path: Path) -> list[dict]:
    """Every result row of a results file: the objects with a system and a claim uid."""
    return [row for row in json_objects(path) if "system" in row and "uid" in row]


def finished_rows(path: Path, fingerprint: str) -> dict[tuple[str, str], dict]:
    """Rows already written for this configuration."""
    return {(row["system"], row["uid"]): row for row in rows_in(path) if row.get("fingerprint") == fingerprint}


def recorded_run(path: Path, claims: list[dict], systems: list[str], command: str = "claimhop eval") -> tuple[list[dict], str]:
    """The rows of the run recorded in `path` (for each system, its most common fingerprint: a peer's rows
    carry over from run to run, claimhop's change with its code) for the claims every one of `systems` has
    finished, so a report on a run still going (or frozen at other code) compares like with like."""
    rows = rows_in(path)
    if not rows:
        raise ValueError(f"no result rows (with a system and a claim uid) in {path}: run `{command} --out {path}` first")
    present = {row["system"] for row in rows}
    missing = [s for s in systems if s not in present]
    if missing:
        raise ValueError(f"{path} has no rows of system(s) {', '.join(missing)}; it has {', '.join(sorted(present))}")
    keys = {s: Counter(row.get("fingerprint") for row in rows if row["system"] == s).most_common(1)[0][0]
            for s in systems}
    done = {(row["system"], row["uid"]): row for row in rows
            if row["system"] in keys and row.get("fingerprint") == keys[row["system"]]}
    complete = [c for c in claims if all((s, c["uid"]) in done for s in systems)]
    distinct = list(dict.fromkeys(keys.values()))
    label = distinct[0] if len(distinct) == 1 else ", ".join(f"{s} {k}" for s, k in keys.items())
    return [done[(s, c["uid"])] for c in complete for s in systems], label


def append_row(path: Path, row: dict) -> None:
    """One JSON line, flushed and fsynced before returning: what is written survives a crash or Ctrl-C. A torn
    last line a crash left is repaired first, so the new row never glues onto it."""
    with open(path, "a+b") as handle:
        repair_tail(handle)
        handle.write((json.dumps(row, ensure_ascii=False) + "\n").encode("utf-8"))
        handle.flush()
        os.fsync(handle.fileno())


TAIL_CHUNK = 1 << 16


def repair_tail(handle: BinaryIO) -> None:
    """End an append-only JSONL file (open for reading and appending) with a whole line: a last line without its
    newline is completed when it is a whole JSON object (the crash came just before the newline), else cut off
    (a row half written is no row: its job runs again)."""
    size = handle.seek(0, os.SEEK_END)
    if size == 0:
        return
    handle.seek(size - 1)
    if handle.read(1) == b"\n":
        return
    start = _last_line_start(handle, size)
    handle.seek(start)
    tail = handle.read(size - start)
    try:
        whole = isinstance(json.loads(tail.decode("utf-8")), dict)
    except (UnicodeDecodeError, json.JSONDecodeError):
        whole = False
    if whole:
        handle.write(b"\n")
    else:
        handle.truncate(start)
    handle.flush()
    os.fsync(handle.fileno())


def _last_line_start(handle: BinaryIO, size: int) -> int:
    """Where the file's last line begins: just after its last newline (0 when it has none)."""
    end = size
    while end > 0:
        begin = max(0, end - TAIL_CHUNK)
        handle.seek(begin)
        found = handle.read(end - begin).rfind(b"\n")
        if found >= 0:
            return begin + found + 1
        end = begin
    return 0


def todo_pairs(claims: list[dict], systems: list[str], out: Path, fingerprints: dict[str, str]
               ) -> tuple[dict[tuple[str, str], dict], list[tuple[str, dict]]]:
    """(rows already in `out` under each system's fingerprint, the (system, claim) pairs still to run)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    done = {(row["system"], row["uid"]): row for row in rows_in(out)
            if row.get("fingerprint") == fingerprints.get(row["system"])}
    return done, [(s, c) for c in claims for s in systems if (s, c["uid"]) not in done]


def eval_row(system_fn: SystemFn, system: str, claim: dict, fingerprint: str) -> dict:
    """One (system, claim) result row: the system's output, timed, with its retrieval metrics."""
    result: dict[str, Any] = timed(system_fn, claim["claim"])
    return {
        "fingerprint": fingerprint, "system": system, "uid": claim["uid"],
        "num_hops": claim.get("num_hops"), "label": claim.get("label"),
        "gold": claim["supporting_titles"], **retrieval_metrics(result["titles"], claim["supporting_titles"]),
        **result,
    }


def run_eval(
    claims: list[dict], systems: dict[str, SystemFn], out: Path, fingerprints: dict[str, str]
) -> list[dict]:
    """Every (system, claim) pair not yet in `out` under that system's fingerprint; returns all rows for these
    claims and systems."""
    done, todo = todo_pairs(claims, list(systems), out, fingerprints)
    hits: dict[str, list[float]] = {s: [] for s in systems}
    for (system, uid), row in done.items():
        if system in hits:
            hits[system].append(row["recall@21"])
    with tqdm(total=len(claims) * len(systems), initial=len(claims) * len(systems) - len(todo),
              desc="eval", unit="run") as bar:
        for system, claim in todo:
            row = eval_row(systems[system], system, claim, fingerprints[system])
            append_row(out, row)
            done[(system, claim["uid"])] = row
            hits[system].append(row["recall@21"])
            bar.set_postfix({s: f"{sum(v) / len(v):.2f}" for s, v in hits.items() if v})
            bar.update(1)
    return [done[(s, c["uid"])] for c in claims for s in systems]
