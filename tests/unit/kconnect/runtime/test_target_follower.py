"""TargetFollower: a task loop's view of pause, resume and stop, with each transition reported once."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from kconnect.model import TargetState
from kconnect.runtime.control import ActiveTopics, TargetFollower


class MemoryControl:
    def __init__(self) -> None:
        self.target = TargetState.STARTED
        self.reports: list[str] = []
        self.changed = asyncio.Event()
        self.topics_reset_count = 0

    def set(self, state: TargetState) -> None:
        self.target = state
        self.changed.set()

    async def wait_for_target_change(self, current: TargetState, timeout_s: float) -> TargetState:
        if self.target is current:
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), timeout_s)
            except TimeoutError:
                pass
        return self.target

    async def report_running(self) -> None:
        self.reports.append("running")

    async def report_paused(self) -> None:
        self.reports.append("paused")

    async def commit_source_offsets(self, offsets: Sequence[Any]) -> None: ...

    async def read_source_offsets(self, partitions: Sequence[Mapping[str, Any]]) -> list[Any]:
        return []

    async def topic_used(self, topic: str) -> None: ...


async def test_running_is_reported_once_and_stop_ends_the_loop() -> None:
    control = MemoryControl()
    follower = TargetFollower(control)
    assert await follower.proceed(_noop)
    assert await follower.proceed(_noop)
    control.set(TargetState.STOPPED)
    assert not await follower.proceed(_noop)
    assert control.reports == ["running"]


async def test_pause_commits_blocks_and_resumes() -> None:
    control = MemoryControl()
    follower = TargetFollower(control)
    events: list[str] = []

    async def on_pause() -> None:
        events.append("commit")

    assert await follower.proceed(on_pause)
    control.set(TargetState.PAUSED)
    round_ = asyncio.create_task(follower.proceed(on_pause, lambda: events.append("resume")))
    await asyncio.sleep(0.05)
    assert not round_.done(), "a paused loop must not run a round"
    assert events == ["commit"]
    control.set(TargetState.STARTED)
    assert await asyncio.wait_for(round_, 1)
    assert events == ["commit", "resume"]
    assert control.reports == ["running", "paused", "running"]


async def test_stop_while_paused_ends_the_loop() -> None:
    control = MemoryControl()
    follower = TargetFollower(control)
    control.set(TargetState.PAUSED)
    round_ = asyncio.create_task(follower.proceed(_noop))
    await asyncio.sleep(0.05)
    control.set(TargetState.STOPPED)
    assert await asyncio.wait_for(round_, 1) is False


async def _noop() -> None:
    return None


def test_active_topics_reports_each_topic_once_until_the_worker_resets_them() -> None:
    control = MemoryControl()
    topics = ActiveTopics(control)
    assert [topics.is_new(t) for t in ("a", "a", "b", "a")] == [True, False, True, False]
    control.topics_reset_count += 1  # PUT /connectors/{c}/topics/reset
    assert [topics.is_new(t) for t in ("b", "b", "a")] == [True, False, True]


async def test_a_paused_loop_with_keep_alive_runs_it_regularly_until_resumed() -> None:
    control = MemoryControl()
    follower = TargetFollower(control, keep_alive_s=0.02)
    kept_alive: list[float] = []

    async def keep_alive() -> None:
        kept_alive.append(asyncio.get_running_loop().time())

    assert await follower.proceed(_noop)
    control.set(TargetState.PAUSED)
    round_ = asyncio.create_task(follower.proceed(_noop, keep_alive=keep_alive))
    await asyncio.sleep(0.3)
    assert not round_.done()
    assert len(kept_alive) >= 5, "a paused sink must keep polling its consumer"
    control.set(TargetState.STARTED)
    assert await asyncio.wait_for(round_, 1)
    assert control.reports == ["running", "paused", "running"], "one paused report however long the pause"
