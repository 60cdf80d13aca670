"""A model call's timeout counts the model's work, not the time spent queued behind other runs' calls."""

from __future__ import annotations

import threading
import time

import pytest

from claimhop.lm.call_watch import ModelTimeout, SerialModel, with_timeout


def model_call(model: SerialModel, seconds: float):
    def call() -> str:
        with model:
            time.sleep(seconds)
        return "answer"
    return call


def run_concurrently(calls: int, model: SerialModel, work_s: float, timeout_s: float) -> list[str]:
    results: list[str] = [""] * calls

    def one(i: int) -> None:
        try:
            results[i] = with_timeout(model_call(model, work_s), timeout_s)
        except ModelTimeout as err:
            results[i] = f"timeout: {err}"

    threads = [threading.Thread(target=one, args=(i,)) for i in range(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_queued_calls_behind_a_healthy_model_do_not_time_out():
    # 4 calls of 0.4 s each on one model: the last waits 1.2 s, longer than the 0.8 s limit, yet the model is fine
    results = run_concurrently(4, SerialModel(), work_s=0.4, timeout_s=0.8)
    assert results == ["answer"] * 4


def test_a_call_that_runs_too_long_times_out():
    with pytest.raises(ModelTimeout, match="no answer within 0.3 s"):
        with_timeout(model_call(SerialModel(), 1.5), 0.3)


def test_queued_calls_give_up_when_the_call_holding_the_model_is_stuck():
    model = SerialModel()
    stuck = threading.Thread(target=model_call(model, 3.0))
    stuck.start()
    time.sleep(0.1)
    started = time.monotonic()
    with pytest.raises(ModelTimeout, match="busy with another call"):
        with_timeout(model_call(model, 0.1), 0.5)
    assert time.monotonic() - started < 1.5  # not the 3 s the stuck call takes
    stuck.join()


def test_a_call_given_up_while_queued_is_never_made_and_the_queue_is_first_come_first_served():
    model, served = SerialModel(), []

    def call(name: str, seconds: float):
        def run() -> str:
            with model:
                served.append(name)
                time.sleep(seconds)
            return name
        return run

    stuck = threading.Thread(target=call("stuck", 1.5))
    stuck.start()
    time.sleep(0.1)
    with pytest.raises(ModelTimeout):
        with_timeout(call("abandoned", 0.1), 0.5)
    waiters = []
    for name in ("first", "second", "third"):
        waiters.append(threading.Thread(target=lambda n=name: with_timeout(call(n, 0.05), 10)))
        waiters[-1].start()
        time.sleep(0.05)
    for thread in [stuck, *waiters]:
        thread.join()
    time.sleep(0.3)
    assert served == ["stuck", "first", "second", "third"]  # "abandoned" never ran


def test_a_model_without_a_queue_is_timed_from_the_start():
    with pytest.raises(ModelTimeout):
        with_timeout(lambda: time.sleep(1.0), 0.3)
