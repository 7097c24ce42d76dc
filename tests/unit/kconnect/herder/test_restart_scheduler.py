"""The restart scheduler's timers and bookkeeping, on a real event loop with a memory status store."""

from __future__ import annotations

import asyncio
import logging

import pytest
from kconnect.herder import events as ev
from kconnect.herder.restart_scheduler import RestartScheduler
from kconnect.model import AutoRestarts, ConnectorTaskId, State, StateInfo, TaskStateInfo
from kconnect.storage.memory import MemoryStatusBackingStore

TASK = ConnectorTaskId("c", 0)
ON = {"name": "c", "auto.restart.enable": "true", "auto.restart.backoff.ms": "20"}


class Harness:
    """A scheduler whose effect runner is the test: it writes a status, then tells the scheduler."""

    def __init__(self, config: dict[str, str]) -> None:
        self.config = config
        self.store = MemoryStatusBackingStore()
        self.posted: list[ev.Event] = []
        self.now = 1_000
        self.here = True
        self.scheduler = RestartScheduler(
            self.store, lambda _name: self.config, self.posted.append, self.clock, lambda _i: self.here
        )

    def clock(self) -> int:
        return self.now

    def task(self, state: State, trace: str | None = None) -> None:
        self.store.put_task(TASK, TaskStateInfo(state, "w", trace, id=0))
        self.scheduler.on_status(TASK, state, trace)

    def connector(self, state: State, trace: str | None = None) -> None:
        self.store.put_connector("c", StateInfo(state, "w", trace))
        self.scheduler.on_status("c", state, trace)

    async def due(self, count: int = 1) -> None:
        for _ in range(200):
            if len(self.posted) >= count:
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"no restart posted: {self.posted}")


async def test_a_failure_is_restarted_and_counted_and_a_manual_restart_resets(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    h = Harness(ON)
    h.task(State.FAILED, "boom\nat x")
    assert h.store.get_auto_restarts(TASK) == AutoRestarts(0, "boom\nat x", 1_000, 1_000, False)
    await h.due()
    assert h.posted == [ev.AutoRestartDue("c", 0)]
    h.task(State.RESTARTING)
    assert h.store.get_auto_restarts(TASK) == AutoRestarts(1, "boom\nat x", 1_000, None, False)
    h.now = 2_000
    h.task(State.FAILED, "Traceback (most recent call last):\n  File x\nRuntimeError: again")
    again = "Traceback (most recent call last):\n  File x\nRuntimeError: again"
    assert h.store.get_auto_restarts(TASK) == AutoRestarts(1, again, 2_000, 2_040, False)  # 20 x 1 x 2
    h.task(State.RESTARTING)  # the user's restart came first: the count starts again, the timer goes
    assert h.store.get_auto_restarts(TASK) == AutoRestarts(0, again, 2_000, None, False)
    await asyncio.sleep(0.1)
    assert len(h.posted) == 1
    assert "Automatic restart 1 (of unlimited) of task c-0 scheduled in 0 ms: boom" in caplog.text
    assert (
        "Automatic restart 2 (of unlimited) of task c-0 scheduled in 40 ms: RuntimeError: again"
        in caplog.text
    )
    assert "Automatic restart 1 of task c-0: restarting it now" in caplog.text
    assert "Manual restart of task c-0: its automatic restart count starts again" in caplog.text


async def test_running_for_the_next_backoff_resets_the_count() -> None:
    h = Harness(ON)
    h.task(State.FAILED, "boom")
    await h.due()
    h.task(State.RESTARTING)
    h.task(State.RUNNING)
    for _ in range(100):
        if h.store.get_auto_restarts(TASK) == AutoRestarts(0, "boom", 1_000, None, False):
            return
        await asyncio.sleep(0.01)
    raise AssertionError(h.store.get_auto_restarts(TASK))


async def test_a_count_does_not_reset_here_once_the_instance_moved_to_another_worker() -> None:
    h = Harness(ON)
    h.task(State.FAILED, "boom")
    await h.due()
    h.task(State.RESTARTING)
    h.task(State.RUNNING)
    h.here = False  # a rebalance moved the task; this worker wrote no status for it
    await asyncio.sleep(0.2)
    assert h.store.get_auto_restarts(TASK) == AutoRestarts(1, "boom", 1_000, None, False)


async def test_the_worker_gives_up_after_max_attempts(caplog: pytest.LogCaptureFixture) -> None:
    h = Harness({**ON, "auto.restart.max.attempts": "1"})
    h.connector(State.FAILED, "boom")
    await h.due()
    assert h.posted == [ev.AutoRestartDue("c", None)]
    h.connector(State.RESTARTING)
    h.connector(State.FAILED, "again")
    assert h.store.get_auto_restarts("c") == AutoRestarts(1, "again", 1_000, None, True)
    await asyncio.sleep(0.1)
    assert len(h.posted) == 1
    assert "Giving up automatic restarts of connector c" in caplog.text


@pytest.mark.parametrize("config", [{"name": "c"}, {**ON, "auto.restart.max.attempts": "0"}])
async def test_nothing_is_scheduled_when_restarts_are_off(config: dict[str, str]) -> None:
    h = Harness(config)
    h.task(State.FAILED, "boom")
    await asyncio.sleep(0.1)
    assert h.posted == []
    assert h.store.get_auto_restarts(TASK) is None


async def test_a_schedule_a_previous_owner_wrote_continues_here() -> None:
    h = Harness(ON)
    h.task(State.UNASSIGNED)
    h.store.put_auto_restarts(TASK, AutoRestarts(2, "old", 5, 99, False))
    h.task(State.RUNNING)  # the takeover's start: nothing is due any more, the count stays
    assert h.store.get_auto_restarts(TASK) == AutoRestarts(2, "old", 5, None, False)
    h.task(State.FAILED, "boom")
    assert h.store.get_auto_restarts(TASK) == AutoRestarts(2, "boom", 1_000, 1_120, False)  # 20 x 2 x 3


async def test_schedule_restart_restarts_whatever_the_state_and_close_cancels() -> None:
    h = Harness(ON)
    h.task(State.RUNNING)
    h.scheduler.schedule_restart(TASK, "stalled")
    await h.due()
    assert h.posted == [ev.AutoRestartDue("c", 0, only_failed=False)]
    h.now = 5_000
    h.task(State.RESTARTING)
    h.task(State.RUNNING)
    h.scheduler.schedule_restart(TASK, "stalled again")
    h.scheduler.close()
    await asyncio.sleep(0.1)
    assert len(h.posted) == 1
