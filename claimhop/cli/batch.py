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
import hashlib
import io
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tqdm import tqdm

from claimhop.evaluation.runner import append_row, json_objects


class ClaimsFileError(ValueError):
    """A claims file that cannot be read as claims: the message names the file, the line and the problem."""


def _from_json_lines(lines: list[str], source: str, plain_text_ok: bool) -> list[dict[str, str]]:
    items = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if plain_text_ok and not line.lstrip().startswith("{"):
            items.append({"claim": line.strip()})
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise ClaimsFileError(f"{source}:{number}: not valid JSON ({err.msg})") from None
        if not isinstance(row, dict) or not isinstance(row.get("claim"), str):
            raise ClaimsFileError(f"{source}:{number}: expected an object with a \"claim\" string")
        items.append(row)
    return items


def _from_csv(text: str, source: str) -> list[dict[str, str]]:
    reader = csv.DictReader(io.StringIO(text))
    if not reader.fieldnames or "claim" not in reader.fieldnames:
        raise ClaimsFileError(f"{source}: a CSV claims file needs a 'claim' column; its header is "
                              f"{', '.join(reader.fieldnames or []) or 'empty'}")
    return [row for row in reader if (row.get("claim") or "").strip()]


def read_claims(source: str) -> list[dict[str, str]]:
    """The claims of a file or of standard input ("-"), each {"id", "claim"}; the id is the file's own `id` (or
    `uid`) when it has one, else a hash of the claim's text, which is what resuming matches on."""
    if source == "-":
        items = _from_json_lines(sys.stdin.read().splitlines(), "standard input", plain_text_ok=True)
    else:
        path = Path(source)
        if not path.is_file():
            raise ClaimsFileError(f"claims file not found: {source}")
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise ClaimsFileError(f"{source}: not UTF-8 text") from None
        items = _from_csv(text, source) if path.suffix.lower() == ".csv" else _from_json_lines(
            text.splitlines(), source, plain_text_ok=False)
    if not items:
        raise ClaimsFileError(f"no claims in {'standard input' if source == '-' else source}")
    claims = []
    for item in items:
        given = item.get("id") or item.get("uid")
        claim_id = str(given) if given not in (None, "") else hashlib.sha256(item["claim"].encode()).hexdigest()[:16]
        claims.append({"id": claim_id, "claim": item["claim"]})
    return claims


def default_output(source: str) -> Path:
    return Path("claimhop-results.jsonl") if source == "-" else Path(source).with_suffix(".results.jsonl")


def finished_ids(out: Path) -> set[str]:
    """Ids of the claims the output already holds (a torn last line, from a crash mid-write, is ignored)."""
    return {str(row["id"]) for row in json_objects(out) if "id" in row}


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
    `run_one(claim_id, claim, ctx)` returns the final state. A claim the checker refuses (empty, too long) gets a row with
    its `error`, and the run goes on."""
    from state.validation import validate_claim

    done = finished_ids(out)
    todo = [c for c in claims if c["id"] not in done]
    counts = {"claims": len(claims), "already done": len(claims) - len(todo), "checked": 0, "refused": 0}
    verdicts: dict[str, int] = {}
    bar = tqdm(todo, desc="check", unit="claim", file=sys.stderr)
    for item in bar:
        started = time.perf_counter()
        try:
            claim = validate_claim(item["claim"])
        except ValueError as err:
            append_row(out, {"id": item["id"], "claim": item["claim"], "verdict": None, "error": str(err)})
            counts["refused"] += 1
            continue
        final = run_one(item["id"], claim, ctx)
        row = result_row(item, final, round(time.perf_counter() - started, 2))
        append_row(out, row)
        counts["checked"] += 1
        verdicts[str(row["verdict"])] = verdicts.get(str(row["verdict"]), 0) + 1
        bar.set_postfix(verdicts)
    return {**counts, **{f"verdict {k}": v for k, v in verdicts.items()}}
