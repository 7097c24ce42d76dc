"""The executor's reports to the herder: the worker's `TaskListener` (`kconnect.executor`).

State changes become herder events on the owner's queue. Source offsets go straight to the offset
store (a task waits for the durable write before it calls `commit`); a write that fails raises a
StoreError naming the task and the store's file, which the executor hands back to the task so it
ends FAILED with that trace instead of running on with offsets that were never stored.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime

from kconnect.errors import RetriableError
from kconnect.executor import SourceOffset, SourcePartition
from kconnect.herder import events as ev
from kconnect.model import ConnectorTaskId
from kconnect.storage import OffsetBackingStore, StatusBackingStore, StoreError, StoreUnavailableError

log = logging.getLogger(__name__)


class HerderTaskListener:
    """Turns an executor's calls into herder events and store calls; the herder creates one."""

    def __init__(
        self,
        post: Callable[[ev.Event], None],
        offsets: OffsetBackingStore,
        statuses: StatusBackingStore,
        on_stall: Callable[[ConnectorTaskId, str | None], None] = lambda task, trace: None,
    ) -> None:
        """`on_stall` is told of each stall with its trace, and of its end with None (the front door:
        restart the task if its connector asks for it, and no longer once it moves again)."""
        self._post = post
        self._on_stall = on_stall
        self._offsets = offsets
        self._statuses = statuses
        #: The last metrics each task of this worker sent, until it stops.
        self.task_metrics: dict[ConnectorTaskId, Mapping[str, Mapping[str, float]]] = {}
        #: Since when (Unix seconds) each stalled task of this worker is stalled.
        self.task_stalls: dict[ConnectorTaskId, float] = {}

    def on_running(self, task: ConnectorTaskId, generation: int) -> None:
        """The task started or resumed."""
        self.task_stalls.pop(task, None)
        self._post(ev.TaskRunning(task, generation))

    def on_paused(self, task: ConnectorTaskId, generation: int) -> None:
        """The task paused."""
        self.task_stalls.pop(task, None)
        self._post(ev.TaskPaused(task, generation))

    def on_failed(self, task: ConnectorTaskId, generation: int, trace: str) -> None:
        """The task failed."""
        self.task_stalls.pop(task, None)
        self._post(ev.TaskFailed(task, generation, trace))

    def on_stopped(self, task: ConnectorTaskId, generation: int) -> None:
        """The task stopped; its metrics go with it (a failed task's stay, as its status does)."""
        self.task_metrics.pop(task, None)
        self.task_stalls.pop(task, None)
        self._post(ev.TaskStopped(task, generation))

    def on_unassigned(self, task: ConnectorTaskId, generation: int, reason: str) -> None:
        """The task waits to start (e.g. for a Spark task slot): UNASSIGNED with `reason` as trace."""
        self.task_stalls.pop(task, None)
        self._post(ev.TaskUnassigned(task, generation, reason))

    def on_stalled(self, task: ConnectorTaskId, generation: int, reason: str, stalled_s: float) -> None:
        """The task is stalled: a WARN line, and its RUNNING status gets the reason as its trace."""
        since = time.time() - stalled_s
        self.task_stalls[task] = since
        log.warning("Task %s is stalled: %s", task, reason)
        trace = stall_trace(since, reason)
        self._post(ev.TaskStalled(task, generation, trace))
        self._on_stall(task, trace)

    def on_stall_ended(self, task: ConnectorTaskId, generation: int, stalled_s: float) -> None:
        """The stalled task moves again: an INFO line, and its status trace is cleared."""
        self.task_stalls.pop(task, None)
        log.info("Task %s moves again after %.0f s stalled", task, stalled_s)
        self._post(ev.TaskStallEnded(task, generation))
        self._on_stall(task, None)

    async def on_commit_source_offsets(
        self, task: ConnectorTaskId, offsets: Sequence[tuple[SourcePartition, SourceOffset | None]]
    ) -> None:
        """Store a task's source offsets durably (one atomic batch); StoreError if they could not be."""
        try:
            await self._offsets.set(task.connector, offsets)
        except Exception as exc:
            log.error("Could not store the source offsets of task %s: %s", task, exc)
            error = StoreUnavailableError if isinstance(exc, RetriableError) else StoreError
            raise error(f"Could not store the source offsets of task {task}: {exc}") from exc

    async def read_source_offsets(
        self, task: ConnectorTaskId, partitions: Sequence[SourcePartition]
    ) -> list[SourceOffset | None]:
        """The committed offsets of these partitions of the task's connector."""
        return await self._offsets.get(task.connector, partitions)

    def on_topic_used(self, task: ConnectorTaskId, topic: str) -> None:
        """Record an active topic (KIP-558)."""
        self._statuses.put_topic(task.connector, topic)

    def on_task_metrics(self, task: ConnectorTaskId, metrics: Mapping[str, Mapping[str, float]]) -> None:
        """Keep the task's latest metrics for the worker's metrics view."""
        self.task_metrics[task] = metrics


def stall_trace(since: float, reason: str) -> str:
    """A stalled task's status trace: ``kconnect: stalled since <UTC time>: <reason>``."""
    at = datetime.fromtimestamp(since, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return f"kconnect: stalled since {at}: {reason}"
