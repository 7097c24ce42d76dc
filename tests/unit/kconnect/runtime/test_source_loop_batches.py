"""SourceLoop taking a task's polls as columns (`SourceTask.poll_batch`), with a fake producer:
the same bytes in the same order as `poll`, one offset per batch committed once all its records
are acknowledged, and `poll` wherever something needs a record object per record."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from aiokafka.partitioner import DefaultPartitioner
from kconnect import SourceBatch
from kconnect.data.schema import STRING_SCHEMA
from kconnect.errors import ConnectError
from kconnect.model import TargetState
from kconnect.runtime.source_loop import SourceLoop

from tests.connectors import BlockingBatchPollTask, ScriptedBatchSourceTask, source_connector
from tests.unit.kconnect.runtime.loop_fakes import (
    FakeProducer,
    MemoryControl,
    plugin_host,
    task_spec,
    wait_until,
)

A = {"file": "a"}
B = {"file": "b"}
HOUR_INTERVAL = {"offset.flush.interval.ms": "3600000"}

Connector = source_connector(ScriptedBatchSourceTask)
_HOST: list[Any] = []


def batch(
    values: Sequence[Any],
    partition: Mapping[str, Any] | None = A,
    position: int | None = 0,
    kafka_partition: int | None = 0,
    keys: Sequence[Any] | None = None,
) -> SourceBatch:
    return SourceBatch(
        topic="t",
        values=list(values),
        value_schema=STRING_SCHEMA,
        keys=keys,
        key_schema=STRING_SCHEMA if keys is not None else None,
        kafka_partition=kafka_partition,
        source_partition=partition,
        source_offset={"position": position} if position is not None else None,
    )


def make_loop(
    control: MemoryControl,
    producer: FakeProducer,
    script: list[list[SourceBatch]],
    config: Mapping[str, str] | None = None,
    stop_when_done: bool = True,
    worker: Mapping[str, str] | None = None,
) -> SourceLoop:
    if not _HOST:
        _HOST.append(plugin_host(Connector))
    spec = task_spec("source", Connector, ScriptedBatchSourceTask, config, worker)
    loop = SourceLoop(spec, control, _HOST[0], producer)
    task = loop.task
    assert isinstance(task, ScriptedBatchSourceTask)
    task.script, task.control, task.stop_when_done = list(script), control, stop_when_done
    return loop


def polled_as(loop: SourceLoop) -> str:
    task = loop.task
    assert isinstance(task, ScriptedBatchSourceTask)
    assert not (task.batch_polls and task.record_polls), "one way per run"
    return "poll_batch" if task.batch_polls else "poll"


async def test_batches_are_sent_in_order_and_each_offset_committed_once_acknowledged() -> None:
    control, producer = MemoryControl(), FakeProducer(batch_capacity=4)
    script = [[batch(["v1", "v2", "v3"], position=3)], [batch([f"v{i}" for i in range(4, 11)], position=10)]]
    loop = make_loop(control, producer, script)
    await loop.run()
    assert polled_as(loop) == "poll_batch"
    # The value converter (the string one) saw every value, in order.
    assert producer.values("t", 0) == [f"v{i}".encode() for i in range(1, 11)]
    assert [len(s.batch.records) for s in producer.sent] == [3, 4, 3], "a batch spans producer batches"
    assert control.stored_offset(A) == {"position": 10}
    metrics = loop.metrics.snapshot()["source-task-metrics"]
    assert metrics["source-record-poll-total"] == 10 and metrics["source-record-write-total"] == 10
    assert loop.records_sent == 10 and not loop.submitted.pending


async def test_a_batch_is_committed_only_once_every_record_of_it_is_acknowledged() -> None:
    control, producer = MemoryControl(), FakeProducer(batch_capacity=2, auto_ack=False)
    loop = make_loop(control, producer, [[batch(["a", "b", "c"], position=3)]], stop_when_done=False)
    loop.flush_interval_s = 0.01
    run = asyncio.create_task(loop.run())
    await wait_until(lambda: len(producer.sent) == 2)
    producer.answer(producer.sent[0])  # "a" and "b": two of the three
    await asyncio.sleep(0.1)  # several flush intervals
    assert control.stored_offset(A) is None, "the batch's offset is after its last record"
    assert loop.submitted.pending == 1
    producer.answer(producer.sent[1])
    await wait_until(lambda: control.stored_offset(A) == {"position": 3})
    control.set(TargetState.STOPPED)
    await asyncio.wait_for(run, 5)


async def test_a_failed_send_keeps_its_batch_uncommitted_and_other_partitions_go_on() -> None:
    control, producer = MemoryControl(), FakeProducer()
    producer.fail = {("t", 1)}
    poll = [batch(["a1"], A, 1, 0), batch(["a2", "a3"], A, 3, 1), batch(["b1"], B, 1, 0)]
    loop = make_loop(control, producer, [poll])
    with pytest.raises(RuntimeError, match="Kafka rejected 2 records for t-1: "):
        await loop.run()
    assert control.stored_offset(A) == {"position": 1}
    assert control.stored_offset(B) == {"position": 1}


async def test_keyed_batches_choose_each_records_partition_as_javas_producer() -> None:
    control, producer = MemoryControl(), FakeProducer(partitions=3)
    keys = ["alpha", "beta", "gamma", "delta"]
    loop = make_loop(
        control, producer, [[batch(["1", "2", "3", "4"], position=4, kafka_partition=None, keys=keys)]]
    )
    await loop.run()
    assert polled_as(loop) == "poll_batch"
    partitioner = DefaultPartitioner()
    for key, value in zip(keys, ["1", "2", "3", "4"], strict=True):
        expected = partitioner(key.encode(), [0, 1, 2], [0, 1, 2])
        assert value.encode() in producer.values("t", expected), (key, expected)
    assert control.stored_offset(A) == {"position": 4}


async def test_a_batch_without_records_still_commits_its_offset() -> None:
    control, producer = MemoryControl(), FakeProducer()
    loop = make_loop(control, producer, [[batch(["a"], position=1)], [batch([], position=7)]])
    await loop.run()
    assert producer.values("t") != [] and control.stored_offset(A) == {"position": 7}


async def test_offset_flush_records_counts_the_records_of_batches() -> None:
    control, producer = MemoryControl(), FakeProducer()
    script = [[batch([f"v{i}" for i in range(j, j + 5)], position=j + 4)] for j in range(1, 26, 5)]
    worker = {**HOUR_INTERVAL, "offset.flush.records": "10"}
    loop = make_loop(control, producer, script, stop_when_done=False, worker=worker)
    run = asyncio.create_task(loop.run())
    await wait_until(lambda: loop.task.batch_polls == 5 and not loop.submitted.pending)  # type: ignore[attr-defined]
    await wait_until(lambda: len(control.committed) == 2)
    positions = [offsets[-1][1]["position"] for offsets in control.committed]
    assert positions[0] >= 10 and positions[1] - positions[0] >= 10, positions
    control.set(TargetState.STOPPED)
    await asyncio.wait_for(run, 5)
    assert control.stored_offset(A) == {"position": 25}


async def test_a_value_the_converter_refuses_fails_the_task_and_sends_nothing_of_its_poll() -> None:
    control, producer = MemoryControl(), FakeProducer()
    poison = batch(["fine", 42, "never sent"], position=3)  # 42 is no string: JsonConverter refuses it
    json_values = {"value.converter": "org.apache.kafka.connect.json.JsonConverter"}
    loop = make_loop(control, producer, [[batch(["a"], position=1)], [poison]], json_values)
    with pytest.raises(ConnectError, match="Tolerance exceeded in error handler"):
        await loop.run()
    assert polled_as(loop) == "poll_batch"
    assert len(producer.values("t")) == 1
    assert control.stored_offset(A) == {"position": 1}, "what Kafka acknowledged is still committed"


@pytest.mark.parametrize(
    "config",
    [
        {"transforms": "f", "transforms.f.type": "DropOrFail"},
        {"errors.tolerance": "all"},
    ],
    ids=["transforms", "tolerance-all"],
)
async def test_poll_is_called_where_records_are_needed_and_sends_the_same(config: dict[str, str]) -> None:
    control, producer = MemoryControl(), FakeProducer()
    loop = make_loop(control, producer, [[batch(["v1", "v2", "v3"], position=3)]], config)
    await loop.run()
    assert polled_as(loop) == "poll"
    assert len(producer.values("t", 0)) == 3
    assert control.stored_offset(A) == {"position": 3}, "the batch's records carry its offset on the last"


async def test_a_stop_request_wakes_a_blocked_poll_batch_and_its_batch_is_sent_and_committed() -> None:
    BlockingBatchPoll = source_connector(BlockingBatchPollTask)
    control, producer = MemoryControl(), FakeProducer()
    spec = task_spec("source", BlockingBatchPoll, BlockingBatchPollTask)
    loop = SourceLoop(spec, control, plugin_host(BlockingBatchPoll), producer)
    task = loop.task
    assert isinstance(task, BlockingBatchPollTask)
    task.woken_records = batch(["x", "last"], position=7).records()
    run = asyncio.create_task(loop.run())
    await wait_until(lambda: task.names() == ["start", "poll"])

    control.set(TargetState.STOPPED)
    await asyncio.wait_for(run, 5)

    assert task.names() == ["start", "poll", "stop", "poll-returned"], "stop once, while poll_batch blocked"
    threads = dict(task.events)
    assert threads["stop"] != threads["poll"], "stop runs in another thread than the blocked poll_batch"
    assert producer.values("t") == [b"x", b"last"]
    assert control.stored_offset(A) == {"position": 7}
