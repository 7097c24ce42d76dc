"""The worker side of the control channel: Spark tasks connect here and report back.

One TCP server per worker (started by `SparkExecutor.start`). Two kinds of connection arrive: a
*host* connection from each hosting Spark task (`host_run.HostRun`), over which the worker places
tasks and the host says when one ended, and a *task* connection from each task loop. Each host
and each task run gets a random token;
a connection that does not present a known token is closed, and so is a second connection for a
run that already had one (Spark must never run one task twice). Messages become `TaskListener`
calls on the worker's event loop; a request the listener cannot serve (the offset store failed)
gets an ``error`` reply, which the task raises. When a connection ends without the task's last
word (``stopped`` / ``failed``), the run records the channel as lost and the executor is told.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from kconnect.errors import RetriableError
from kconnect.executor import TaskListener

from kconnect_spark.channel import MAX_LINE, encode, read_message
from kconnect_spark.host_run import HostRun
from kconnect_spark.task_run import TaskRun

log = logging.getLogger(__name__)

RunCallback = Callable[[TaskRun], None]
HostCallback = Callable[[HostRun], None]
EndedCallback = Callable[[TaskRun, "str | None"], None]


class ControlServer:
    """Accepts task connections and dispatches their messages to the listener."""

    def __init__(
        self,
        listener: TaskListener,
        on_connected: RunCallback = lambda run: None,
        on_disconnected: RunCallback = lambda run: None,
        on_host_connected: HostCallback = lambda host: None,
        on_task_ended: EndedCallback = lambda run, error: None,
    ) -> None:
        """`on_connected` / `on_disconnected` let the executor follow each run's connection;
        `on_host_connected` and `on_task_ended` each host's connection and what it reports."""
        self._listener = listener
        self._on_connected = on_connected
        self._on_disconnected = on_disconnected
        self._on_host_connected = on_host_connected
        self._on_task_ended = on_task_ended
        self._runs: dict[str, TaskRun] = {}
        self._hosts: dict[str, HostRun] = {}
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
        """Forget a finished task run: a late connection with its token is refused."""
        self._runs.pop(run.token, None)

    def add_host(self, host: HostRun) -> None:
        """Expect a connection from this hosting Spark task."""
        self._hosts[host.token] = host

    def remove_host(self, host: HostRun) -> None:
        """Forget an ended host."""
        self._hosts.pop(host.token, None)

    async def close(self) -> None:
        """Stop listening."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        run: TaskRun | None = None
        reason = "the task closed the connection"
        try:
            hello = await read_message(reader)
            if hello is not None and hello.get("type") == "host":
                await self._serve_host(hello, reader, writer)
                return
            run = self._accept(hello, writer)
            if run is None:
                return
            while (message := await read_message(reader)) is not None:
                await self._dispatch(run, message, writer)
        except (ConnectionError, ValueError) as exc:
            reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        except Exception as exc:
            # A report the worker could not take in must not vanish: the run counts as having lost
            # its channel (the task stops itself), so its end is reported FAILED with this reason.
            log.exception("Could not handle a report from task %s", run.id if run is not None else "?")
            reason = f"the worker could not handle the task's report: {type(exc).__name__}: {exc}"
        finally:
            if run is not None and run.writer is writer:
                self._disconnected(run, reason)
            writer.close()

    async def _serve_host(
        self, hello: dict[str, Any], reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        """A hosting Spark task: attach it, then hand its ``ended`` reports to the executor and
        keep its ``load`` reports on the host (placement reads them)."""
        host = self._hosts.get(str(hello.get("token")))
        if host is None or host.writer is not None:
            log.warning("Refused a host connection without a valid, unused host token")
            return
        host.writer = writer
        log.info(
            "Spark task host %d runs in Spark's %s process %s on %s",
            host.order,
            "executor JVM" if hello.get("runtime") == "java" else "Python worker",
            hello.get("pid", "?"),
            hello.get("host", "?"),
        )
        self._on_host_connected(host)
        try:
            while (message := await read_message(reader)) is not None:
                kind = message.get("type")
                if kind == "load":
                    host.measured(float(message["cpu"]))
                elif kind == "ended" and (run := self._runs.get(str(message.get("task")))) is not None:
                    error = message.get("error")
                    self._on_task_ended(run, None if error is None else str(error))
        except (ConnectionError, ValueError) as exc:
            log.warning("Host connection of Spark task host %d lost: %r", host.order, exc)
        finally:
            host.writer = None

    def _accept(self, hello: dict[str, Any] | None, writer: asyncio.StreamWriter) -> TaskRun | None:
        run = self._runs.get(str(hello.get("token"))) if hello and hello.get("type") == "hello" else None
        if hello is None or run is None:
            log.warning("Refused a control connection without a valid task token")
            return None
        where = f"process {hello.get('pid', '?')} on {hello.get('host', '?')}"
        if run.connected:
            log.warning(
                "Refused a second control connection for task %s (from %s): this task run already "
                "has one, and a task must never run twice",
                run.id,
                where,
            )
            return None
        run.connected = True
        run.writer = writer
        peer = writer.get_extra_info("peername")
        # A Java task (kconnect_spark.java_job) runs in the executor's JVM itself.
        runner = "executor JVM" if hello.get("runtime") == "java" else "Python worker"
        log.info(
            "Task %s (generation %d) runs in Spark's %s %s (control connection from %s)",
            run.id,
            run.spec.generation,
            runner,
            where,
            ":".join(map(str, peer[:2])) if peer else "?",
        )
        run.send_target()
        self._on_connected(run)
        return run

    def _disconnected(self, run: TaskRun, reason: str) -> None:
        run.writer = None
        if run.reported is None and not run.stop_requested:
            run.channel_lost = reason
            log.warning("Control channel to task %s lost: %s", run.id, reason)
        run.disconnected.set()
        self._on_disconnected(run)

    async def _dispatch(self, run: TaskRun, message: dict[str, Any], writer: asyncio.StreamWriter) -> None:
        kind = message.get("type")
        task, generation = run.id, run.spec.generation
        if kind == "running":
            self._listener.on_running(task, generation)
        elif kind == "paused":
            self._listener.on_paused(task, generation)
        elif kind == "failed":
            self._listener.on_failed(task, generation, str(message.get("trace", "")))
            run.reported = "failed"  # only once the listener has it, else the run's end reports it
        elif kind == "stopped":
            run.reported = "stopped"  # reported when the Spark job ends: the Spark task is gone too
        elif kind == "topic":
            self._listener.on_topic_used(task, str(message["topic"]))
        elif kind == "metrics":
            self._listener.on_task_metrics(task, message["metrics"])
        elif kind == "stall":
            stalled_s = float(message.get("stalled_s", 0.0))
            if message.get("reason") is None:
                self._listener.on_stall_ended(task, generation, stalled_s)
            else:
                self._listener.on_stalled(task, generation, str(message["reason"]), stalled_s)
        elif kind == "commit":
            offsets = [(p, o) for p, o in message["offsets"]]
            await self._answer(writer, message["id"], self._listener.on_commit_source_offsets(task, offsets))
        elif kind == "read_offsets":
            read = self._listener.read_source_offsets(task, message["partitions"])
            await self._answer(writer, message["id"], read, lambda r: [dict(o) if o else None for o in r])
        else:
            log.warning("Unknown control message %r from %s", kind, task)

    @staticmethod
    async def _answer(
        writer: asyncio.StreamWriter,
        request_id: Any,
        call: Any,
        encode_result: Callable[[Any], Any] = lambda result: True,
    ) -> None:
        """Reply to request `request_id` with the call's result, or with its error."""
        try:
            result = await call
        except Exception as exc:
            error = {"type": "error", "id": request_id, "error": f"{type(exc).__name__}: {exc}"}
            writer.write(encode({**error, "retriable": isinstance(exc, RetriableError)}))
            return
        writer.write(encode({"type": "reply", "id": request_id, "result": encode_result(result)}))
