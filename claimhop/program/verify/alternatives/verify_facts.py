"""verifier=facts: each fact of the claim judged sentence by sentence with label probabilities
(claimhop.program.verify.alternatives.pipeline); the claim's verdict from its facts'. FactWise is what it shares with
verifier=qa: the claim's facts, checked one by one, the verdict and the evidence numbered from them."""

from __future__ import annotations

import dspy

from claimhop.lm.call_watch import with_timeout
from claimhop.lm.usage import model_step
from claimhop.program.runtime import joined
from claimhop.program.verify.alternatives.ensemble import EnsembleRule
from claimhop.program.verify.alternatives.nli import judge_pair
from claimhop.program.verify.alternatives.pipeline import (
    check_facts,
    closest_evidence,
    deciding_evidence,
)
from claimhop.program.verify.facts import SplitsClaims
from claimhop.program.verify.stage import ToVerify, VerifyResult, nothing_to_go_on
from claimhop.signatures import JudgePair
from state.context import Context
from state.schema import Evidence, SelectedDoc


class FactWise(SplitsClaims):
    """A verifier that checks the claim's facts one by one (`check`) and decides from them."""

    def check(self, facts: list[dict], selected: list[SelectedDoc]) -> tuple[dict, int]:
        """The checked facts (verdict, confidence, reason, facts) and the model calls the checks made."""
        raise NotImplementedError

    def forward(self, case: ToVerify) -> VerifyResult:
        if (empty := nothing_to_go_on(case)) is not None:
            return empty
        facts, degraded, split_calls = self.atomic_facts(case.claim, case.claim_entities, case.planned_facts)
        result, calls = self.check(facts, case.selected)
        return verdict_of_facts(result, degraded, calls=split_calls + calls)


class VerifyFacts(FactWise):
    """Each fact against the selected documents' sentences; the local model's label probabilities, or another
    model's label through DSPy."""

    def __init__(self, settings: Context) -> None:
        super().__init__(settings)
        self.judge_pair = dspy.Predict(JudgePair)  # a model other than the local one

    def check(self, facts: list[dict], selected: list[SelectedDoc]) -> tuple[dict, int]:
        ctx = self.settings

        def judge(title: str, sentence: str, fact: str) -> dict[str, float]:
            with model_step("fact_judgements"):
                return with_timeout(lambda: judge_pair(ctx.model, title, sentence, fact, self.judge_pair),
                                    ctx.model_timeout_s)

        result = check_facts(facts, selected, judge, EnsembleRule.from_settings(ctx), ctx.tuning.fact_evidence,
                             ctx.tuning.fact_context)
        return result, sum(len(r["evidence"]) for r in result["facts"])


def verdict_of_facts(result: dict, degraded: str | None, calls: int) -> VerifyResult:
    """The verdict from checked facts: each fact's deciding (or closest) sentence numbered once as evidence, and
    the model calls made (the split's, if any, among them)."""
    failures = [r for r in result["facts"] if r["error"]]
    if failures:
        degraded = joined(degraded, f"verify: the model could not judge {len(failures)} fact(s): "
                                    f"{failures[0]['error'][:120]}")
    evidence: list[Evidence] = []

    def reference(title: str, sentence: str, score: float) -> int:
        """The sentence's reference number, numbering it when it is new."""
        known = next((e for e in evidence if (e["title"], e["sentence"]) == (title, sentence)), None)
        if known is None:
            known = {"ref": len(evidence) + 1, "title": title, "sentence": sentence, "score": score}
            evidence.append(known)
        return known["ref"]

    for record in result["facts"]:
        for question in record.get("questions", []):  # the QA verifier: every answer quotes its sentence
            question["ref"] = reference(question["title"], question["sentence"], question["probability"]) \
                if question["sentence"] else 0
        decided = deciding_evidence(record) or closest_evidence(record)
        record["ref"] = reference(decided["title"], decided["sentence"], max(decided["probs"].values())) \
            if decided and decided.get("sentence") else 0
    return VerifyResult(result["verdict"], evidence, calls,
                        f"confidence {result['confidence']:.2f}; {len(result['facts'])} facts checked",
                        confidence=result["confidence"], reason=result["reason"], facts=result["facts"],
                        degraded=degraded)
