"""Stage 6, the verdict (node `verify`), by default (verifier=passages): the model reads the claim with the best
passages of the selected documents whole, in one pass (reading.py); a learned head turns what it read into the
verdict (head.py); each fact of the claim (facts.py) is quoted from the passages read (quotes.py). A claim that no
selected document names gets INSUFFICIENT_INFO with no model call (coverage.py). A served model (`--model NAME`)
gives no state: it says SUPPORTED, CONTRADICTED or INSUFFICIENT_INFO itself on the same passages (served.py). The
head is loaded once, when the stage is built, and says how the passages are read (a head is trained for one reading). The other verifiers (facts,
qa, single) are in alternatives/, chosen in claimhop.program.choices. Measurements (`claimhop eval-verify`,
benchmarks) run this same module, with a reader of saved states and a held-out claim's fold head."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import dspy
import numpy as np

from claimhop.entities.matching import names_no_title
from claimhop.lm.provider import LOCAL, local_engine
from claimhop.program.runtime import call_lm, calls_made, joined
from claimhop.program.verify.coverage import (
    claim_names,
    nothing_about,
    unmentioned_names,
    without_opening_word,
)
from claimhop.program.verify.facts import SplitsClaims
from claimhop.program.verify.head import VerdictHead, decide, head_file, load_head
from claimhop.program.verify.quotes import quotes_for
from claimhop.program.verify.reading import (
    ReadingRule,
    hidden_state,
    passage_messages,
    passages_read,
    three_way_messages,
)
from claimhop.program.verify.served import ServedVerdict, decide_three
from claimhop.signatures import OppositeClaim
from state.context import Context
from state.schema import Evidence, SelectedDoc

OPPOSITE_CONFIDENCE = 0.6  # a sentence read says the opposite of the claim: the least a CONTRADICTED verdict says
NOTHING_CONFIDENCE = 0.95  # a claim whose names no selected document mentions: not settled, and sure of it
FAILED = {"supported": 0.0, "contradicted_if_not": 0.0, "yes": 0.0, "failed": 1.0}
# What reads the model's state for a prompt (chat messages) as a reading rule says: the local model by default; a
# measurement passes one that reuses saved states (claimhop.evaluation.verifier_features.saved_state_reader).
StateReader = Callable[[list[dict], ReadingRule], np.ndarray]


def local_state(messages: list[dict], rule: ReadingRule) -> np.ndarray:
    """The local model's state for the prompt, after the rule's blocks."""
    return hidden_state(local_engine(), messages, rule.blocks)


class NoContradictionPart(ValueError):
    """contradiction_check=three-ways asked of a head trained without a contradiction part."""


@dataclass
class VerifyResult:
    """A verifier's verdict: its confidence and reason (None from verifier=single), the facts judged (None when
    the verifier gives none), the numbered evidence the answer cites, the calls made, why a step fell back, and
    for the passage verifier the passages read, the probabilities and each fact's quotes. `summary` is the
    progress line's detail ("confidence 0.81; read 5 passages")."""

    verdict: str
    evidence: list[Evidence]
    calls: int
    summary: str
    confidence: float | None = None
    reason: str | None = None
    facts: list[dict] | None = None
    degraded: str | None = None
    read: list[str] | None = None
    probabilities: dict[str, float] | None = None
    quotes: list[list[dict]] | None = field(default=None, repr=False)


@dataclass
class ToVerify:
    """What a verifier judges: the claim, the selected documents, the claim's names, the plan's facts (None when
    the plan gave none) and, for the single call's evidence, the names looked up and the sub-questions."""

    claim: str
    selected: list[SelectedDoc]
    claim_entities: list[str] = field(default_factory=list)
    planned_facts: list[str] | None = None
    looked_up: list[str] = field(default_factory=list)
    sub_questions: list[str] = field(default_factory=list)
    uid: str | None = None


def nothing_to_go_on(case: ToVerify) -> VerifyResult | None:
    """INSUFFICIENT_INFO, said plainly, with no model call and no quote, when no selected document mentions any
    name of the claim (there is nothing to quote); None when there is something to go on, or when the claim's only
    "names" are its opening words, capitalised because a sentence starts there (nothing to test)."""
    names = unmentioned_names(claim_names(case.claim, case.claim_entities), case.selected)
    if not names or not without_opening_word(case.claim, names):  # only its opening word ("Preventing ..."): no test
        return None
    reason = nothing_about(names)
    return VerifyResult("INSUFFICIENT_INFO", [], 0, reason, confidence=NOTHING_CONFIDENCE, reason=reason, facts=[])


