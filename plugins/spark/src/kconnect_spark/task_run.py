"""One run of one connector task in Spark, as the worker sees it: what the executor and the control
server record about it while it runs, and the facts `kconnect_spark.outcome.decide` reads when it ends.

The executor creates a run per `start_task`; the control server attaches the task's connection to
it; the driver thread records how its Spark job ended. Everything here is touched on the worker's
event loop only.
"""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass, field
from typing import Any, Literal

from kconnect.executor import TaskSpec
from kconnect.herder.model import ConnectorTaskId, TargetState

from kconnect_spark.channel import encode
from kconnect_spark.outcome import RunEnd


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
    job_ended: asyncio.Event = field(default_factory=asyncio.Event)
    disconnected: asyncio.Event = field(default_factory=asyncio.Event)
    finished: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def id(self) -> ConnectorTaskId:
        """The task's id."""
        return self.spec.id

    @property
    def job_group(self) -> str:
        """The Spark job group of this run (cancelling it ends the run's Spark task)."""
        return f"kconnect-{self.id}-{self.token[:8]}"

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
        )
