"""The restart scheduler and stalls: a stalled task (RUNNING with a stall trace) has not settled, so
its automatic restart count is not reset; ``task.stall.restart`` restarts come through `schedule_restart`."""

from __future__ import annotations

import asyncio

from kconnect.herder.restart_scheduler import RestartScheduler
from kconnect.model import AutoRestarts, ConnectorTaskId, State, TaskStateInfo
from kconnect.storage.memory import MemoryStatusBackingStore

TASK = ConnectorTaskId("c", 0)
CONFIG = {"name": "c", "auto.restart.enable": "true", "auto.restart.backoff.ms": "20"}
STALLED = "kconnect: stalled since 2026-11-26T06:10:02Z: poll() has not returned for 2.0 s"


async def test_a_stalled_task_keeps_its_restart_count() -> None:
    store = MemoryStatusBackingStore()
    scheduler = RestartScheduler(store, lambda _name: CONFIG, lambda _event: None, lambda: 1_000)

    def status(state: State, trace: str | None = None) -> None:
        store.put_task(TASK, TaskStateInfo(state, "w", trace, id=0))
        scheduler.on_status(TASK, state, trace)

    store.put_auto_restarts(TASK, AutoRestarts(1, STALLED, 1_000, None, False))
    status(State.RUNNING)  # restarted: it settles after 40 ms (20 x 1 x 2) of RUNNING...
    status(State.RUNNING, STALLED)  # ...unless it stalls first
    await asyncio.sleep(0.2)
    assert store.get_auto_restarts(TASK) == AutoRestarts(1, STALLED, 1_000, None, False)
    status(State.RUNNING)  # it moves again: now it may settle
    for _ in range(100):
        if store.get_auto_restarts(TASK) == AutoRestarts(0, STALLED, 1_000, None, False):
            scheduler.close()
            return
        await asyncio.sleep(0.01)
    raise AssertionError(store.get_auto_restarts(TASK))


async def test_a_stall_restart_not_run_yet_is_dropped_when_the_task_moves_again() -> None:
    store = MemoryStatusBackingStore()
    posted: list[object] = []
    scheduler = RestartScheduler(store, lambda _name: CONFIG, posted.append, lambda: 1_000)
    store.put_auto_restarts(TASK, AutoRestarts(1, STALLED, 1_000, None, False))
    scheduler.schedule_restart(TASK, STALLED)  # the second restart waits 40 ms (20 x 1 x 2)
    scheduler.cancel_restart(TASK)
    await asyncio.sleep(0.2)
    assert posted == []