class Verify(SplitsClaims):
    """verifier=passages: one pass over the claim and the passages read; the head decides."""

    def __init__(self, settings: Context, read_state: StateReader = local_state, head: VerdictHead | None = None
                 ) -> None:
        super().__init__(settings)
        self.served = ServedVerdict()  # a served model (no state to read) says one of the three labels itself
        self.write_opposite = dspy.Predict(OppositeClaim)
        # the run's head (the collection's own, if trained); a measurement comparing heads passes one
        self.head = head or load_head(head_file(settings.corpus_path, settings.index_dir))
        self.read_state = read_state
        if settings.tuning.contradiction_check == "three-ways" and self.head.contradiction is None:
            raise NoContradictionPart(
                "contradiction_check=three-ways: the verifier's head has no contradiction part "
                f"({head_file(settings.corpus_path, settings.index_dir)}); train one with `python -m "
                "benchmarks.pair_heads --three-ways FOLDER --heads DIR` or use contradiction_check=opposite")

    @property
    def reading(self) -> ReadingRule:
        """How this stage reads: as its head was trained to (its provenance names the rule, layer and budget)."""
        return self.head.reading

    def forward(self, case: ToVerify) -> VerifyResult:
        ctx, claim = self.settings, case.claim
        if (empty := nothing_to_go_on(case)) is not None:
            return empty
        facts, degraded, split_calls = self.atomic_facts(claim, case.claim_entities, case.planned_facts)
        passages = passages_read(case.selected, claim, self.reading)
        probs, failed = call_lm(ctx, "verify", lambda: self.probabilities(claim, passages, case.uid),
                                lambda: dict(FAILED), direct=True)
        degraded = joined(degraded, failed)
        extra = 0
        if not failed and probs["supported"] < self.head.threshold and self.checks_opposite(case):
            second_look = (self.three_way_kind if self.settings.tuning.contradiction_check == "three-ways"
                           else self.opposite_support)
            looked, extra, failed = second_look(claim, passages, probs["supported"], case.uid)
            probs = {**probs, **looked}
            degraded = joined(degraded, failed)
        quotes = quotes_for([f["text"] for f in facts], passages)
        verdict, confidence, probs = judged(probs, quotes, self.head.threshold)
        evidence, records = quoted_facts(facts, quotes, verdict, confidence)
        return VerifyResult(verdict, evidence, split_calls + calls_made(ctx, "verify") + extra,
                            f"confidence {confidence:.2f}; read {len(passages)} passages", confidence=confidence,
                            reason=reason_of(verdict, probs, len(passages)), facts=records, degraded=degraded,
                            read=[p["title"] for p in passages], probabilities=probs, quotes=quotes)

    def checks_opposite(self, case: ToVerify) -> bool:
        """Whether a claim the passages do not support is read again as its opposite (setting opposite_check): the
        local model only (a served one gives no state), for claims that name no document by default."""
        mode = self.settings.opposite_check
        if mode == "never" or (self.settings.model or LOCAL) != LOCAL:
            return False
        # any word of the claim naming a title counts here (named_words="any", not selection's setting): opposite_check
        # =unnamed was chosen on real claims with that test (docs/evaluation.md), and selection's change was not
        return mode == "always" or names_no_title([d["title"] for d in case.selected], case.claim_entities, case.claim)

    def opposite_support(self, claim: str, passages: list[dict], claim_support: float,
                         uid: str | None = None) -> tuple[dict[str, float], int, str | None]:
        """P(supported) of the claim's opposite on the same passages ({"opposite": P}, empty when it could not be
        read), the model calls made and why it fell back. The model writes the opposite ("Vitamin D increases
        COVID-19 mortality" -> "... decreases ..."); the head reads it as it read the claim. The head's kind was
        learned from Wikipedia claims with a name swapped: on 45 HealthVer claims it tells contradicted from the
        rest worse than chance (AUC 0.44), the opposite's lead over the claim at 0.75; on 194 real claims the rule
        was not chosen on it gained 31 verdicts and lost 8 (docs/evaluation.md)."""
        ctx = self.settings
        written, failed = call_lm(ctx, "verify", lambda: str(self.write_opposite(claim=claim).opposite).strip(),
                                  str, usable=bool)
        if failed:
            return {}, calls_made(ctx, "verify"), failed
        if written == claim:  # the model could not turn it: the same prompt, the same state, not better supported
            return {"opposite": claim_support}, calls_made(ctx, "verify"), None
        p, failed = call_lm(ctx, "verify", lambda: self.head.probabilities(
            self.read_state(passage_messages(written, passages), self.reading), uid)["supported"],
            lambda: None, direct=True)
        calls = 2 * calls_made(ctx, "verify")
        return ({} if p is None else {"opposite": p}), calls, failed

    def three_way_kind(self, claim: str, passages: list[dict], claim_support: float,
                       uid: str | None = None) -> tuple[dict[str, float], int, str | None]:
        """P(contradicted | not supported) from the same passages read with the three-way question
        ({"three_ways": P}, empty when it could not be read), the calls made and why it fell back: one pass
        instead of the opposite's two calls."""
        ctx, head = self.settings, self.head.contradiction
        p, failed = call_lm(ctx, "verify", lambda: head.probability(
            self.read_state(three_way_messages(claim, passages), self.reading)), lambda: None, direct=True)
        return ({} if p is None else {"three_ways": p}), calls_made(ctx, "verify"), failed

    def probabilities(self, claim: str, passages: list[dict], uid: str | None = None) -> dict[str, float]:
        """The local model: one pass, the head reads its state: P(supported), P(contradicted | not supported) and
        the model's own P(yes). Another model: P(supported), P(contradicted) and P(insufficient) as it says them
        itself on the same passages (claimhop.program.verify.served)."""
        if (self.settings.model or LOCAL) == LOCAL:
            return self.head.probabilities(self.read_state(passage_messages(claim, passages), self.reading), uid)
        return self.served(self.settings.model, claim, passages)


