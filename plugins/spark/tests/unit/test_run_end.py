"""`task_run.wait_for_end`: a run is over only when its Spark job has ended and its channel has closed."""

from __future__ import annotations

import asyncio
from typing import Any

from kconnect.config.worker_settings import WorkerSettings
from kconnect.executor import TaskSpec
from kconnect.model import ConnectorTaskId, TargetState
from kconnect_spark.task_run import TaskRun, wait_for_end

GRACE_S = 0.2


class FakeWriter:
    """Stands in for the task's connection: records whether the worker closed it."""

    def __init__(self) -> None:
        self.closed = False

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed


def new_run(connected: bool = True) -> tuple[TaskRun, FakeWriter]:
    run = TaskRun(
        TaskSpec(ConnectorTaskId("c", 0), "source", "x.Task", {}, {}, WorkerSettings.from_props({})),
        TargetState.STARTED,
    )
    writer = FakeWriter()
    if connected:
        run.connected, run.writer = True, writer  # type: ignore[assignment]
    return run, writer


def disconnect(run: TaskRun, lost: str | None = None) -> None:
    run.writer, run.channel_lost = None, lost
    run.disconnected.set()


async def test_a_lost_channel_gives_the_job_time_then_cancels_it() -> None:
    run, _ = new_run()
    reasons: list[str] = []

    async def cancel(reason: str) -> None:
        reasons.append(reason)
        run.job_ended.set()  # Spark ends a cancelled job

    disconnect(run, lost="ConnectionResetError")
    await asyncio.wait_for(wait_for_end(run, cancel, GRACE_S, GRACE_S), 5)
    assert reasons == ["the worker cancelled its Spark job so that it does not run unsupervised"]


async def test_a_job_that_ends_by_itself_after_the_channel_is_not_cancelled() -> None:
    run, _ = new_run()
    cancelled: list[str] = []

    async def cancel(reason: str) -> None:
        cancelled.append(reason)

    disconnect(run, lost="EOF")
    asyncio.get_running_loop().call_later(GRACE_S / 4, run.job_ended.set)
    await asyncio.wait_for(wait_for_end(run, cancel, 10.0, GRACE_S), 5)
    assert cancelled == []


async def test_a_task_still_connected_after_its_job_ended_is_disconnected() -> None:
    run, writer = new_run()

    async def cancel(reason: str) -> None:
        raise AssertionError("nothing to cancel")

    run.job_ended.set()
    await asyncio.wait_for(wait_for_end(run, cancel, GRACE_S, GRACE_S), 5)
    assert writer.closed


async def test_a_task_that_closes_its_channel_soon_after_the_job_is_left_alone() -> None:
    run, writer = new_run()

    async def cancel(reason: str) -> None:
        raise AssertionError("nothing to cancel")

    run.job_ended.set()
    asyncio.get_running_loop().call_later(GRACE_S / 4, disconnect, run)
    await asyncio.wait_for(wait_for_end(run, cancel, GRACE_S, 10.0), 5)
    assert not writer.closed


async def test_a_run_that_never_connected_ends_with_its_job() -> None:
    run, _ = new_run(connected=False)

    async def cancel(reason: str) -> None:
        raise AssertionError("nothing to cancel")

    run.job_ended.set()
    await asyncio.wait_for(wait_for_end(run, cancel, 10.0, 10.0), 1)


async def test_nothing_ends_while_the_job_runs_and_the_channel_is_open() -> None:
    run, _ = new_run()

    async def cancel(reason: str) -> Any:
        raise AssertionError("nothing to cancel")

    waiting = asyncio.create_task(wait_for_end(run, cancel, GRACE_S, GRACE_S))
    await asyncio.sleep(GRACE_S * 2)
    assert not waiting.done()
    waiting.cancel()
