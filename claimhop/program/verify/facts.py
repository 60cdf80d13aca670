"""The claim's atomic facts, which every verifier that works fact by fact, and the default's quotes, start from:
the plan's facts when it gave them (no call), else the verifier's own split of the claim; fragments joined, names
found in each fact's text."""

from __future__ import annotations

import dspy

from claimhop.entities.matching import mentions
from claimhop.entities.ner import extract_entities, unique
from claimhop.program.outputs import clean_list
from claimhop.program.runtime import call_lm, calls_made
from claimhop.program.verify.coverage import claim_names, folded, mentioned
from claimhop.retrieval.titles import normalize_title
from claimhop.sentences import stems
from claimhop.signatures import MAX_REPLY_ITEMS, SplitClaim, SplitClaimWithNames
from state.context import Context

# a fact's names found in its text (the claim's names it mentions, then NER's), at most: more than a 4-hop claim's
# chain holds; the cap every list of names had since ff51bcf (found ones since 1810309), not tuned
MAX_FACT_NAMES = 8


class PlanSplit:
    """The plan's own predictor as the claim's splitter (planner=facts): a verifier whose plan fell back splits the
    claim with what the graph optimised. A plain holder, so the program lists that predictor once, under `plan`."""

    def __init__(self, predictor: dspy.Predict) -> None:
        self.predictor = predictor

    def __call__(self, claim: str) -> list:
        return self.predictor(claim=claim).facts


class SplitsClaims(dspy.Module):
    """A verifier that judges a claim's facts: its split of the claim into facts when the plan gave none."""

    gives_facts = True  # its verdict comes with the claim's facts, which the answer is written from (no model call)

    def __init__(self, settings: Context) -> None:
        super().__init__()
        self.settings = settings
        self.split = dspy.Predict(SplitClaim)
        self.split_with_names = dspy.Predict(SplitClaimWithNames)  # fact_names=asked
        self.plan_split: PlanSplit | None = None  # set by the program under planner=facts

    def split_claim(self, claim: str) -> list:
        """The claim's facts from the model: the plan's predictor (planner=facts), else SplitClaim with or without
        the model naming each fact's names."""
        if self.settings.tuning.fact_names == "asked":
            return self.split_with_names(claim=claim).facts
        if self.plan_split is not None:
            return self.plan_split(claim)
        return self.split(claim=claim).facts

    def atomic_facts(self, claim: str, claim_entities: list[str], planned: list[str] | None
                     ) -> tuple[list[dict], str | None, int]:
        """The claim's facts (the plan's, else the split's; the whole claim as one fact when the model gives none),
        why the split fell back, and the model calls made (0 for the plan's)."""
        ctx = self.settings
        if planned and ctx.tuning.fact_names != "asked":
            return facts_from_split(planned, claim, claim_entities, ctx.tuning.fact_repair), None, 0

        def usable(facts) -> bool:
            return any(str(getattr(f, "text", f)).strip() for f in facts or [])

        result, degraded = call_lm(ctx, "verify", lambda: self.split_claim(claim), list, usable=usable,
                                   cost_step="claim_split")
        facts = facts_from_split(result, claim, claim_entities, ctx.tuning.fact_repair)
        return facts, degraded, calls_made(ctx, "verify", "claim_split")


def facts_from_split(split, claim: str, claim_entities: list[str], repair: str = "off") -> list[dict]:
    """A split as the facts a check judges (at most MAX_REPLY_ITEMS, fragments joined); the whole claim when
    empty. Each fact's names are found in its text (the claim's names it mentions, then NER), not asked of the
    model: fewer tokens to generate, and no invented names. With `repair="claim"`, a split that lost a name of the
    claim gets the whole claim as one more fact. One place, so the eval measures what the graph checks."""
    facts = [{"text": " ".join(str(getattr(f, "text", f)).split()),
              "entities": clean_list(getattr(f, "entities", []), MAX_REPLY_ITEMS)} for f in split or []]
    facts = whole_facts([f for f in facts if f["text"] and part_of(f["text"], claim)][:MAX_REPLY_ITEMS]) or [
        {"text": claim, "entities": []}]
    if repair == "claim" and lost_names(claim, claim_entities, [f["text"] for f in facts]):
        facts.append({"text": claim, "entities": []})
    unnamed = [f for f in facts if not f["entities"]]  # fact_names=found, or the model gave none
    for fact, found in zip(unnamed, extract_entities([f["text"] for f in unnamed], with_spans=True)):
        named = [e for e in claim_entities if mentions(e, normalize_title(fact["text"]))]
        fact["entities"] = clean_list(unique([*named, *found]), MAX_FACT_NAMES)
    return facts


NEW_WORDS_SHARE = 0.5  # a fact more than half of whose words the claim never uses is a new claim, not a part


def part_of(fact: str, claim: str) -> bool:
    """Whether a fact is a part of the claim: at most half of its content words are absent from the claim. A
    small plan sometimes adds what it knows ("X is a plant extract." for "X intake is associated with better
    sleep."): quoted as if the claim said it, such a fact misleads."""
    words = stems(fact)
    return not words or len(words - stems(claim)) <= NEW_WORDS_SHARE * len(words)


def lost_names(claim: str, claim_entities: list[str], facts: list[str]) -> list[str]:
    """The claim's names (without nationalities) that no fact mentions (fuzzy, accents folded): a part of the
    claim the split dropped. Measured on the recorded splits of the 169 dev claims at 3750aa0: 42 lose one."""
    text = folded(" ".join(facts))
    return [name for name in claim_names(claim, claim_entities) if not mentioned(name, text)]


# a fact of fewer words is a fragment ("in 1970"), joined to the one before; set by eye on the real model's splits
# (b000966), not tuned
FRAGMENT_WORDS = 3


def whole_facts(facts: list[dict]) -> list[dict]:
    """A small model sometimes splits a claim into fragments ("in 1970", "held in Argentina"); a fragment (it
    starts in lower case or has fewer than FRAGMENT_WORDS words) is joined to the fact before it, so each fact
    stands alone."""
    merged: list[dict] = []
    for fact in facts:
        text = fact["text"]
        if merged and (text[:1].islower() or len(text.split()) < FRAGMENT_WORDS):
            last = merged[-1]
            last["text"] = f"{last['text'].rstrip('. ')} {text}"
            last["entities"] = list(dict.fromkeys([*last["entities"], *fact["entities"]]))
        else:
            merged.append({**fact})
    return merged
