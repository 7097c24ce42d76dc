"""The task side of the executor's control channel: what a running task loop needs from its worker.

An executor hands a task loop a `TaskControl`; the Spark executor implements it over a socket to
the worker, tests may implement it in memory. Only control traffic crosses it: target states,
committed source offsets, offset reads, topic names, metrics and stall reports; never records.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol

from kconnect.model import TargetState


class TaskControl(Protocol):
    """The worker, as a running task loop sees it."""

    @property
    def target(self) -> TargetState:
        """The target state the worker last asked for."""
        ...

    async def wait_for_target_change(self, current: TargetState, timeout_s: float) -> TargetState:
        """Wait until the target differs from `current` (or the timeout passes); return it."""
        ...

    @property
    def worker_lost(self) -> bool:
        """Whether the worker is gone (the channel to it broke; the target is then STOPPED).

        Nothing the task sends from then on can have its offsets committed, and the task's
        successor sends it again from the last committed offset, so a source loop sends nothing
        more once it sees this (not even the rest of a poll): it would only be duplicates.
        """
        ...

    async def report_running(self) -> None:
        """The task is running (started, or resumed after a pause)."""
        ...

    async def report_paused(self) -> None:
        """The task honoured a pause."""
        ...

    async def commit_source_offsets(
        self, offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]]
    ) -> None:
        """Store these source offsets durably at the worker; returns once they are stored."""
        ...

    async def read_source_offsets(
        self, partitions: Sequence[Mapping[str, Any]]
    ) -> list[Mapping[str, Any] | None]:
        """The committed offsets of these source partitions."""
        ...

    async def topic_used(self, topic: str) -> None:
        """Tell the worker this task used `topic` (first use only; the loop deduplicates)."""
        ...

    async def report_metrics(self, metrics: Mapping[str, Mapping[str, float]]) -> None:
        """Send the task's latest metrics (group -> name -> value; `kconnect.runtime.task_metrics`)."""
        ...

    @property
    def topics_reset_count(self) -> int:
        """How many times the worker reset the connector's active topics during this run (KIP-558)."""
        ...

    async def report_stall(self, reason: str | None, stalled_s: float) -> None:
        """The task is stalled, `reason` saying why (``poll() has not returned for 63 s``), or moves
        again (None); `stalled_s` is how long the call has been (or was) in flight
        (`kconnect.runtime.stall_watch`)."""
        ...


class ActiveTopics:
    """The topics a task loop has reported to the worker, reported again after each reset.

    The loops ask `is_new` for every record (a set lookup), and call ``control.topic_used`` only
    when it answers True: the first use of a topic since the task started or since the worker
    last reset the connector's active topics (``PUT /connectors/{c}/topics/reset``).
    """

    def __init__(self, control: TaskControl) -> None:
        self._control = control
        self._seen: set[str] = set()
        self._resets = 0

    def is_new(self, topic: str) -> bool:
        """Whether `topic` must be reported now; it counts as reported from here on."""
        resets = self._control.topics_reset_count
        if resets != self._resets:
            self._seen.clear()
            self._resets = resets
        if topic in self._seen:
            return False
        self._seen.add(topic)
        return True


class TargetFollower:
    """Keeps a task loop in step with its target state, reporting each transition once.

    Both loops call `proceed` at the top of every round: it returns False once the target is
    STOPPED, True when the loop should run a round, and holds the loop while PAUSED (after
    `on_pause` committed what is in flight, and until `on_resume` runs). While paused it calls
    `keep_alive` every `KEEP_ALIVE_S` when given: the sink polls its paused consumer there, so the
    consumer stays in its group however long the pause lasts (Kafka's paused tasks keep polling).
    """

    #: How long one wait for a resume lasts before the target is looked at again.
    PAUSE_WAIT_S = 3600.0

    def __init__(self, control: TaskControl, keep_alive_s: float = 0.5) -> None:
        """Follow `control`'s target; a paused loop's `keep_alive` runs every `keep_alive_s`."""
        self._control = control
        self._keep_alive_s = keep_alive_s
        self._running_reported = False

    async def proceed(
        self,
        on_pause: Callable[[], Awaitable[None]],
        on_resume: Callable[[], None] = lambda: None,
        keep_alive: Callable[[], Awaitable[None]] | None = None,
    ) -> bool:
        """Whether to run another round; see the class docstring."""
        while True:
            target = self._control.target
            if target is TargetState.STOPPED:
                return False
            if target is not TargetState.PAUSED:
                break
            await on_pause()
            await self._control.report_paused()
            self._running_reported = False
            await self._stay_paused(keep_alive)
            on_resume()
        if not self._running_reported:
            await self._control.report_running()
            self._running_reported = True
        return True

    async def _stay_paused(self, keep_alive: Callable[[], Awaitable[None]] | None) -> None:
        wait_s = self.PAUSE_WAIT_S if keep_alive is None else self._keep_alive_s
        while self._control.target is TargetState.PAUSED:
            if keep_alive is not None:
                await keep_alive()
            await self._control.wait_for_target_change(TargetState.PAUSED, wait_s)
