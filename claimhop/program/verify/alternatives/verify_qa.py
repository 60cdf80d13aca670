"""verifier=qa: each fact asked as a question whose answer decides it (claimhop.program.verify.alternatives.qa)."""

from __future__ import annotations

import dspy

from claimhop.lm.call_watch import with_timeout
from claimhop.lm.usage import model_step
from claimhop.program.verify.alternatives.ensemble import EnsembleRule
from claimhop.program.verify.alternatives.qa import ask_model, check_claim_qa
from claimhop.program.verify.alternatives.verify_facts import FactWise
from claimhop.signatures import AnswerFromEvidence
from state.context import Context
from state.schema import SelectedDoc


class VerifyQA(FactWise):
    """Each fact as questions answered from the evidence; the answers decide the fact."""

    def __init__(self, settings: Context) -> None:
        super().__init__(settings)
        self.answer_from_evidence = dspy.Predict(AnswerFromEvidence)  # a model other than the local one

    def check(self, facts: list[dict], selected: list[SelectedDoc]) -> tuple[dict, int]:
        ctx = self.settings

        def ask(evidence: list[str], question: str, options: list[str]) -> dict[str, float]:
            with model_step("fact_judgements"):
                return with_timeout(lambda: ask_model(ctx.model, evidence, question, options, self.answer_from_evidence),
                                    ctx.model_timeout_s)

        result = check_claim_qa(facts, selected, ask, EnsembleRule.for_questions(ctx), ctx.tuning.qa_evidence,
                                ctx.tuning.qa_resolve)
        return result, result["calls"]
