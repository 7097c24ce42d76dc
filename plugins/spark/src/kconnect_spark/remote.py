"""What runs inside a Spark task: a host of the kernel's task loops, each connected to the worker.

`run_partition` is the function Spark runs (via ``mapPartitions``) on an executor: one long-running
Spark task that hosts connector tasks (`run_host`), as many as the worker places on it, each task
loop an asyncio task of the host's one event loop with its own control connection (`run_task`).
It yields a single small summary; the records themselves only ever move between Kafka and the
connector.

The task never runs unsupervised: when its control channel breaks, the loop is told to stop
(committing nothing more: there is no worker to commit to) and `run_task` raises
`ControlChannelLost`, which fails the Spark task so the worker sees why it ended.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import itertools
import logging
import os
import pickle
import select
import socket
import sys
import time
import traceback
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from kconnect.errors import PluginError, RetriableError
from kconnect.executor import TaskSpec
from kconnect.model import TargetState
from kconnect.runtime.runner import run_task as run_loop

from kconnect_spark.channel import (
    MAX_LINE,
    ControlChannelLost,
    TaskRerunRefused,
    WorkerError,
    encode,
    read_message,
)

log = logging.getLogger(__name__)

#: How often a host reports the share of a core its process used (the worker places tasks by it).
LOAD_REPORT_INTERVAL_S = 1.0


@dataclass(frozen=True)
class TaskLaunch:
    """What the worker hands a host for one task: the spec and how to reach the worker."""

    spec: TaskSpec
    host: str
    port: int
    token: str


def encode_launch(launch: TaskLaunch) -> str:
    """A task's launch as a ``run`` message to a Python host carries it (`run_host` decodes it)."""
    return base64.b64encode(pickle.dumps(launch)).decode()


@dataclass(frozen=True)
class HostLaunch:
    """What the driver ships to a hosting Spark task: how to reach the worker, and its size."""

    label: str
    host: str
    port: int
    token: str
    capacity: int


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
        #: Why the channel broke, once it has.
        self.lost: str | None = None
        self._hangup = _hangup_poll(writer)

    @property
    def target(self) -> TargetState:
        """The target state the worker last sent."""
        return self._target

    @property
    def worker_lost(self) -> bool:
        """Whether the channel to the worker broke (`lost` says why).

        Asks the socket too: a source loop sending a poll's batches may not yield to the event
        loop between them, so `read_loop` would see a SIGKILLed worker's end of the connection
        only once the whole poll was sent.
        """
        if self.lost is None and self._hangup is not None and self._hangup.poll(0):
            self._lose("the worker closed the connection")
        return self.lost is not None

    @property
    def topics_reset_count(self) -> int:
        """How many ``topics_reset`` messages the worker sent during this run."""
        return self._topics_resets

    async def read_loop(self) -> None:
        """Apply target changes and replies until the worker goes away (then: stop the task)."""
        try:
            while (message := await read_message(self._reader)) is not None:
                self._apply(message)
            reason = "the worker closed the connection"
        except (ConnectionError, asyncio.IncompleteReadError, ValueError) as exc:
            reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        self._lose(reason)

    def _apply(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "target":
            self._set_target(TargetState(message["state"]))
        elif kind == "topics_reset":
            self._topics_resets += 1
        elif kind in ("reply", "error"):
            future = self._replies.pop(int(message["id"]), None)
            if future is None or future.done():
                return
            if kind == "reply":
                future.set_result(message.get("result"))
            elif message.get("retriable"):
                future.set_exception(RetriableError(str(message.get("error"))))
            else:
                future.set_exception(WorkerError(str(message.get("error"))))

    def _lose(self, reason: str) -> None:
        """The channel broke: stop the loop and fail every request, now and later."""
        if self.lost is not None:
            return
        self.lost = reason
        log.error("Control channel to the worker lost (%s): stopping the task", reason)
        self._set_target(TargetState.STOPPED)
        for future in self._replies.values():
            if not future.done():
                future.set_exception(self._lost_error())
        self._replies.clear()

    def _lost_error(self) -> ControlChannelLost:
        return ControlChannelLost(f"control channel to the worker lost ({self.lost})")

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
        """Send one message to the worker; `ControlChannelLost` once the channel broke."""
        if self.lost is not None:
            raise self._lost_error()
        try:
            self._writer.write(encode(message))
            await self._writer.drain()
        except ConnectionError as exc:
            self._lose(f"{type(exc).__name__}: {exc}")
            raise self._lost_error() from exc

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
        """Tell the worker the task is paused (its offsets committed)."""
        await self.send({"type": "paused"})

    async def commit_source_offsets(
        self, offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]]
    ) -> None:
        """Have the worker store these offsets; returns once they are durable there.

        Raises `RetriableError` when the worker's store could not be reached (try again later),
        `WorkerError` when it could not store them, `ControlChannelLost` without the worker.
        """
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

    async def report_metrics(self, metrics: Mapping[str, Mapping[str, float]]) -> None:
        """Send the task's latest metrics to the worker."""
        await self.send({"type": "metrics", "metrics": {g: dict(m) for g, m in metrics.items()}})

    async def report_stall(self, reason: str | None, stalled_s: float) -> None:
        """Tell the worker the task is stalled (`reason`) or moves again (None)."""
        await self.send({"type": "stall", "reason": reason, "stalled_s": stalled_s})


