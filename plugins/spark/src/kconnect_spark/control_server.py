"""The worker side of the control channel: Spark tasks connect here and report back.

One TCP server per worker. Each task run gets a random token; a connection that does not present
a known token is closed. Messages are turned into `TaskListener` calls on the worker's event loop.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from dataclasses import dataclass, field
from typing import Any

from kconnect.executor import TaskListener, TaskSpec
from kconnect.herder.model import ConnectorTaskId, TargetState

from kconnect_spark.channel import MAX_LINE, encode, read_message

log = logging.getLogger(__name__)


@dataclass
class TaskRun:
    """One run of one task: its spec, token, wanted state and connection."""

    spec: TaskSpec
    target: TargetState
    token: str = field(default_factory=lambda: secrets.token_hex(16))
    writer: asyncio.StreamWriter | None = None
    failed: bool = False
    stop_requested: bool = False
    finished: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def id(self) -> ConnectorTaskId:
        """The task's id."""
        return self.spec.id

    def send_target(self) -> None:
        """Push the current target state to the task, if it is connected."""
        self._send({"type": "target", "state": self.target.value})

    def send_topics_reset(self) -> None:
        """Tell the task its connector's active topics were reset, so it reports them again."""
        self._send({"type": "topics_reset"})

    def _send(self, message: dict[str, Any]) -> None:
        if self.writer is not None and not self.writer.is_closing():
            self.writer.write(encode(message))


class ControlServer:
    """Accepts task connections and dispatches their messages to the listener."""

    def __init__(self, listener: TaskListener) -> None:
        self._listener = listener
        self._runs: dict[str, TaskRun] = {}
        self._server: asyncio.Server | None = None
        self.port = 0

    async def start(self, host: str) -> None:
        """Listen on `host` at a free port."""
        self._server = await asyncio.start_server(self._serve, host, 0, limit=MAX_LINE)
        self.port = self._server.sockets[0].getsockname()[1]
        log.info("Task control channel listening on %s:%d", host, self.port)

    def add(self, run: TaskRun) -> None:
        """Expect a connection from this task run."""
        self._runs[run.token] = run

    def remove(self, run: TaskRun) -> None:
        """Forget a finished task run."""
        self._runs.pop(run.token, None)

    async def close(self) -> None:
        """Stop listening."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        run: TaskRun | None = None
        try:
            hello = await read_message(reader)
            run = self._runs.get(str(hello.get("token"))) if hello and hello.get("type") == "hello" else None
            if run is None:
                log.warning("Refused a control connection without a valid task token")
                return
            run.writer = writer
            run.send_target()
            while (message := await read_message(reader)) is not None:
                await self._dispatch(run, message, writer)
        except (ConnectionError, ValueError) as exc:
            log.warning("Control connection of %s broke: %s", run.id if run else "an unknown task", exc)
        finally:
            if run is not None and run.writer is writer:
                run.writer = None
            writer.close()

    async def _dispatch(self, run: TaskRun, message: dict[str, Any], writer: asyncio.StreamWriter) -> None:
        kind = message.get("type")
        task, generation = run.id, run.spec.generation
        if kind == "running":
            self._listener.on_running(task, generation)
        elif kind == "paused":
            self._listener.on_paused(task, generation)
        elif kind == "failed":
            run.failed = True
            self._listener.on_failed(task, generation, str(message.get("trace", "")))
        elif kind == "stopped":
            pass  # reported when the Spark job ends, so "stopped" means the Spark task is gone too
        elif kind == "topic":
            self._listener.on_topic_used(task, str(message["topic"]))
        elif kind == "commit":
            offsets = [(p, o) for p, o in message["offsets"]]
            await self._listener.on_commit_source_offsets(task, offsets)
            writer.write(encode({"type": "reply", "id": message["id"], "result": True}))
        elif kind == "read_offsets":
            result = await self._listener.read_source_offsets(task, message["partitions"])
            writer.write(
                encode(
                    {"type": "reply", "id": message["id"], "result": [dict(o) if o else None for o in result]}
                )
            )
        else:
            log.warning("Unknown control message %r from %s", kind, task)
