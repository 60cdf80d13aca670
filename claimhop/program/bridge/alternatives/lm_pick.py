"""bridge_pick=lm: the model picks the entities that link the claim's parts from the names the entity ranking
found; its picks are interleaved with the ranking's best (claimhop.program.bridge.stage.choose), so a small model's
judgement hedges the ranking instead of replacing it."""

from __future__ import annotations

import dspy

from claimhop.program.bridge.stage import Bridge
from claimhop.program.outputs import clean_list
from claimhop.program.runtime import call_lm, calls_made
from claimhop.signatures import MAX_REPLY_ITEMS, PickBridgingEntities


class BridgeWithModelPick(Bridge):
    """The bridge, with the model's pick among the names shown."""

    def __init__(self, settings, built) -> None:
        super().__init__(settings, built)
        self.predict = dspy.Predict(PickBridgingEntities)

    def pick(self, claim: str, sub_questions: list[str], shown: list[str]) -> tuple[list[str], str | None, int]:
        ctx = self.settings
        if not shown or ctx.max_bridge_entities <= 0:
            return [], None, 0
        picked, degraded = call_lm(
            ctx, "bridge",
            lambda: clean_list(self.predict(claim=claim, sub_questions=sub_questions, candidates=shown).entities,
                               # a reply holds no more names; `choose` fills up to max_bridge_entities from the ranking
                               min(ctx.max_bridge_entities, MAX_REPLY_ITEMS)),
            list)  # failed: the entity ranking's best are taken instead
        return picked, degraded, calls_made(ctx, "bridge")