def _hangup_poll(writer: asyncio.StreamWriter) -> select.poll | None:
    """A poll object that answers at once whether the peer closed the connection (Linux's
    ``POLLRDHUP``, without reading); None where the platform cannot tell."""
    sock = writer.get_extra_info("socket")
    rdhup = getattr(select, "POLLRDHUP", None)
    if sock is None or rdhup is None:
        return None
    hangup = select.poll()
    hangup.register(sock.fileno(), rdhup | select.POLLHUP)
    return hangup


async def run_task(launch: TaskLaunch) -> dict[str, str]:
    """Connect to the worker, run the task loop to completion and report how it ended.

    Raises `ControlChannelLost` when the channel broke (the Spark task fails with it), and the
    task's own error when it failed and the worker could not be told.
    """
    spec = launch.spec
    reader, writer = await asyncio.open_connection(launch.host, launch.port, limit=MAX_LINE)
    control = SocketTaskControl(reader, writer, spec.target_state)
    await control.send(
        {
            "type": "hello",
            "token": launch.token,
            "task": str(spec.id),
            "generation": spec.generation,
            "pid": os.getpid(),
            "host": socket.gethostname(),
        }
    )
    hello = await read_message(reader)
    if hello is None or hello.get("type") != "target":
        raise ConnectionError(f"the worker refused task {spec.id}'s control connection")
    control._set_target(TargetState(hello["state"]))
    listener = asyncio.create_task(control.read_loop())
    try:
        return await _run_and_report(spec, control)
    finally:
        listener.cancel()
        writer.close()
        try:
            await writer.wait_closed()
        except ConnectionError:
            pass


async def _run_and_report(spec: TaskSpec, control: SocketTaskControl) -> dict[str, str]:
    try:
        await run_loop(spec, control)
    except Exception as error:
        if control.lost is not None:
            raise control._lost_error() from error
        log.exception("Task %s failed", spec.id)
        trace = traceback.format_exc()
        if isinstance(error, PluginError):
            trace = f"{plugin_missing(spec)}\n\n{trace}"
        await control.send({"type": "failed", "trace": trace})
        return {"task": str(spec.id), "outcome": "failed"}
    if control.lost is not None:
        raise control._lost_error()
    await control.send({"type": "stopped"})
    return {"task": str(spec.id), "outcome": "stopped"}


def plugin_missing(spec: TaskSpec) -> str:
    """The headline of a task whose plugin the executor's Python cannot load (a cluster node without it)."""
    return (
        f"Task {spec.id} could not load its connector's plugin in Spark's Python worker (Python "
        f"{sys.executable} on host {socket.gethostname()}): kconnect and the plugin must be installed "
        f"in the executors' Python (spark.pyspark.python), the same environment at the same path on "
        f"every node"
    )


