"""Why a document was kept, dropped or never found, told from the thread's recorded hops and scores.

Deterministic on purpose: a follow-up like "why did you drop X?" is answered from what the run recorded,
not from what a model imagines about it."""

from __future__ import annotations

import re

from rapidfuzz import fuzz

from claimhop.program.select.stage import candidate_pool, score_candidates
from claimhop.retrieval.article_links import LinkTable
from claimhop.retrieval.titles import normalize_title
from state.context import Context
from state.schema import Hop, SelectedDoc, State

# Words after which a follow-up usually names the document it asks about.
_TOPIC = re.compile(
    r"\b(?:drop|dropped|drops|keep|kept|keeps|select|selected|choose|chose|include|included|miss|missed|find|found"
    r"|rank|ranked|exclude|excluded|ignore|ignored|cite|cited|pick|picked)\b\s+(.+)$",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"[\"“'‘]([^\"”'’]{2,})[\"”'’]")
_TRAILING = re.compile(r"\b(?:from|in|into|out of)\s+(?:the\s+)?(?:selection|list|results?|documents?|top\s*\d*)\b.*$"
                       r"|[?.!\s]+$", re.IGNORECASE)
# A name a follow-up question gives matches one of the thread's candidate titles from this rapidfuzz ratio on: below
# the corpus lookup's FUZZY_TITLE_CUTOFF (90), as it picks among one thread's candidates, not the whole corpus, for a
# name a person typed; set by hand with the follow-up turns (9ef3663), not tuned.
QUESTION_TITLE_CUTOFF = 85
HOPS_TOLD = 4  # searches an explanation names as where a document came from, then "…"; not tuned (9ef3663)
QUERIES_TOLD = 8  # searches an explanation lists for a document none returned, then "…"; not tuned (9ef3663)


def named_phrase(question: str) -> str | None:
    """The document name a question asks about: a quoted name, or what follows 'drop', 'keep', 'find'…"""
    quoted = _QUOTED.search(question)
    if quoted:
        return quoted.group(1).strip()
    topic = _TOPIC.search(question)
    if topic:
        phrase = _TRAILING.sub("", topic.group(1)).strip()
        phrase = re.sub(r"^(?:the\s+)?(?:document|article|page|passage)\s+(?:on|about|called|titled)?\s*", "",
                        phrase, flags=re.IGNORECASE)
        return phrase or None
    return None


def mentioned_title(question: str, titles: list[str]) -> str | None:
    """The longest known title the question names (whole words, normalised), else a close fuzzy match."""
    text = f" {normalize_title(question)} "
    named = [t for t in titles if normalize_title(t) and f" {normalize_title(t)} " in text]
    if named:
        return max(named, key=lambda t: len(normalize_title(t)))
    phrase = named_phrase(question)
    if not phrase:
        return None
    scored = [(fuzz.ratio(normalize_title(phrase), normalize_title(t)), t) for t in titles]
    best = max(scored, default=(0.0, None))
    return best[1] if best[0] >= QUESTION_TITLE_CUTOFF else None


def _found_by(title: str, hops: list[Hop]) -> list[str]:
    lines = []
    for hop in hops:
        if title in hop["titles"]:
            lines.append(f'{hop["step"]} query "{hop["query"]}" (rank {hop["titles"].index(title) + 1})')
    return lines


def _why_score(doc: SelectedDoc) -> str:
    parts = [f"score {doc['score']:.2f}", f"retrieval {doc['retrieval_score']:.2f} of the best"]
    parts.append("claim entities: " + (", ".join(doc["claim_entities"]) or "none"))
    parts.append("looked up: " + (", ".join(doc["looked_up"]) or "none"))
    if doc.get("chain"):
        parts.append(f'named by the kept "{doc["chain"]["named_by"]}" (chain bonus {doc["chain"]["bonus"]:.2f})')
    return "; ".join(parts)


def explain_document(title: str, state: State, ctx: Context, in_collection: bool, links: LinkTable | None = None
                     ) -> str:
    """A few sentences on one document: where it came from, its score, and why it made the cut or not."""
    hops = state.get("hops", [])
    selected = {d["title"]: d for d in state.get("selected", [])}
    found = _found_by(title, hops)
    told = "; ".join(found[:HOPS_TOLD]) + ("; …" if len(found) > HOPS_TOLD else "")
    source = f"Found by {told}." if found else ""
    if title in selected:
        doc = selected[title]
        cited = [e["ref"] for e in state.get("evidence", []) if e["title"] == title]
        cite = f" It is cited as {', '.join(f'[{n}]' for n in cited)}." if cited else ""
        return f'"{title}" was kept: rank {doc["rank"]} of {len(selected)} ({_why_score(doc)}). {source}{cite}'.strip()
    candidates = candidate_pool(state.get("candidates", {}), state.get("claim_ranking", []), ctx)
    if title in candidates:
        ranked = score_candidates(candidates, state.get("claim_entities", []), state.get("looked_up", []), ctx,
                                  links)
        doc = next(d for d in ranked if d["title"] == title)
        cutoff = ranked[min(len(selected), len(ranked)) - 1] if selected else None
        below = (f', below the last kept document "{cutoff["title"]}" (score {cutoff["score"]:.2f})'
                 if cutoff else "")
        return (f'"{title}" was retrieved but dropped: it ranked {doc["rank"]} of {len(ranked)} candidates '
                f"({_why_score(doc)}){below}. {source}").strip()
    queries = [h["query"] for h in hops]
    if in_collection:
        return (f'"{title}" is in the collection, but none of the {len(queries)} searches returned it, so it was '
                "never a candidate. The searches were: " + "; ".join(f'"{q}"' for q in queries[:QUERIES_TOLD])
                + ("; …" if len(queries) > QUERIES_TOLD else "") + ".")
    return f'No document titled "{title}" is in the collection.'
