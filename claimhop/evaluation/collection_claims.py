"""Labelled claims made from a user's own collection, with no label from anyone: what `claimhop train-verifier
--corpus FOLDER` trains that collection's head on, the way MiniCheck teaches a small checker a new domain with
synthetic claims made from documents.

From each sampled document, one sentence that states a finding (it points a direction, or holds a number) becomes
a claim, its lead-in ("In conclusion, we found that") dropped. Three items come from it, read on the source and
the passages search finds beside it (as a check would read them):
- `stated` (SUPPORTED): the claim with its source among what is read;
- CONTRADICTED, with the same passages: the claim `turned` the other way (claimhop.verification.direction:
  "better" -> "worse", "increased" -> "decreased"), else `negated` ("is associated" -> "is not associated"), else
  `renumbered` (its first number changed): false by direction, by negation or by value, as scientific claims are;
- `removed` (INSUFFICIENT_INFO): the stated claim with its source left out, the next passage search finds in its
  place.
So the same words appear with all three labels and only what is read decides. Rule-made, with no model call: the
claims are the collection's own sentences, which a user's claims paraphrase; the head learns the direction and
the evidence, not the wording (the limit is said in docs/verification.md)."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from claimhop.sentences import split_sentences
from claimhop.verification.direction import directions, turned

MIN_WORDS, MAX_WORDS = 8, 45  # a finding: longer than a heading, shorter than a run-on list
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


def collection_claims(titles: list[str], texts: list[str], neighbours: Callable[[str, str], list[str]],
                      count: int, seed: int = 0) -> list[dict]:
    """Items for about `count` source documents (seeded): each {id, group, claim, titles, label, kind, variant,
    source}; `neighbours(claim, source_title)` gives the titles search finds for the claim, the source left out,
    best first."""
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