def refuse_rerun(label: str, attempt: int) -> None:
    """Raise `TaskRerunRefused` unless this is the first attempt of the Spark task `label` names
    (``task <id>`` for a Spark task of one connector task, else ``Spark task host <n>``).

    Spark re-runs a task whose executor was lost (a dead cluster worker) without counting a
    failure, whatever ``spark.task.maxFailures`` says. The first attempt may have been running
    the connector task a moment ago, so a second one must not: it fails, which fails the job, and
    the worker shows FAILED with the lost executor's error until the user restarts the task.
    """
    if attempt > 0:
        raise TaskRerunRefused(
            f"Spark started attempt {attempt} of {label}'s Spark task after an earlier attempt "
            f"ended without the worker's stop (its executor was lost); a connector task never runs "
            f"twice, so this attempt does not run it"
        )


async def run_host(launch: HostLaunch) -> dict[str, str]:
    """Host connector tasks in this Spark task until the worker closes the host.

    The host connection carries placement only: ``run`` (a `TaskLaunch`, `encode_launch`: the task then
    opens its own connection, as any task does), ``cancel`` (abandon a task that did not stop in
    time) and ``close`` (return once the tasks running here ended). Each task that ends is
    reported as ``ended`` with its error, if it raised, and every `LOAD_REPORT_INTERVAL_S` the host
    reports its ``load`` (`report_load`). Plugin calls run in threads
    (`asyncio.to_thread`), so a task blocked in `poll` or `put` never stalls its neighbours' Kafka
    I/O; the pool has a thread for every hosted task to be inside one at once.
    """
    loop = asyncio.get_running_loop()
    loop.set_default_executor(ThreadPoolExecutor(max_workers=2 * launch.capacity + 4))
    reader, writer = await asyncio.open_connection(launch.host, launch.port, limit=MAX_LINE)
    hello = {"type": "host", "token": launch.token, "pid": os.getpid(), "host": socket.gethostname()}
    writer.write(encode(hello))
    running: dict[str, asyncio.Task[dict[str, str]]] = {}

    def ended(token: str, task: asyncio.Task[dict[str, str]]) -> None:
        running.pop(token, None)
        error = None
        if task.cancelled():
            error = "the worker abandoned the task after it did not stop in time"
        elif (raised := task.exception()) is not None:
            error = "".join(traceback.format_exception(raised))
        if not writer.is_closing():
            writer.write(encode({"type": "ended", "task": token, "error": error}))

    reporter = asyncio.create_task(report_load(writer), name="kconnect-host-load")
    try:
        while (message := await read_message(reader)) is not None:
            kind = message.get("type")
            if kind == "run":
                task_launch: TaskLaunch = pickle.loads(base64.b64decode(message["launch"]))
                task = asyncio.create_task(run_task(task_launch), name=f"kconnect-task-{task_launch.spec.id}")
                running[task_launch.token] = task
                task.add_done_callback(functools.partial(ended, task_launch.token))
            elif kind == "cancel" and (victim := running.get(str(message.get("task")))) is not None:
                victim.cancel()
            elif kind == "close":
                break
    except (ConnectionError, ValueError) as exc:
        log.error("Host connection of %s to the worker lost (%r); its tasks stop", launch.label, exc)
    finally:
        if running:
            await asyncio.wait(list(running.values()))
        reporter.cancel()
        writer.close()
    return {"host": launch.label, "outcome": "closed"}


async def report_load(writer: asyncio.StreamWriter, interval_s: float = LOAD_REPORT_INTERVAL_S) -> None:
    """Every `interval_s`, tell the worker the share of a core this process used since the last
    report (CPU time of all its threads over wall time): ``{"type": "load", "cpu": 0.93}``."""
    cpu, at = time.process_time(), time.monotonic()
    while not writer.is_closing():
        await asyncio.sleep(interval_s)
        now_cpu, now = time.process_time(), time.monotonic()
        writer.write(encode({"type": "load", "cpu": round((now_cpu - cpu) / max(now - at, 1e-3), 3)}))
        cpu, at = now_cpu, now


def run_partition(rows: Iterator[bytes]) -> Iterator[dict[str, str]]:
    """Spark's entry point: each row is a pickled HostLaunch; host tasks until closed, then summarise."""
    from pyspark import TaskContext

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    context = TaskContext.get()
    for row in rows:
        launch: HostLaunch = pickle.loads(row)
        refuse_rerun(launch.label, context.attemptNumber() if context is not None else 0)
        yield asyncio.run(run_host(launch))
