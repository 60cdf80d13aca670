"""The HoVer retrieval metric of DSPy's langProBe (`discrete_retrieval_eval`), plus recall@k and partial credit."""

from __future__ import annotations

import re
from typing import Literal

from dspy.evaluate.metrics import normalize_text

from claimhop.retrieval.titles import SECTION_JOIN

KS = (5, 10, 21, 50)


def title_of(document: str) -> str:
    """Documents formatted as "title | text" count by their title, as in langProBe."""
    return document.split(" | ")[0]


def normalized_titles(documents: list[str]) -> list[str]:
    return [normalize_text(title_of(d)) for d in documents]


def all_gold_in(retrieved: list[str], gold: list[str], k: int = 21) -> bool:
    """1 when every gold supporting title is among the first k retrieved titles (after normalisation)."""
    found = set(normalized_titles(retrieved[:k]))
    return {normalize_text(g) for g in gold} <= found


def of_document(title: str, document: str) -> bool:
    """Whether the passage titled `title` is part of `document`: its own title, a part of it ("Title (2)") or a
    section ("Title > Methods", "Title > Methods (2)"), as claimhop.retrieval.sections names a long document's
    passages. Only numbered parts count, so "Foxes (soundtrack)" is not part of "Foxes"."""
    if title == document or title.startswith(document + SECTION_JOIN):
        return True
    return title.startswith(document + " (") and re.fullmatch(r"\(\d+\)", title[len(document) + 1:]) is not None


def evidence_in(titles: list[str], gold: list[str], k: int, count: Literal["passage", "document"] = "passage"
                ) -> bool:
    """Whether any evidence document is among the first k titles (out-of-domain sets list alternative evidence).
    `count="passage"` counts only the passage titled as the document (its lead), which misses the evidence when a
    later part or section of it is what was retrieved; `count="document"` counts any passage of it (`of_document`),
    the same rule for every system compared."""
    if count == "passage":
        return any(t in gold for t in titles[:k])
    return any(of_document(t, g) for t in titles[:k] for g in gold)


def retrieval_metrics(retrieved: list[str], gold: list[str]) -> dict[str, float | None]:
    """recall@k for each k the system returned at least k documents for (else None), and the fraction of gold
    titles in the first 21 (partial credit)."""
    gold_set = {normalize_text(g) for g in gold}
    top21 = set(normalized_titles(retrieved[:21]))
    out: dict[str, float | None] = {
        f"recall@{k}": (float(all_gold_in(retrieved, gold, k)) if len(retrieved) >= k or k == 21 else None)
        for k in KS
    }
    out["gold_fraction@21"] = len(gold_set & top21) / len(gold_set) if gold_set else 1.0
    return out


def label_of(verdict: str | None) -> str | None:
    """HoVer has two labels: SUPPORTED, and NOT_SUPPORTED for both CONTRADICTED and INSUFFICIENT_INFO."""
    if verdict is None:
        return None
    return "SUPPORTED" if verdict == "SUPPORTED" else "NOT_SUPPORTED"
