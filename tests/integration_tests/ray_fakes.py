"""Installed in every Ray worker process of the batch-machinery tests (Ray's `worker_process_setup_hook`): a fake
LM instead of the real model (the dispatch, the environment and the checkpoints are under test, not the verdict),
and a claim holding FAULT that raises inside the worker, as a broken database connection would."""

from __future__ import annotations

FAULT = "[explodes in the worker]"


def install() -> None:
    from fakes import fake_lm
    from test_graph_routing import answers

    import claimhop.program.runtime
    import graph.durable

    lm, _ = fake_lm(answers())
    claimhop.program.runtime.get_lm = lambda model: lm
    real = graph.durable.DurableChecks.run

    def run(self, claim: str, *args, **kwargs):
        if FAULT in claim:
            raise RuntimeError("the claim's store went away mid-check")
        return real(self, claim, *args, **kwargs)

    graph.durable.DurableChecks.run = run
