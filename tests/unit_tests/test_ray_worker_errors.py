"""What a `--ray` batch reports of a worker that died: for one that died starting, what its setup raised (Ray's own
first line names only the actor, and was all a failed CI run showed of a deadlock); and a claim that raises in a
worker is tried again after the same waits as in a local batch (Ray's calls faked in this process)."""

from __future__ import annotations

import json
import time

import pytest

import claimhop.cli.batch
import claimhop.cli.distributed as distributed
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


# --- a claim that raises in a worker is tried again after the local batch's wait (issue 56) ------------------

NODE = "ab" * 28  # a node id as Ray writes them (28 bytes in hex)


class FakeRef:
    def __init__(self, value=None, error=None):
        self.value, self.error = value, error


def fake_cluster(monkeypatch, worker_class):
    """Ray's calls as `dispatch` makes them, run in this process: one node, its actor running each job as it is
    submitted (a job that raises comes back as the RayTaskError Ray would give)."""
    import ray

    class Actor:
        def __init__(self, instance):
            self.run = type("Method", (), {"remote": staticmethod(lambda job: self.call(instance, job))})()

        @staticmethod
        def call(instance, job):
            try:
                return FakeRef(instance.run(job))
            except Exception as err:  # noqa: BLE001 - what Ray would wrap
                return FakeRef(error=exceptions.RayTaskError("run", "Traceback ...", err, "ray::ClaimWorker.run"))

    class Remote:
        def __init__(self, cls):
            self.cls = cls

        def options(self, **_):
            return type("Options", (), {"remote": staticmethod(lambda *args: Actor(self.cls(*args)))})()

    def get(ref):
        if ref.error is not None:
            raise ref.error
        return ref.value

    monkeypatch.setattr(ray, "remote", Remote)
    monkeypatch.setattr(ray, "nodes", lambda: [{"Alive": True, "Resources": {"CPU": 2.0}, "NodeID": NODE}])
    monkeypatch.setattr(ray, "wait", lambda refs, num_returns=1, timeout=None: (refs[:1], refs[1:]))
    monkeypatch.setattr(ray, "get", get)
    monkeypatch.setattr(distributed, "connect", lambda address: None)
    monkeypatch.setattr(distributed, "ClaimWorker", worker_class)


def test_a_claim_that_raises_in_a_ray_worker_is_tried_again_after_the_local_wait(monkeypatch, tmp_path, capsys):
    from claimhop.cli.batch import result_row

    monkeypatch.setattr(claimhop.cli.batch, "RETRY_WAIT_S", (0.4, 1.2))  # the local 2 s and 8 s, shortened
    tries: dict[str, list[float]] = {}

    class FlakyWorker:
        """'flaky' raises on its first two tries (a database restarting), 'broken' on every try."""

        def __init__(self, settings, env):
            pass

        def run(self, item):
            tries.setdefault(item["id"], []).append(time.monotonic())
            if item["id"] == "broken" or (item["id"] == "flaky" and len(tries["flaky"]) <= 2):
                raise ConnectionError("the claim's database went away")
            return {**result_row(item, {"verdict": "SUPPORTED"}, 0.0), "node": NODE}

    fake_cluster(monkeypatch, FlakyWorker)
    claims = [{"id": i, "claim": f"Claim {i} is true."} for i in ("fine", "flaky", "broken")]
    out = tmp_path / "results.jsonl"
    counts = distributed.check_on_ray(claims, out, {}, "auto")
    rows = {row["id"]: row for row in map(json.loads, out.read_text().splitlines())}
    assert rows["fine"]["verdict"] == rows["flaky"]["verdict"] == "SUPPORTED"
    assert rows["broken"]["failed"] and rows["broken"]["attempts"] == 3 and counts["failed"] == 1
    for claim in ("flaky", "broken"):
        assert len(tries[claim]) == 3  # the local batch's 3 tries, no more
        gaps = [later - earlier for earlier, later in zip(tries[claim], tries[claim][1:])]
        assert gaps[0] >= 0.4 * 0.9 and gaps[1] >= 1.2 * 0.9, f"{claim} was tried again after {gaps} s"
    assert "a job is tried again in 0.4 s" in capsys.readouterr().err
