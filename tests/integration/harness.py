"""Fixtures of the REST API's end-to-end tests: one shared worker, and connectors cleaned up per test.

Starting a worker costs Spark's start-up (~10 s) and memory, so the REST tests share one
session-scoped worker (`rest_worker`) and keep their state apart with unique connector names
(`connectors.name()`); every connector a test creates is deleted when the test ends.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from tests.worker_process import WorkerProcess, count_lines


def path_of(name: str) -> str:
    """A connector's path, URL-encoded (spaces, Unicode and ``/`` included)."""
    return f"/connectors/{quote(name, safe='')}"


def lines(start: int, stop: int) -> str:
    """Numbered lines ``line <i>``, each ending in a newline."""
    return "".join(f"line {i}\n" for i in range(start, stop))


async def produce_records(
    bootstrap: str, topic: str, records: list[tuple[bytes, list[tuple[str, bytes]]]]
) -> None:
    """Send each `(value, headers)` to `topic` with key ``k``, waiting for every acknowledgement."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
    await producer.start()
    try:
        for value, headers in records:
            await producer.send_and_wait(topic, value, key=b"k", headers=headers)
    finally:
        await producer.stop()


async def end_offset(bootstrap: str, topic: str) -> int:
    """The end offset of `topic`'s partition 0: every record and transaction marker written so far."""
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap)
    await consumer.start()
    try:
        partition = TopicPartition(topic, 0)
        return int((await consumer.end_offsets([partition]))[partition])
    finally:
        await consumer.stop()


async def consume_records(bootstrap: str, topic: str, count: int) -> list[Any]:
    """The first `count` records of `topic`, read from the earliest offset (a minute per fetch at most)."""
    consumer = AIOKafkaConsumer(topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest")
    await consumer.start()
    try:
        messages: list[Any] = []
        while len(messages) < count:
            batch = await asyncio.wait_for(consumer.getmany(timeout_ms=500), 60)
            messages += [m for part in batch.values() for m in part]
        return messages
    finally:
        await consumer.stop()


async def consume_to_end(bootstrap: str, topic: str, count: int, timeout: float = 120.0) -> list[Any]:
    """Every record of `topic` once it holds at least `count` (waiting for the topic to appear and
    fill), read up to its partitions' end offsets then, so a record written twice shows."""
    consumer = AIOKafkaConsumer(topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest")
    await consumer.start()
    try:
        found: list[Any] = []
        async with asyncio.timeout(timeout):
            while len(found) < count:
                batch = await consumer.getmany(timeout_ms=500)
                found += [m for part in batch.values() for m in part]
            ends = await consumer.end_offsets(list(consumer.assignment()))
            while len(found) < sum(ends.values()):
                batch = await consumer.getmany(timeout_ms=500)
                found += [m for part in batch.values() for m in part]
        return found
    finally:
        await consumer.stop()


def wait_until(what: str, check: Callable[[], bool], worker: WorkerProcess, timeout: float = 90.0) -> None:
    """`worker.wait_for` for checks that may raise AssertionError while the state settles."""

    def settled() -> bool:
        try:
            return check()
        except AssertionError:
            return False

    worker.wait_for(what, settled, timeout)


@pytest.fixture(scope="session")
def rest_worker(tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str) -> Iterator[WorkerProcess]:
    """One real `kconnect standalone` worker on the session broker, shared by the REST API tests."""
    workdir = tmp_path_factory.mktemp("rest-worker")
    worker = WorkerProcess(
        workdir,
        {
            "bootstrap.servers": kafka_bootstrap,
            "offset.storage.file.filename": str(workdir / "connect.offsets"),
            "offset.flush.interval.ms": "500",
        },
    ).start()
    yield worker
    worker.stop()


class Connectors:
    """Creates connectors on a worker under unique names and deletes them when the test ends."""

    def __init__(self, worker: WorkerProcess, workdir: Path, topic: str) -> None:
        self.worker = worker
        self.workdir = workdir
        self.topic = topic
        self.created: list[str] = []

    def name(self, stem: str = "c") -> str:
        """A connector name no other test uses; deleted at the end of the test if it exists."""
        name = f"{stem}-{uuid.uuid4().hex[:8]}"
        self.created.append(name)
        return name

    def create(self, name: str, config: dict[str, str], **extra: Any) -> dict[str, Any]:
        """POST a connector; asserts the 201 and returns the ConnectorInfo."""
        if name not in self.created:
            self.created.append(name)
        response = self.worker.request("POST", "/connectors", {"name": name, "config": config, **extra})
        assert response.status_code == 201, (response.status_code, response.text)
        return dict(response.json())

    def source(self, name: str, file: Path, topic: str | None = None, **extra: Any) -> dict[str, Any]:
        """A FileStreamSource reading `file` into `topic` (the test's topic by default)."""
        config = {"connector.class": "FileStreamSource", "file": str(file), "topic": topic or self.topic}
        return self.create(name, config, **extra)

    def sink(self, name: str, file: Path, topic: str | None = None, **extra: Any) -> dict[str, Any]:
        """A FileStreamSink writing `topic` (the test's topic by default) to `file`."""
        config = {"connector.class": "FileStreamSink", "file": str(file), "topics": topic or self.topic}
        return self.create(name, config, **extra)

    def pipeline(self, count: int) -> tuple[str, str, Path, Path]:
        """A source and a sink through the test's topic with `count` lines delivered end to end."""
        source_file, sink_file = self.workdir / "in.txt", self.workdir / "out.txt"
        source_file.write_text(lines(0, count), encoding="utf-8")
        source, sink = self.name("src"), self.name("sink")
        self.source(source, source_file)
        self.sink(sink, sink_file)
        self.worker.wait_for(f"{count} lines in the sink file", lambda: count_lines(sink_file) == count)
        return source, sink, source_file, sink_file

    def delete_all(self) -> None:
        for name in self.created:
            self.worker.request("DELETE", path_of(name))


@pytest.fixture
def connectors(rest_worker: WorkerProcess, tmp_path: Path, unique_topic: str) -> Iterator[Connectors]:
    """A `Connectors` on the shared worker, with this test's tmp dir and topic."""
    created = Connectors(rest_worker, tmp_path, unique_topic)
    yield created
    created.delete_all()


def wait_seconds(seconds: float) -> None:
    """Sleep while checking that nothing happens (records must not flow)."""
    time.sleep(seconds)
