"""What runs inside a Spark task: the kernel's task loop, connected to the worker by a socket.

`run_partition` is the function Spark runs (via ``mapPartitions``) on an executor. It yields a
single small summary; the records themselves only ever move between Kafka and the connector.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import pickle
import traceback
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kconnect.executor import TaskSpec
from kconnect.herder.model import TargetState
from kconnect.runtime.runner import run_task as run_loop

from kconnect_spark.channel import MAX_LINE, encode, read_message

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TaskLaunch:
    """What the driver ships to the Spark task: the spec and how to reach the worker."""

    spec: TaskSpec
    host: str
    port: int
    token: str


class SocketTaskControl:
    """`TaskControl` over the control channel (the task side)."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, target: TargetState
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._target = target
        self._changed = asyncio.Event()
        self._replies: dict[int, asyncio.Future[Any]] = {}
        self._ids = itertools.count(1)
        self._topics_resets = 0

    @property
    def target(self) -> TargetState:
        """The target state the worker last sent."""
        return self._target

    @property
    def topics_reset_count(self) -> int:
        """How many ``topics_reset`` messages the worker sent during this run."""
        return self._topics_resets

    async def read_loop(self) -> None:
        """Apply target changes and replies until the worker goes away (then: stop the task)."""
        try:
            while (message := await read_message(self._reader)) is not None:
                if message["type"] == "target":
                    self._set_target(TargetState(message["state"]))
                elif message["type"] == "topics_reset":
                    self._topics_resets += 1
                elif message["type"] == "reply":
                    future = self._replies.pop(int(message["id"]), None)
                    if future is not None and not future.done():
                        future.set_result(message.get("result"))
        except (ConnectionError, asyncio.IncompleteReadError, ValueError) as exc:
            log.warning("Control channel to the worker broke: %s", exc)
        # No worker, no one to commit offsets to: stop without losing anything already committed.
        self._set_target(TargetState.STOPPED)
        for future in self._replies.values():
            if not future.done():
                future.set_exception(ConnectionError("the worker closed the control channel"))

    def _set_target(self, state: TargetState) -> None:
        self._target = state
        self._changed.set()

    async def wait_for_target_change(self, current: TargetState, timeout_s: float) -> TargetState:
        """Wait until the target is not `current`, at most `timeout_s`."""
        if self._target is current:
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), timeout_s)
            except TimeoutError:
                pass
        return self._target

    async def send(self, message: dict[str, Any]) -> None:
        """Send one message to the worker."""
        self._writer.write(encode(message))
        await self._writer.drain()

    async def _request(self, message: dict[str, Any]) -> Any:
        request_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._replies[request_id] = future
        await self.send({**message, "id": request_id})
        return await future

    async def report_running(self) -> None:
        """Tell the worker the task is running."""
        await self.send({"type": "running"})

    async def report_paused(self) -> None:
        """Tell the worker the task is paused."""
        await self.send({"type": "paused"})

    async def commit_source_offsets(
        self, offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]]
    ) -> None:
        """Have the worker store these offsets; returns once they are durable there."""
        await self._request(
            {"type": "commit", "offsets": [[dict(p), dict(o) if o else None] for p, o in offsets]}
        )

    async def read_source_offsets(
        self, partitions: Sequence[Mapping[str, Any]]
    ) -> list[Mapping[str, Any] | None]:
        """Committed offsets of these partitions, from the worker's offset store."""
        result = await self._request({"type": "read_offsets", "partitions": [dict(p) for p in partitions]})
        return list(result)

    async def topic_used(self, topic: str) -> None:
        """Tell the worker the task used this topic."""
        await self.send({"type": "topic", "topic": topic})


async def run_task(launch: TaskLaunch) -> dict[str, str]:
    """Connect to the worker, run the task loop to completion and report how it ended."""
    spec = launch.spec
    reader, writer = await asyncio.open_connection(launch.host, launch.port, limit=MAX_LINE)
    control = SocketTaskControl(reader, writer, spec.target_state)
    await control.send(
        {"type": "hello", "token": launch.token, "task": str(spec.id), "generation": spec.generation}
    )
    hello = await read_message(reader)
    if hello is None or hello.get("type") != "target":
        raise ConnectionError(f"worker refused task {spec.id}")
    control._set_target(TargetState(hello["state"]))
    listener = asyncio.create_task(control.read_loop())
    outcome = "stopped"
    try:
        await run_loop(spec, control)
        await control.send({"type": "stopped"})
    except Exception:
        outcome = "failed"
        log.exception("Task %s failed", spec.id)
        await control.send({"type": "failed", "trace": traceback.format_exc()})
    finally:
        listener.cancel()
        writer.close()
        try:
            await writer.wait_closed()
        except ConnectionError:
            pass
    return {"task": str(spec.id), "outcome": outcome}


def run_partition(rows: Iterator[bytes]) -> Iterator[dict[str, str]]:
    """Spark's entry point: each row is a pickled TaskLaunch; run it and yield its summary."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for row in rows:
        launch: TaskLaunch = pickle.loads(row)
        yield asyncio.run(run_task(launch))
