"""`StallWatch`: which marked call counts as a stall, and when each change is reported (a fake clock)."""

from __future__ import annotations

import asyncio

import pytest
from kconnect.runtime.stall_watch import Recovered, StallChange, Stalled, StallWatch, watch_for_stalls


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def test_a_call_in_flight_for_the_timeout_is_a_stall_reported_once(clock: Clock) -> None:
    watch = StallWatch(2.0, clock)
    token = watch.begin("poll() has not returned")
    clock.now += 1.9
    assert watch.check() is None
    clock.now += 0.1
    assert watch.check() == Stalled("poll() has not returned for 2.0 s", 2.0)
    assert watch.stalled
    clock.now += 60
    assert watch.check() is None, "one report per stall, however long it lasts"
    watch.end(token)
    clock.now += 0.5
    assert watch.check() == Recovered(62.0), "stalled from the call's start to its end"
    assert not watch.stalled
    assert watch.check() is None


def test_calls_that_return_in_time_are_never_a_stall(clock: Clock) -> None:
    """An idle source: its polls return (empty) one after another; an hour of them is no stall."""
    watch = StallWatch(2.0, clock)
    for _ in range(3600):
        token = watch.begin("poll() has not returned")
        clock.now += 1.0
        watch.end(token)
        assert watch.check() is None
    clock.now += 3600
    assert watch.check() is None, "no call in flight: waiting for work is not a stall"


def test_the_oldest_overdue_call_is_reported_and_the_next_one_takes_over(clock: Clock) -> None:
    watch = StallWatch(2.0, clock)
    put = watch.begin("put() of 3 records has not returned")
    clock.now += 1.0
    commit = watch.begin("the consumer's offset commit has not completed")
    clock.now += 2.5
    assert watch.check() == Stalled("put() of 3 records has not returned for 3.5 s", 3.5)
    watch.end(put)
    assert watch.check() == Stalled("the consumer's offset commit has not completed for 2.5 s", 2.5)
    watch.end(commit)
    assert watch.check() == Recovered(2.5)


def test_a_call_marked_with_an_earlier_start_counts_from_it(clock: Clock) -> None:
    """A batch put() keeps refusing (RetriableError): the stall counts from its first offer."""
    watch = StallWatch(2.0, clock)
    first_offer = clock.now
    clock.now += 1.5
    watch.begin("put() has not accepted 5 records", since=first_offer)
    clock.now += 0.5
    assert watch.check() == Stalled("put() has not accepted 5 records for 2.0 s", 2.0)


def test_ending_a_call_that_is_not_the_reported_one_changes_nothing(clock: Clock) -> None:
    watch = StallWatch(2.0, clock)
    stuck = watch.begin("commit() has not returned")
    clock.now += 3
    assert isinstance(watch.check(), Stalled)
    quick = watch.begin("poll() has not returned")
    watch.end(quick)
    watch.end(quick)
    assert watch.check() is None
    watch.end(stuck)
    assert watch.check() == Recovered(3.0)


@pytest.mark.parametrize("timeout_s", [0.0, -1.0])
def test_a_timeout_of_zero_or_less_turns_detection_off(clock: Clock, timeout_s: float) -> None:
    watch = StallWatch(timeout_s, clock)
    watch.begin("poll() has not returned")
    clock.now += 10_000
    assert not watch.enabled
    assert watch.check() is None


def test_the_next_check_comes_when_the_oldest_call_passes_the_timeout(clock: Clock) -> None:
    watch = StallWatch(2.0, clock)
    assert watch.seconds_to_next_check() == 0.5, "a quarter of the timeout without calls"
    watch.begin("poll() has not returned")
    clock.now += 1.8
    assert watch.seconds_to_next_check() == pytest.approx(0.2)
    assert StallWatch(300.0, clock).seconds_to_next_check() == 1.0, "at most a second"


def test_the_watchdog_reports_a_stall_and_the_recovery_as_soon_as_the_call_ends() -> None:
    async def scenario() -> list[StallChange]:
        changes: list[StallChange] = []

        async def report(change: StallChange) -> None:
            changes.append(change)

        watch = StallWatch(0.2)
        watchdog = asyncio.create_task(watch_for_stalls(watch, report, "t-0"))
        token = watch.begin("poll() has not returned")
        for _ in range(200):
            if changes:
                break
            await asyncio.sleep(0.01)
        watch.end(token)
        for _ in range(20):
            if len(changes) == 2:
                break
            await asyncio.sleep(0.01)
        watchdog.cancel()
        return changes

    changes = asyncio.run(scenario())
    assert [type(c) for c in changes] == [Stalled, Recovered], changes
    assert changes[0].stalled_s >= 0.2


def test_a_long_stall_reads_in_whole_seconds(clock: Clock) -> None:
    watch = StallWatch(300.0, clock)
    watch.begin("poll() has not returned")
    clock.now += 300.4
    assert watch.check() == Stalled("poll() has not returned for 300 s", 300.4)
