"""What a `--ray` batch reports of a worker that died: for one that died starting, what its setup raised (Ray's own
first line names only the actor, and was all a failed CI run showed of a deadlock); and a claim that raises in a
worker is tried again after the same waits as in a local batch (Ray's calls faked in this process); a claim another
worker takes over resumes from the first one's checkpoint, each step naming the node that ran it."""

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


# --- a claim another node takes over resumes from the first node's checkpoint, and the checkpoints say so ------

def test_a_claim_a_second_worker_takes_over_resumes_after_the_first_workers_last_step(monkeypatch, tmp_path,
                                                                                      small_corpus):
    """What the dead-node test (integration) reads from the checkpoints: each step names the node whose worker ran
    it (`NODE_KEY`), and a claim taken over resumes, so it has one input checkpoint and the second node's steps all
    come after the first's (a fresh start would write a second input and run every step again)."""
    from fakes import fake_lm
    from test_graph_routing import answers

    import claimhop.program.runtime
    from graph.durable import DurableChecks
    from state.context import Context

    settings = {"corpus_path": str(small_corpus), "use_optimized_program": False, "verifier": "single"}

    def on_node(node: str, reply: dict) -> tuple[dict | None, object, list[tuple]]:
        """The claim run by `node`'s worker: its final state (None when the worker stopped), the fake model's
        calls, and every checkpoint as (step, source, the node that wrote it)."""
        lm, engine = fake_lm(reply)
        monkeypatch.setattr(claimhop.program.runtime, "get_lm", lambda model: lm)
        checks = DurableChecks(tmp_path / "checkpoints.sqlite", labels={distributed.NODE_KEY: node})
        try:
            final = checks.run_claim("c0", "Steve Augeri is American.", settings, Context.from_any(settings))
        except KeyboardInterrupt:
            final = None
        steps = sorted(((item.metadata["step"], item.metadata["source"], item.metadata.get(distributed.NODE_KEY))
                        for item in checks.app.checkpointer.list(None)), key=lambda step: step[0])
        checks.close()
        return final, engine, steps

    broken = answers()

    def node_died():
        raise KeyboardInterrupt  # the first node's worker stops while the verifier thinks
    broken["evidence_ids"] = node_died
    assert on_node("first", broken)[0] is None
    final, engine, steps = on_node("second", answers())
    assert final["verdict"] == "SUPPORTED" and engine.calls == ["evidence_ids", "statements"]  # only what was left
    assert [step for step in steps if step[1] == "input"] == [(-1, "input", "first")]
    first = [number for number, source, node in steps if node == "first" and source == "loop"]
    second = [number for number, _, node in steps if node == "second"]
    assert first and second and max(first) < min(second), steps
