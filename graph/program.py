"""The one runnable program: claimhop's stages with a `forward` that runs the compiled graph on them, so
`claimhop optimize` compiles exactly what a user runs (the same nodes, routers, retries and fallbacks)."""

from __future__ import annotations

import dspy

from claimhop.program import Stages, running
from graph.builder import graph
from state.context import Context


class ClaimHopProgram(Stages):
    """A DSPy module whose predictors are the stages' and whose `forward(claim)` is the whole graph."""

    def __init__(self, settings: Context | None = None) -> None:
        super().__init__(settings)

    def forward(self, claim: str) -> dspy.Prediction:
        """Check `claim` with the graph on this program's predictors; the prediction holds the final state's
        verdict, answer, selected titles and every hop (what the metrics read)."""
        with running(self):
            state = graph.invoke({"claim": claim}, context=self.settings)
        return dspy.Prediction(verdict=state.get("verdict"), answer=state.get("answer"), hops=state.get("hops", []),
                               selected=[d["title"] for d in state.get("selected", [])],
                               lm_calls=state.get("lm_calls", 0))
