"""Which way a statement points: "X is associated with better sleep" and "X correlated with poor sleep" name
the same thing and point opposite ways. Scientific and health claims are false by direction
(more/less, better/worse, increases/reduces, associated/not associated) far more often than by a swapped name, so
one small table of opposites serves three places: a quote shown as stating a fact must not point the other way
(claimhop.program.verify.quotes), and a collection's synthetic contradicted claims are made by turning a stated
claim round (claimhop.evaluation.collection_claims).

A word table, not a model: it is exact about what it knows and silent about the rest, which is what a guard on
quotes needs. Each axis is a pair of word sets; a text points up an axis when it holds an up word and no down
word outside a negation, and the reverse."""

from __future__ import annotations

import re

# Each axis: pairs of (up word, down word) in the same inflection, so `turned` keeps the grammar ("increased" ->
# "decreased"); `directions` reads every word of either side. Listed, not stemmed: a stemmer would merge "lower"
# (the verb) with "low" and "poorly" with "poor".
AXES: tuple[tuple[tuple[str, str], ...], ...] = (
    (("increases", "decreases"), ("increase", "decrease"), ("increased", "decreased"), ("increasing", "decreasing"),
     ("raises", "reduces"), ("raise", "reduce"), ("raised", "reduced"), ("elevated", "lowered"), ("rises", "falls"),
     ("rise", "fall"), ("rose", "fell")),
    (("higher", "lower"), ("greater", "smaller"), ("more", "less"), ("larger", "smaller"), ("highest", "lowest")),
    (("better", "worse"), ("improved", "worsened"), ("improves", "worsens"), ("improve", "worsen"),
     ("favorable", "unfavorable"), ("favourable", "unfavourable"), ("good", "poor"), ("best", "worst")),
    (("positive", "negative"), ("positively", "negatively")),
    (("upregulates", "downregulates"), ("upregulated", "downregulated"), ("upregulation", "downregulation"),
     ("activates", "inhibits"), ("activated", "inhibited"), ("activation", "inhibition"), ("promotes", "suppresses"),
     ("promoted", "suppressed"), ("enhances", "blocks"), ("enhanced", "blocked"), ("induces", "prevents"),
     ("induced", "prevented")),
    (("beneficial", "harmful"), ("protective", "detrimental"), ("safe", "unsafe"), ("effective", "ineffective")),
)
NEGATIONS = frozenset("not no never neither nor without cannot n't fails failed lack lacks".split())
# a negation reverses the first direction word within this many words after it ("did not significantly increase");
# not tuned: three words hold an auxiliary and an adverb
NEGATION_REACH = 3
OPPOSITES = {a: b for pairs in AXES for pair in pairs for a, b in (pair, pair[::-1])}
_WORD = re.compile(r"[a-z]+(?:n't)?")


def tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("’", "'"))


def directions(text: str) -> dict[int, int]:
    """Axis -> +1 or -1 for each axis the text points along unambiguously (both ways: left out). A negation
    reverses only the first direction word after it ("did not reduce mortality": reduce is reversed, not
    mortality)."""
    seen: dict[int, set[int]] = {}
    negated_until = -1  # a negation reaches the first direction word within NEGATION_REACH words after it
    for i, word in enumerate(tokens(text)):
        if word in NEGATIONS:
            negated_until = i + NEGATION_REACH
            continue
        for axis, pairs in enumerate(AXES):
            sign = 1 if any(word == up for up, _ in pairs) else -1 if any(word == down for _, down in pairs) else 0
            if not sign:
                continue
            if i <= negated_until:
                sign, negated_until = -sign, -1
            seen.setdefault(axis, set()).add(sign)
    return {axis: next(iter(signs)) for axis, signs in seen.items() if len(signs) == 1}


def opposite(fact: str, sentence: str) -> bool:
    """Whether the sentence points the other way from the fact on more of the axes both use than it agrees on."""
    ours, theirs = directions(fact), directions(sentence)
    differ = sum(ours[a] != theirs[a] for a in set(ours) & set(theirs))
    return differ > 0 and 2 * differ > len(set(ours) & set(theirs))


def turned(claim: str) -> str | None:
    """The claim pointing the other way: its first direction word (not under a negation) replaced by its
    opposite in the same inflection, keeping its capitalisation; None when the claim has no direction word to turn."""
    for match in _WORD.finditer(claim):
        word = match.group(0).lower()
        other = OPPOSITES.get(word)
        if other is not None:
            before = tokens(claim[: match.start()])[-NEGATION_REACH:]
            if any(w in NEGATIONS for w in before):
                return None
            new = other
            if match.group(0)[:1].isupper():
                new = new.capitalize()
            return claim[: match.start()] + new + claim[match.end():]
    return None
