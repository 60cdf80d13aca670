"""A user's own labelled pairs for a collection's verdict head (`claimhop train-verifier --corpus FOLDER --labelled
FILE`): a JSONL or CSV file of claim, evidence and label, read as a check reads them (the evidence among the
collection's passages that search finds for the claim) and trained on beside the claims made from the collection.

Labels are taken in the spellings public sets use: SUPPORTED / SUPPORTS / entailment / true, CONTRADICTED /
REFUTES / contradiction / false, INSUFFICIENT_INFO / NOT ENOUGH INFO / NEI / neutral (any case)."""

from __future__ import annotations

import csv
import hashlib
import json
import random
from collections.abc import Callable
from pathlib import Path

LABELS = {
    "supported": "SUPPORTED", "supports": "SUPPORTED", "support": "SUPPORTED", "entailment": "SUPPORTED",
    "true": "SUPPORTED",
    "contradicted": "CONTRADICTED", "refutes": "CONTRADICTED", "refuted": "CONTRADICTED", "refute": "CONTRADICTED",
    "contradiction": "CONTRADICTED", "false": "CONTRADICTED",
    "insufficient_info": "INSUFFICIENT_INFO", "not enough info": "INSUFFICIENT_INFO",
    "not_enough_info": "INSUFFICIENT_INFO",
    "nei": "INSUFFICIENT_INFO", "neutral": "INSUFFICIENT_INFO", "notenoughinfo": "INSUFFICIENT_INFO",
}
FIELDS = ("claim", "evidence", "label")
NEIGHBOURS = 4  # the collection's passages read beside a pair's evidence (a check reads several, not one)


def _rows(path: Path) -> list[tuple[int, dict]]:
    """(line number, row) of a JSONL or CSV file; a clear error for anything else."""
    text = path.read_text(encoding="utf-8-sig")
    if path.suffix.lower() == ".csv":
        reader = csv.DictReader(text.splitlines())
        return [(number + 2, row) for number, row in enumerate(reader)]
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise ValueError(f"{path}, line {number}: not JSON ({error.msg}); a labelled file is JSONL or CSV of "
                             "claim, evidence, label") from None
        if not isinstance(row, dict):
            raise ValueError(f"{path}, line {number}: a JSON object of claim, evidence, label is expected")
        rows.append((number, row))
    return rows


def read_labelled(path: str | Path) -> list[dict]:
    """The file's pairs as {id, claim, evidence, title, label}; a ValueError naming the file and line of the first
    row that lacks a field or has an unknown label."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise ValueError(f"labelled pairs file not found: {path}")
    if path.suffix.lower() not in (".jsonl", ".json", ".csv"):
        raise ValueError(f"{path}: a labelled file is .jsonl or .csv (claim, evidence, label)")
    pairs = []
    for number, row in _rows(path):
        lowered = {str(k).strip().lower(): v for k, v in row.items() if k is not None}
        missing = [f for f in FIELDS if not str(lowered.get(f) or "").strip()]
        if missing:
            raise ValueError(f"{path}, line {number}: no {', '.join(missing)} (each row needs claim, evidence, label)")
        label = LABELS.get(str(lowered["label"]).strip().lower())
        if label is None:
            raise ValueError(f"{path}, line {number}: unknown label {lowered['label']!r} (use SUPPORTED, CONTRADICTED "
                             "or INSUFFICIENT_INFO)")
        claim, evidence = str(lowered["claim"]).strip(), str(lowered["evidence"]).strip()
        digest = hashlib.sha256(f"{claim}\n{evidence}".encode()).hexdigest()[:12]
        title = str(lowered.get("title") or "").strip() or f"Evidence {digest[:8]}"
        pairs.append({"id": f"labelled-{digest}", "claim": claim, "evidence": evidence, "title": title,
                      "label": label})
    if not pairs:
        raise ValueError(f"{path}: no labelled pairs in it")
    return pairs


def labelled_items(pairs: list[dict], neighbours: Callable[[str], list[dict]], seed: int = 0) -> list[dict]:
    """Each pair as a training item read with its evidence among the collection's passages search finds for the
    claim (`neighbours(claim)`: documents {title, text}), at a seeded position: the documents are carried inline."""
    items = []
    for pair in pairs:
        evidence = {"title": pair["title"], "text": pair["evidence"]}
        others = [d for d in neighbours(pair["claim"]) if d["title"] != pair["title"]][:NEIGHBOURS]
        documents = list(others)
        documents.insert(random.Random(f"{seed}:{pair['id']}").randrange(min(len(others), 2) + 1), evidence)
        items.append({"key": pair["id"], "id": pair["id"], "group": pair["id"], "claim": pair["claim"],
                      "documents": documents, "titles": [d["title"] for d in documents], "label": pair["label"],
                      "kind": pair["label"], "variant": "labelled", "source": "labelled"})
    return items
