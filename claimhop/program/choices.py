"""One table per stage with alternatives: which module a setting picks. The default is the first row."""

from __future__ import annotations

from claimhop.program.bridge.alternatives.lm_pick import BridgeWithModelPick
from claimhop.program.bridge.stage import Bridge
from claimhop.program.plan.alternatives.one_call import PlanOneCall
from claimhop.program.plan.alternatives.two_calls import EarlyGap, PlanTwoCalls
from claimhop.program.plan.stage import Plan, PlannedGap
from claimhop.program.verify.alternatives.verify_facts import VerifyFacts
from claimhop.program.verify.alternatives.verify_qa import VerifyQA
from claimhop.program.verify.alternatives.verify_single import VerifySingle
from claimhop.program.verify.stage import Verify

PLANNERS = {"facts": Plan, "one_call": PlanOneCall, "two_calls": PlanTwoCalls}  # setting `planner`
EARLY_GAPS = {"facts": PlannedGap, "one_call": PlannedGap, "two_calls": EarlyGap}  # the planner's early gap
BRIDGES = {"ranking": Bridge, "lm": BridgeWithModelPick}  # setting `bridge_pick`
VERIFIERS = {"passages": Verify, "facts": VerifyFacts, "qa": VerifyQA, "single": VerifySingle}  # setting `verifier`
