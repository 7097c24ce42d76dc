"""One run of one connector task in Spark, as the worker sees it: what the executor and the control
server record about it while it runs, and the facts `kconnect_spark.outcome.decide` reads when it ends.

The executor creates a run per `start_task`; the control server attaches the task's connection to
it; the driver thread records how its Spark job ended. Everything here is touched on the worker's
event loop only.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from kconnect.executor import TaskSpec
from kconnect.model import ConnectorTaskId, TargetState

from kconnect_spark.channel import encode
from kconnect_spark.host_run import HostRun
from kconnect_spark.outcome import RunEnd

log = logging.getLogger(__name__)


@dataclass(eq=False)
class TaskRun:
    """One run of one task: its spec, token, wanted state, connection and how it is ending."""

    spec: TaskSpec
    target: TargetState
    #: Start order among the executor's runs (Spark gives free slots to earlier jobs first).
    order: int = 0
    token: str = field(default_factory=lambda: secrets.token_hex(16))
    writer: asyncio.StreamWriter | None = None
    #: A task connection was accepted for this run; a second one is refused.
    connected: bool = False
    #: The Spark job was submitted (False while Spark is still starting).
    launched: bool = False
    #: The run's status says it waits for a Spark task slot.
    waiting_reported: bool = False
    reported: Literal["failed", "stopped"] | None = None
    stop_requested: bool = False
    channel_lost: str | None = None
    cancelled: str | None = None
    spark_error: str | None = None
    #: Spark's errors of the run's failed task attempts (read when the run ends unexplained).
    attempt_errors: tuple[str, ...] = ()
    #: The hosting Spark task it was placed on (None until placed).
    host: HostRun | None = None
    #: Set when the task loop has ended in its host, or the host's Spark job has ended.
    job_ended: asyncio.Event = field(default_factory=asyncio.Event)
    disconnected: asyncio.Event = field(default_factory=asyncio.Event)
    finished: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def id(self) -> ConnectorTaskId:
        """The task's id."""
        return self.spec.id

    @property
    def job_group(self) -> str:
        """The Spark job group of the run's host (cancelling it ends every task the host runs)."""
        return self.host.job_group if self.host is not None else f"kconnect-{self.id}-{self.token[:8]}"

    def send_target(self) -> None:
        """Push the current target state to the task, if it is connected."""
        self.send({"type": "target", "state": self.target.value})

    def send_topics_reset(self) -> None:
        """Tell the task its connector's active topics were reset, so it reports them again."""
        self.send({"type": "topics_reset"})

    def send(self, message: dict[str, Any]) -> None:
        """Queue one message to the task, if it is connected (a broken connection shows on read)."""
        if self.writer is not None and not self.writer.is_closing():
            self.writer.write(encode(message))

    def end(self) -> RunEnd:
        """The facts `outcome.decide` reads."""
        return RunEnd(
            str(self.id),
            self.stop_requested,
            self.reported,
            self.channel_lost,
            self.cancelled,
            self.spark_error,
            self.attempt_errors,
        )


async def wait_for_end(
    run: TaskRun, cancel: Callable[[str], Awaitable[None]], channel_grace_s: float, close_grace_s: float
) -> None:
    """Return once the run's Spark job has ended and its control channel has closed.

    The executor's supervisor of each launched run awaits this, then reports. Steps:

    1. wait for the first of: the job ends, the channel closes;
    2. channel first: give the job `channel_grace_s` to end by itself (a task that lost its channel
       stops itself), else `cancel` it with the reason that goes into the trace;
    3. job first: give the task `close_grace_s` to close its channel (Spark kills a cancelled
       task's Python worker after a delay), else close it from this side so the task stops.
    """
    await _first(run.job_ended, run.disconnected)
    if not run.job_ended.is_set() and not await _within(run.job_ended, channel_grace_s):
        await cancel(
            "the worker cancelled its Spark job so that it does not run unsupervised"
            if run.channel_lost
            else "its Spark job did not end after the task closed its channel; the worker cancelled it"
        )
        await run.job_ended.wait()
    if run.writer is not None and not await _within(run.disconnected, close_grace_s):
        log.warning(
            "Task %s is still connected %.0f s after its Spark job ended; closing its control channel "
            "so that it stops",
            run.id,
            close_grace_s,
        )
        run.writer.close()


async def _first(*events: asyncio.Event) -> None:
    waiters = [asyncio.ensure_future(event.wait()) for event in events]
    try:
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()


async def _within(event: asyncio.Event, timeout_s: float) -> bool:
    try:
        await asyncio.wait_for(event.wait(), timeout_s)
    except TimeoutError:
        return False
    return True
