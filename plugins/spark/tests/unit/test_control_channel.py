"""The control channel on loopback: the worker's `ControlServer` and the task's `SocketTaskControl`.

A recording listener stands in for the herder; everything else is the real code over a real socket.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from kconnect.config.worker_settings import WorkerSettings
from kconnect.executor import SourceOffset, SourcePartition, TaskSpec
from kconnect.model import ConnectorTaskId, TargetState
from kconnect_spark.channel import ControlChannelLost, WorkerError, encode, read_message
from kconnect_spark.control_server import ControlServer
from kconnect_spark.outcome import decide
from kconnect_spark.remote import SocketTaskControl
from kconnect_spark.task_run import TaskRun

TASK = ConnectorTaskId("c", 0)


@dataclass
class RecordingListener:
    """Records the calls; its offset store fails when `store_error` is set."""

    calls: list[tuple[Any, ...]] = field(default_factory=list)
    store_error: Exception | None = None

    def on_running(self, task: ConnectorTaskId, generation: int) -> None:
        self.calls.append(("running", task, generation))

    def on_paused(self, task: ConnectorTaskId, generation: int) -> None:
        self.calls.append(("paused", task, generation))

    def on_failed(self, task: ConnectorTaskId, generation: int, trace: str) -> None:
        self.calls.append(("failed", task, generation, trace))

    def on_stopped(self, task: ConnectorTaskId, generation: int) -> None:
        self.calls.append(("stopped", task, generation))

    def on_unassigned(self, task: ConnectorTaskId, generation: int, reason: str) -> None:
        self.calls.append(("unassigned", task, generation, reason))

    async def on_commit_source_offsets(
        self, task: ConnectorTaskId, offsets: Sequence[tuple[SourcePartition, SourceOffset | None]]
    ) -> None:
        if self.store_error is not None:
            raise self.store_error
        self.calls.append(("commit", task, list(offsets)))

    async def read_source_offsets(
        self, task: ConnectorTaskId, partitions: Sequence[SourcePartition]
    ) -> list[SourceOffset | None]:
        return [{"position": 7} for _ in partitions]

    def on_topic_used(self, task: ConnectorTaskId, topic: str) -> None:
        self.calls.append(("topic", task, topic))

    def on_task_metrics(self, task: ConnectorTaskId, metrics: Mapping[str, Mapping[str, float]]) -> None:
        self.calls.append(("metrics", task, metrics))

    def on_stalled(self, task: ConnectorTaskId, generation: int, reason: str, stalled_s: float) -> None:
        self.calls.append(("stalled", task, generation, reason, stalled_s))

    def on_stall_ended(self, task: ConnectorTaskId, generation: int, stalled_s: float) -> None:
        self.calls.append(("stall ended", task, generation, stalled_s))


@dataclass
class Channel:
    """A server with one expected run, and helpers to connect to it as a task."""

    server: ControlServer
    listener: RecordingListener
    run: TaskRun
    connected: list[TaskRun] = field(default_factory=list)

    async def connect(self, token: str | None = None) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.server.port)
        writer.write(encode({"type": "hello", "token": token or self.run.token, "pid": 4242, "host": "h"}))
        await writer.drain()
        return reader, writer

    async def task_control(self) -> tuple[SocketTaskControl, asyncio.Task[None]]:
        reader, writer = await self.connect()
        hello = await read_message(reader)
        assert hello == {"type": "target", "state": "STARTED"}
        control = SocketTaskControl(reader, writer, TargetState.STARTED)
        return control, asyncio.create_task(control.read_loop())


@pytest.fixture
async def channel() -> AsyncIterator[Channel]:
    listener = RecordingListener()
    connected: list[TaskRun] = []
    server = ControlServer(listener, on_connected=connected.append)
    await server.start("127.0.0.1")
    spec = TaskSpec(TASK, "source", "x.Task", {}, {}, WorkerSettings.from_props({}), generation=3)
    run = TaskRun(spec, TargetState.STARTED)
    server.add(run)
    yield Channel(server, listener, run, connected)
    await server.close()


async def _eventually(check: Any, timeout: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        assert asyncio.get_running_loop().time() < deadline, "condition not reached"
        await asyncio.sleep(0.01)


async def test_reports_reach_the_listener_and_requests_get_replies(channel: Channel) -> None:
    control, reading = await channel.task_control()
    await control.report_running()
    await control.commit_source_offsets([({"file": "f"}, {"position": 1})])
    assert await control.read_source_offsets([{"file": "f"}]) == [{"position": 7}]
    assert channel.listener.calls[:2] == [
        ("running", TASK, 3),
        ("commit", TASK, [({"file": "f"}, {"position": 1})]),
    ]
    assert channel.connected == [channel.run]
    reading.cancel()


async def test_a_stall_and_its_end_reach_the_listener_with_the_runs_generation(channel: Channel) -> None:
    control, reading = await channel.task_control()
    await control.report_stall("poll() has not returned for 2 s", 2.0)
    await control.report_stall(None, 5.5)
    await _eventually(lambda: len(channel.listener.calls) == 2)
    assert channel.listener.calls == [
        ("stalled", TASK, 3, "poll() has not returned for 2 s", 2.0),
        ("stall ended", TASK, 3, 5.5),
    ]
    reading.cancel()


async def test_a_failed_offset_store_write_is_raised_in_the_task(channel: Channel) -> None:
    channel.listener.store_error = OSError("offsets file /x/connect.offsets: Permission denied")
    control, reading = await channel.task_control()
    with pytest.raises(WorkerError, match=r"OSError: offsets file /x/connect.offsets: Permission denied"):
        await control.commit_source_offsets([({"file": "f"}, {"position": 1})])
    assert control.lost is None, "an error reply is an answer, not a broken channel"
    assert not [c for c in channel.listener.calls if c[0] == "commit"]
    reading.cancel()


async def test_a_second_connection_for_a_run_is_refused_and_logged(
    channel: Channel, caplog: pytest.LogCaptureFixture
) -> None:
    control, reading = await channel.task_control()
    with caplog.at_level(logging.WARNING, logger="kconnect_spark.control_server"):
        reader, writer = await channel.connect()
        assert await read_message(reader) is None, "the second connection must be closed unanswered"
    assert any(
        "Refused a second control connection for task c-0" in r.getMessage()
        and "process 4242 on h" in r.getMessage()
        for r in caplog.records
    )
    writer.close()
    # The first connection is untouched by the refusal.
    await control.report_paused()
    await _eventually(lambda: ("paused", TASK, 3) in channel.listener.calls)
    assert channel.run.channel_lost is None and channel.connected == [channel.run]
    reading.cancel()


async def test_an_unknown_token_is_refused(channel: Channel) -> None:
    reader, writer = await channel.connect(token="not-a-token")
    assert await read_message(reader) is None
    writer.close()
    assert not channel.run.connected


async def test_the_worker_closing_the_channel_stops_the_task_and_fails_its_requests(channel: Channel) -> None:
    control, reading = await channel.task_control()
    await _eventually(lambda: channel.run.writer is not None)
    assert channel.run.writer is not None
    assert not control.worker_lost
    channel.run.writer.close()
    await asyncio.wait_for(reading, 5)
    assert control.target is TargetState.STOPPED
    assert control.lost == "the worker closed the connection"
    assert control.worker_lost, "the source loop then sends nothing more"
    with pytest.raises(ControlChannelLost, match="control channel to the worker lost"):
        await control.commit_source_offsets([({"file": "f"}, {"position": 1})])
    with pytest.raises(ControlChannelLost):
        await control.report_running()


async def test_a_request_in_flight_when_the_channel_breaks_fails_at_once(channel: Channel) -> None:
    control, reading = await channel.task_control()
    blocked = asyncio.Event()

    async def slow_commit(task: ConnectorTaskId, offsets: Any) -> None:
        blocked.set()
        await asyncio.sleep(3600)

    channel.listener.on_commit_source_offsets = slow_commit  # type: ignore[method-assign]
    commit = asyncio.create_task(control.commit_source_offsets([({"file": "f"}, {"position": 1})]))
    await asyncio.wait_for(blocked.wait(), 5)
    assert channel.run.writer is not None
    channel.run.writer.transport.abort()
    with pytest.raises(ControlChannelLost):
        await asyncio.wait_for(commit, 5)
    reading.cancel()


async def test_worker_lost_sees_the_worker_gone_before_the_read_loop_does() -> None:
    # A source loop sending a poll may not yield to the event loop: the socket itself is asked.
    task_end, worker_end = socket.socketpair()
    reader, writer = await asyncio.open_connection(sock=task_end)
    control = SocketTaskControl(reader, writer, TargetState.STARTED)  # no read_loop running
    assert not control.worker_lost
    worker_end.close()
    assert control.worker_lost
    assert control.target is TargetState.STOPPED
    writer.close()


async def test_a_task_connection_ending_without_a_last_word_is_a_lost_channel(channel: Channel) -> None:
    control, reading = await channel.task_control()
    await control.report_running()
    reading.cancel()
    control._writer.transport.abort()
    await asyncio.wait_for(channel.run.disconnected.wait(), 5)
    assert channel.run.channel_lost is not None
    assert channel.run.writer is None


async def test_a_task_that_said_stopped_has_not_lost_its_channel(channel: Channel) -> None:
    control, reading = await channel.task_control()
    await control.send({"type": "stopped"})
    await _eventually(lambda: channel.run.reported == "stopped")
    control._writer.close()
    await asyncio.wait_for(channel.run.disconnected.wait(), 5)
    assert channel.run.channel_lost is None
    reading.cancel()


async def test_a_failure_report_the_worker_could_not_take_in_is_reported_when_the_run_ends(
    channel: Channel, caplog: pytest.LogCaptureFixture
) -> None:
    def refuse(task: ConnectorTaskId, generation: int, trace: str) -> None:
        raise RuntimeError("listener broke")

    channel.listener.on_failed = refuse  # type: ignore[method-assign]
    control, reading = await channel.task_control()
    await control.send({"type": "failed", "trace": "Traceback: converter not installed"})
    await asyncio.wait_for(channel.run.disconnected.wait(), 5)
    assert channel.run.reported is None, "the failure never reached the herder: the run's end must report it"
    assert channel.run.channel_lost == (
        "the worker could not handle the task's report: RuntimeError: listener broke"
    )
    report = decide(channel.run.end())
    assert report is not None and report.state == "FAILED"
    assert "listener broke" in (report.trace or "")
    assert "Could not handle a report from task c-0" in caplog.text
    reading.cancel()
