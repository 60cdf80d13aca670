"""verifier=qa: each fact asked as a question whose answer decides it (claimhop.verification.alternatives.qa)."""

from __future__ import annotations

import dspy

from claimhop.lm.call_watch import with_timeout
from claimhop.lm.usage import model_step
from claimhop.program.facts import SplitsClaims
from claimhop.program.verify import VerifyResult, nothing_to_go_on
from claimhop.program.verify_facts import verdict_of_facts
from claimhop.signatures import AnswerFromEvidence
from claimhop.verification.alternatives.ensemble import EnsembleRule
from claimhop.verification.alternatives.qa import ask_model, check_claim_qa
from state.context import Context
from state.schema import SelectedDoc


class VerifyQA(SplitsClaims):
    """Each fact as questions answered from the evidence; the answers decide the fact."""

    def __init__(self, settings: Context) -> None:
        super().__init__(settings)
        self.answer_from_evidence = dspy.Predict(AnswerFromEvidence)  # a model other than the local one

    def forward(self, claim: str, selected: list[SelectedDoc], claim_entities: list[str],
                planned_facts: list[str] | None = None, gap_entities: list[str] = (),
                sub_questions: list[str] = ()) -> VerifyResult:
        ctx = self.settings
        empty = nothing_to_go_on(claim, claim_entities, selected)
        if empty is not None:
            return empty
        facts, degraded, split_calls = self.atomic_facts(claim, claim_entities, planned_facts)

        def ask(evidence: list[str], question: str, options: list[str]) -> dict[str, float]:
            with model_step("fact_judgements"):
                return with_timeout(lambda: ask_model(ctx.model, evidence, question, options, self.answer_from_evidence),
                                    ctx.model_timeout_s)

        result = check_claim_qa(facts, selected, ask, EnsembleRule.for_questions(ctx), ctx.tuning.qa_evidence,
                                ctx.tuning.qa_resolve)
        return verdict_of_facts(result, degraded, calls=split_calls + result["calls"])
