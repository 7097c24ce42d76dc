"""SourceLoop under exactly-once support, with a fake transactional producer: what goes in which
transaction, that the worker's offset store is not asked, and that a failed send aborts."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from kconnect import SourceRecord
from kconnect.data.schema import STRING_SCHEMA
from kconnect.kafka.offset_records import offset_key
from kconnect.runtime.source_loop import SourceLoop

from tests.connectors import ScriptedSourceTask, source_connector
from tests.unit.kconnect.runtime.loop_fakes import (
    FakeBatch,
    FakeProducer,
    MemoryControl,
    plugin_host,
    task_spec,
)

A = {"file": "a"}
WORKER = {"group.id": "cluster", "exactly.once.source.support": "enabled", "offset.storage.topic": "offs"}
Connector = source_connector(ScriptedSourceTask)


class TransactionalFakeProducer(FakeProducer):
    """A FakeProducer that also logs batches, offset records and transaction calls in order."""

    def __init__(self) -> None:
        super().__init__()
        self.log: list[Any] = []
        self.refuse_commit: Exception | None = None

    async def send_batch(self, batch: FakeBatch, topic: str, *, partition: int) -> asyncio.Future[Any]:
        self.log.append(("batch", topic, len(batch.records)))
        return await super().send_batch(batch, topic, partition=partition)

    async def begin_transaction(self) -> None:
        self.log.append("begin")

    async def commit_transaction(self) -> None:
        await self.flush()
        failed = [s for s in self.sent if s.future.exception() is not None]
        if failed:
            raise failed[0].future.exception()  # type: ignore[misc]
        if self.refuse_commit is not None:
            raise self.refuse_commit
        self.log.append("commit")

    async def abort_transaction(self) -> None:
        self.log.append("abort")

    async def send(self, topic: str, value: bytes | None = None, key: bytes | None = None) -> Any:
        self.log.append(("offset", topic, key, value))


def rec(value: str, position: int) -> SourceRecord:
    return SourceRecord(
        topic="t",
        kafka_partition=0,
        value_schema=STRING_SCHEMA,
        value=value,
        source_partition=A,
        source_offset={"position": position},
    )


def make_loop(control: MemoryControl, producer: FakeProducer, script: list[list[SourceRecord]]) -> SourceLoop:
    spec = task_spec("source", Connector, ScriptedSourceTask, worker=WORKER)
    loop = SourceLoop(spec, control, plugin_host(Connector), producer)
    task = loop.task
    assert isinstance(task, ScriptedSourceTask)
    task.script, task.control, task.polls = list(script), control, 0
    return loop


def offset(position: int) -> tuple[str, str, bytes, bytes]:
    return ("offset", "offs", offset_key("c", A), f'{{"position":{position}}}'.encode())


async def test_each_poll_is_one_transaction_with_its_offsets_and_the_worker_store_is_not_asked() -> None:
    control, producer = MemoryControl(), TransactionalFakeProducer()
    loop = make_loop(control, producer, [[rec("v1", 1), rec("v2", 2)], [rec("v3", 3)]])
    await loop.run()
    assert producer.log == [
        "begin", ("batch", "t", 2), offset(2), "commit",
        "begin", ("batch", "t", 1), offset(3), "commit",
    ]  # fmt: skip
    assert control.committed == [], "offsets travel in the task's transactions, not through the worker"
    assert loop.task.commits == 2  # type: ignore[attr-defined]
    assert [v for v, _ in loop.task.committed_records] == ["v1", "v2", "v3"]  # type: ignore[attr-defined]


async def test_commit_record_waits_for_the_transaction_to_commit() -> None:
    control, producer = MemoryControl(), TransactionalFakeProducer()
    producer.refuse_commit = RuntimeError("ProducerFenced")
    loop = make_loop(control, producer, [[rec("v1", 1)]])
    with pytest.raises(RuntimeError, match="ProducerFenced"):
        await loop.run()
    assert producer.sent and producer.sent[0].future.done(), "Kafka acknowledged the record"
    assert loop.task.committed_records == [], "but its transaction never committed"  # type: ignore[attr-defined]


async def test_a_failed_send_aborts_the_transaction_and_fails_the_task() -> None:
    control, producer = MemoryControl(), TransactionalFakeProducer()
    producer.fail = {("t", 0)}
    loop = make_loop(control, producer, [[rec("v1", 1)]])
    with pytest.raises(RuntimeError, match=r"failed to commit its producer transaction .*cluster-c-0"):
        await loop.run()
    assert "commit" not in producer.log and producer.log[-1] == "abort"
    assert control.committed == []
