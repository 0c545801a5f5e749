"""Ctrl-C (SIGINT) stops a run within a second and keeps the replicas that finished."""

import signal
import time

import pytest

import codesim


def slow_quickstart():
    """One point, replicas of about a second each on one job."""
    scenario = codesim.Scenario.load("scenarios/quickstart.json")
    return scenario.set("/sweep", {"grid": {"/checkpoint/every_iterations": [100]}}).set("/workload/iterations", 600)


def interrupt_when(condition):
    """A progress callback that sends this process SIGINT once `condition(progress)` holds and
    records when."""
    sent = []

    def progress(state):
        if not sent and condition(state):
            sent.append(time.monotonic())
            signal.raise_signal(signal.SIGINT)

    return progress, sent


def test_an_interrupt_keeps_the_finished_replicas_marked_incomplete():
    progress, sent = interrupt_when(lambda p: p.replicas_done >= 1)
    with pytest.raises(codesim.Interrupted) as caught:
        codesim.run(slow_quickstart(), replicas=4, progress=progress)
    stopped_s = time.monotonic() - sent[0]
    results = caught.value.results
    assert isinstance(caught.value, KeyboardInterrupt) and not results.complete
    kept = results.points[0]["replicas"]
    assert 1 <= len(kept) < 4
    assert stopped_s < 1.0, f"the run took {stopped_s:.2f} s to stop"
    # Each kept replica is the one a whole run computes.
    whole = codesim.run(slow_quickstart(), replicas=len(kept))
    assert kept == whole.points[0]["replicas"]


def test_an_interrupt_before_any_replica_finished_keeps_nothing_and_says_so():
    progress, sent = interrupt_when(lambda p: p.iterations > 0)
    with pytest.raises(codesim.Interrupted) as caught:
        codesim.run(slow_quickstart(), replicas=2, progress=progress)
    assert sent and caught.value.results.points[0]["replicas"] == []
    assert "0 replicas finished" in str(caught.value)


def test_an_exception_in_the_progress_callback_stops_the_run_and_comes_through():
    def progress(state):
        raise RuntimeError("callback broke")

    with pytest.raises(RuntimeError, match="callback broke"):
        codesim.run(slow_quickstart(), replicas=2, progress=progress)
    # The next run is not stopped by the last one's request.
    assert codesim.run("scenarios/iterative_job.json", replicas=2).complete
