"""Labelled claims made from a user's own collection, with no label from anyone: what `claimhop train-verifier
--corpus FOLDER` trains that collection's head on, the way MiniCheck teaches a small checker a new domain with
synthetic claims made from documents.

From each sampled document, one sentence that states a finding (it points a direction, or holds a number) becomes
a claim, its lead-in ("In conclusion, we found that") dropped. Three items come from it, read on the source and
the passages search finds beside it (as a check would read them):
- `stated` (SUPPORTED): the claim with its source among what is read;
- CONTRADICTED, with the same passages: the claim `turned` the other way (claimhop.program.verify.direction:
  "better" -> "worse", "increased" -> "decreased"), else `negated` ("is associated" -> "is not associated"), else
  `renumbered` (its first number changed): false by direction, by negation or by value, as scientific claims are;
- `removed` (INSUFFICIENT_INFO): the stated claim with its source left out, the next passage search finds in its
  place.
So the same words appear with all three labels and only what is read decides. With `restate` (MiniCheck's first
step: the model writes the claim), the finding is first restated in plain words by the local model ("Vitamin D
deficiency that is not sufficiently treated is associated with COVID-19 risk." -> "Vitamin D deficiency increases
risk of severe COVID-19."), and the three items are made from the restatement: a user's claims paraphrase, they do
not quote, and a head trained on the collection's verbatim sentences called most real claims not settled (issue
55: on HealthVer claims held out of the sample, per-document reading, 3-class macro-F1 26.9-31.3 verbatim, 37.6-43.9
restated)."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from claimhop.program.verify.direction import directions, turned
from claimhop.sentences import split_sentences

MIN_WORDS, MAX_WORDS = 8, 45  # a finding: longer than a heading, shorter than a run-on list
RESTATED_MIN_WORDS = 4  # a restatement shorter than this is a fragment, not a claim
SHOWN = 6  # passages given with a claim: its source and five search finds beside it (a check reads about as many)
LEAD_IN = re.compile(
    r"^(?:(?:in )?(?:conclusions?|summary|results?|findings?|interpretation)\s*[:,.]\s*|"
    r"(?:in conclusion|overall|taken together|together|collectively|importantly|moreover|furthermore|however|thus|"
    r"therefore|here|finally)\s*,?\s*|"
    r"(?:we|these (?:results|data|findings)|our (?:results|data|findings)|this (?:study|analysis|review)|"
    r"the (?:results|data|findings))\s+(?:also\s+)?(?:show|showed|shows|suggest|suggests|suggested|found|find|"
    r"demonstrate|demonstrates|demonstrated|indicate|indicates|indicated|reveal|revealed|report|reported|"
    r"confirm|confirmed|conclude|concluded)\s+(?:that\s+)?)+",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\d")
_AUXILIARY = re.compile(r"\b(is|are|was|were|can|could|may|might|should|will|would|has|have|had|does|do|did)\b(?! not\b)",
                        re.IGNORECASE)
_VALUE = re.compile(r"(?<![\w-])\d+(?:[.,]\d+)?(?![\w-])")  # a value, not a name's digits ("COVID-19")


def negated(claim: str) -> str | None:
    """The claim with "not" after its first auxiliary verb ("is associated" -> "is not associated"); None when
    it has none or is negated already."""
    if re.search(r"\b(not|no|never)\b", claim, re.IGNORECASE):
        return None
    match = _AUXILIARY.search(claim)
    return None if match is None else f"{claim[: match.end()]} not{claim[match.end():]}"


def renumbered(claim: str) -> str | None:
    """The claim with its first number changed (tripled, or 2 for a 0), so the value no longer holds; None
    without a number."""
    match = _VALUE.search(claim)
    if match is None:
        return None
    value = float(match.group(0).replace(",", ""))
    new = value * 3 if value else 2
    text = f"{new:g}" if "." in match.group(0) else str(int(new))
    return claim[: match.start()] + text + claim[match.end():]


def contradicting(claim: str) -> tuple[str, str] | None:
    """(the claim made false, how): turned round, else negated, else renumbered; None when none applies."""
    for variant, make in (("turned", turned), ("negated", negated), ("renumbered", renumbered)):
        if (made := make(claim)) is not None and made != claim:
            return made, variant
    return None


def finding(sentence: str) -> str | None:
    """The sentence as a claim standing alone (lead-in dropped, first letter capital, one final period), or None
    when it states no finding: too short or long, a question, or neither a direction nor a number."""
    text = LEAD_IN.sub("", " ".join(sentence.split())).strip()
    words = text.split()
    if not MIN_WORDS <= len(words) <= MAX_WORDS or text.endswith("?") or not text[:1].isalpha():
        return None
    if not directions(text) and not _NUMBER.search(text):
        return None
    return text[0].upper() + text[1:].rstrip(" .;:") + "."


def claims_of(text: str) -> list[str]:
    """Every finding of a document, those that point a direction first (they can be turned round)."""
    found = [c for c in (finding(s) for s in split_sentences(text)) if c]
    return sorted(found, key=lambda c: turned(c) is None)


def restated(restate: Callable[[str], str], finding_text: str) -> str | None:
    """The model's restatement as one claim (a final period, spaces folded), or None when it wrote no sentence of
    a claim's length or a question."""
    text = " ".join(str(restate(finding_text) or "").split()).strip().strip('"')
    if len(text.split()) < RESTATED_MIN_WORDS or text.endswith("?"):
        return None
    return text.rstrip(" .;:") + "."


def collection_claims(titles: list[str], texts: list[str], neighbours: Callable[[str, str], list[str]],
                      count: int, seed: int = 0, restate: Callable[[str], str] | None = None) -> list[dict]:
    """Items for about `count` source documents (seeded): each {id, group, claim, titles, label, kind, variant,
    source}; `neighbours(claim, source_title)` gives the titles search finds for the claim, the source left out,
    best first; `restate(finding)`, when given, writes the finding in other words (the claims are made from that)."""
    rng = random.Random(seed)
    order = list(range(len(titles)))
    rng.shuffle(order)
    items: list[dict] = []
    sources = 0
    for i in order:
        if sources >= count:
            break
        claims = claims_of(texts[i])
        if not claims:
            continue
        claim = claims[0] if turned(claims[0]) else rng.choice(claims)
        if restate is not None and not (claim := restated(restate, claim)):
            continue
        others = neighbours(claim, titles[i])
        if len(others) < SHOWN:
            continue
        shown = others[: SHOWN - 1]
        shown.insert(rng.randrange(SHOWN), titles[i])  # the source anywhere among what is read, as search ranks it
        base = {"group": titles[i], "source_title": titles[i], "source": "collection"}
        items.append({**base, "id": f"{i}-stated", "claim": claim, "titles": shown, "label": "SUPPORTED",
                      "kind": "SUPPORTED", "variant": "stated"})
        if (false := contradicting(claim)) is not None:
            items.append({**base, "id": f"{i}-{false[1]}", "claim": false[0], "titles": shown,
                          "label": "NOT_SUPPORTED", "kind": "CONTRADICTED", "variant": false[1]})
        items.append({**base, "id": f"{i}-removed", "claim": claim, "titles": others[:SHOWN],
                      "label": "NOT_SUPPORTED", "kind": "INSUFFICIENT_INFO", "variant": "removed"})
        sources += 1
    return items