def judged(probs: dict[str, float], quotes: list[list[dict]], threshold: float
           ) -> tuple[str, float, dict[str, float]]:
    """The verdict, its confidence and the probabilities behind it: the head's (claimhop.program.verify.head.decide)
    or a served model's most probable label (claimhop.program.verify.served.decide_three), INSUFFICIENT_INFO when the
    model could not read, CONTRADICTED when a quote says the opposite of its fact."""
    if probs.get("failed"):
        return "INSUFFICIENT_INFO", 0.0, probs
    if "contradicted" in probs:  # a served model's own three labels
        verdict, confidence = decide_three(probs)
    else:
        verdict, confidence = decide(probs["supported"], probs["contradicted_if_not"], threshold)
    if verdict != "SUPPORTED" and "opposite" in probs:  # the claim's opposite read on the same passages
        verdict = "CONTRADICTED" if probs["opposite"] > probs["supported"] else "INSUFFICIENT_INFO"
    if verdict != "SUPPORTED" and "three_ways" in probs:  # the same passages read with the three-way question
        verdict = "CONTRADICTED" if probs["three_ways"] >= 0.5 else "INSUFFICIENT_INFO"
    if verdict != "CONTRADICTED" and said_opposite(quotes):
        return "CONTRADICTED", round(max(1.0 - probs["supported"], OPPOSITE_CONFIDENCE), 4), {
            **probs, "opposite_quote": 1.0}
    return verdict, confidence, probs


def said_opposite(quotes: list[list[dict]]) -> bool:
    """Whether a passage read says the opposite of a fact: a quote with enough of the fact's words that points
    the other way (claimhop.program.verify.direction). Then the claim is CONTRADICTED whatever the head says: a
    head trained on names swapped in Wikipedia claims misses "poor sleep" against "better sleep"."""
    return any(quote["opposite"] for fact_quotes in quotes for quote in fact_quotes)


def quoted_facts(facts: list[dict], quotes: list[list[dict]], verdict: str, confidence: float
                 ) -> tuple[list[Evidence], list[dict]]:
    """Each fact's quotes numbered once as evidence, and the fact records the answer writes its lines from (the
    claim was judged as a whole, so every fact carries its verdict)."""
    evidence: list[Evidence] = []
    records = []
    for fact, fact_quotes in zip(facts, quotes):
        refs = []
        for quote in fact_quotes:
            known = next((e for e in evidence if (e["title"], e["sentence"]) == (quote["title"], quote["sentence"])), None)
            if known is None:
                known = {"ref": len(evidence) + 1, "title": quote["title"], "sentence": quote["sentence"],
                         "score": quote["score"]}
                evidence.append(known)
            refs.append(known["ref"])
        records.append({"fact": fact["text"], "entities": fact["entities"], "evidence": [], "alignment": 0.0,
                        "verdict": verdict, "confidence": confidence, "error": None, "ref": refs[0] if refs else 0,
                        "refs": refs, "read": True,
                        "stating_refs": [r for r, q in zip(refs, fact_quotes) if q.get("states")],
                        "opposite_refs": [r for r, q in zip(refs, fact_quotes) if q.get("opposite")]})
    return evidence, records


def reason_of(verdict: str, probs: dict[str, float], read: int) -> str:
    """Why, in the words the answer uses."""
    if probs.get("failed"):
        return "the model could not read the passages"
    if verdict == "SUPPORTED":
        return f"read together, the {read} best passages support every part of the claim"
    if verdict == "CONTRADICTED" and probs.get("opposite_quote"):
        return f"a sentence of the {read} passages read says the opposite of the claim"
    if verdict == "CONTRADICTED" and "opposite" in probs:
        return f"read together, the {read} best passages support the claim's opposite better than the claim"
    if verdict == "CONTRADICTED" and "three_ways" in probs:
        return f"read together, the {read} best passages say something that makes the claim false"
    if verdict == "CONTRADICTED":
        return f"read together, the {read} best passages say something else than the claim"
    if "opposite" in probs:
        return f"read together, the {read} best passages support neither the claim nor its opposite"
    if "three_ways" in probs:
        return f"read together, the {read} best passages neither support the claim nor make it false"
    return f"read together, the {read} best passages do not settle the claim"
