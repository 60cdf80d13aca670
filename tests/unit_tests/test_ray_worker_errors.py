"""What a `--ray` batch reports of a worker that died: for one that died starting, what its setup raised (Ray's own
first line names only the actor, and was all a failed CI run showed of a deadlock)."""

from __future__ import annotations

import pytest

from claimhop.cli.distributed import _reason

exceptions = pytest.importorskip("ray.exceptions")


def test_a_worker_that_died_starting_is_reported_by_what_its_setup_raised():
    raised = RuntimeError("deadlock detected\nDETAIL:  Process 1 waits for ExclusiveLock")
    setup = exceptions.RayTaskError("__init__", "Traceback (most recent call last): ...", raised,
                                    "ray::ClaimWorker.__init__")
    assert _reason(exceptions.ActorDiedError(setup)) == "a worker died starting: RuntimeError: deadlock detected"


def test_other_errors_keep_their_first_line():
    assert _reason(exceptions.ActorDiedError()).startswith("ActorDiedError: The actor died unexpectedly")
    assert _reason(ValueError("bad row\nmore")) == "ValueError: bad row"
