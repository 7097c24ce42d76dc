"""SourceLoop's logic with a fake producer: order, what is committed when, drops, errors, pause."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest
from kconnect import SourceRecord
from kconnect.data.schema import STRING_SCHEMA
from kconnect.errors import ConnectError, RetriableError
from kconnect.model import TargetState
from kconnect.runtime.source_loop import SourceLoop
from kconnect.storage import StoreError

from tests.connectors import BlockingPollSource, BlockingPollTask, ScriptedSourceTask, source_connector
from tests.unit.kconnect.runtime.loop_fakes import (
    FakeProducer,
    MemoryControl,
    plugin_host,
    task_spec,
    wait_until,
)

A = {"file": "a"}
B = {"file": "b"}


def rec(
    value: str, partition: Mapping[str, Any] = A, position: int = 0, kafka_partition: int | None = 0
) -> SourceRecord:
    return SourceRecord(
        topic="t",
        kafka_partition=kafka_partition,
        value_schema=STRING_SCHEMA,
        value=value,
        source_partition=partition,
        source_offset={"position": position},
    )


Connector = source_connector(ScriptedSourceTask)
HOST = None


def host() -> Any:
    global HOST
    if HOST is None:
        HOST = plugin_host(Connector)
    return HOST


def make_loop(
    control: MemoryControl,
    producer: FakeProducer,
    script: list[list[SourceRecord]],
    config: Mapping[str, str] | None = None,
    stop_when_done: bool = True,
    worker: Mapping[str, str] | None = None,
) -> SourceLoop:
    spec = task_spec("source", Connector, ScriptedSourceTask, config, worker)
    loop = SourceLoop(spec, control, host(), producer)
    task = loop.task
    assert isinstance(task, ScriptedSourceTask)
    task.script, task.control, task.polls, task.stop_when_done = list(script), control, 0, stop_when_done
    return loop


async def test_records_keep_poll_order_and_offsets_are_committed_once_acknowledged() -> None:
    control, producer = MemoryControl(), FakeProducer()
    polls = [[rec(f"v{i}", position=i) for i in range(j, j + 5)] for j in (1, 6)]
    loop = make_loop(control, producer, polls)
    await loop.run()
    assert producer.values("t", 0) == [f"v{i}".encode() for i in range(1, 11)]
    assert control.stored_offset(A) == {"position": 10}
    assert loop.task.commits >= 1 and loop.task.stopped  # type: ignore[attr-defined]
    # commit_record got each record's own offset: the batch's base offset plus its index.
    assert [m.offset for _, m in loop.task.committed_records] == list(range(10))  # type: ignore[attr-defined]
    assert control.reports == ["running"] and control.topics == ["t"]


async def test_a_failed_send_commits_nothing_from_that_record_on() -> None:
    control, producer = MemoryControl(), FakeProducer()
    producer.fail = {("t", 1)}
    # Source partition A: positions 1 and 3 go to Kafka partition 0, position 2 to partition 1 (fails).
    poll = [rec("a1", A, 1, 0), rec("a2", A, 2, 1), rec("a3", A, 3, 0), rec("b1", B, 1, 0)]
    loop = make_loop(control, producer, [poll])
    with pytest.raises(RuntimeError, match="Kafka rejected 1 record for t-1: "):
        await loop.run()
    # a3 and b1 were acknowledged, a2 was not: A may only advance to a1; B is independent.
    assert control.stored_offset(A) == {"position": 1}
    assert control.stored_offset(B) == {"position": 1}
    assert all(offsets != [(A, {"position": 3})] for offsets in control.committed)


async def test_with_tolerance_all_a_record_kafka_refused_is_reported_skipped_and_committed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    control, producer = MemoryControl(), FakeProducer()
    producer.fail = {("t", 1)}
    poll = [rec("a1", A, 1, 0), rec("a2", A, 2, 1), rec("a3", A, 3, 0)]
    config = {"errors.tolerance": "all", "errors.log.enable": "true"}
    loop = make_loop(control, producer, [poll], config)
    await loop.run()
    assert control.stored_offset(A) == {"position": 3}, "the refused record counts as handled (KIP-779)"
    [line] = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Error encountered")]
    assert (
        "Executing stage 'KAFKA_PRODUCE' with class 'org.apache.kafka.connect.runtime.WorkerSourceTask'"
        in line
    )
    assert loop.metrics.snapshot()["task-error-metrics"]["total-records-skipped"] == 1


async def test_offsets_an_unreachable_store_refused_are_stored_by_the_next_commit() -> None:
    """A broker outage makes the worker's offset topic unwritable for a while: the task goes on."""
    control, producer = MemoryControl(), FakeProducer()
    control.commit_errors = [RetriableError("offset topic unreachable")] * 2
    loop = make_loop(control, producer, [[rec("a1", position=1)]], config=None, stop_when_done=False)
    loop.flush_interval_s = 0.01
    run = asyncio.create_task(loop.run())
    await wait_until(lambda: control.stored_offset(A) == {"position": 1})
    assert not run.done(), "an unreachable offset store must not fail the task"
    control.set(TargetState.STOPPED)
    await asyncio.wait_for(run, 5)
    assert control.committed[0] == [(A, {"position": 1})], "the refused offsets are sent again as they were"


async def test_an_offset_store_that_refuses_for_good_fails_the_task() -> None:
    control, producer = MemoryControl(), FakeProducer()
    control.commit_errors = [StoreError("offsets file is read-only")] * 3
    loop = make_loop(control, producer, [[rec("a1", position=1)]])
    with pytest.raises(StoreError, match="read-only"):
        await loop.run()


#: A worker whose periodic commit never comes during a test: only commits by count can.
HOUR_INTERVAL = {"offset.flush.interval.ms": "3600000"}


async def test_offset_flush_records_commits_once_that_many_records_were_acknowledged() -> None:
    control, producer = MemoryControl(), FakeProducer()
    polls = [[rec(f"v{i}", position=i) for i in range(j, j + 5)] for j in range(1, 26, 5)]
    worker = {**HOUR_INTERVAL, "offset.flush.records": "10"}
    loop = make_loop(control, producer, polls, stop_when_done=False, worker=worker)
    run = asyncio.create_task(loop.run())
    await wait_until(lambda: loop.task.polls == 5 and not loop.submitted.pending)  # type: ignore[attr-defined]
    # The task's commit() runs in a thread after the offsets are stored: wait for both.
    await wait_until(lambda: len(control.committed) == 2 and loop.task.commits == 2)  # type: ignore[attr-defined]
    assert not run.done()
    # A commit starts once 10 records were acknowledged since the last one and stores what is
    # acknowledged when it runs: 25 records, 5 a poll, give two commits at least 10 positions apart.
    positions = [offsets[-1][1]["position"] for offsets in control.committed]
    assert positions[0] >= 10 and positions[1] - positions[0] >= 10, positions
    assert loop.task.commits == 2  # type: ignore[attr-defined]
    control.set(TargetState.STOPPED)
    await asyncio.wait_for(run, 5)
    assert control.stored_offset(A) == {"position": 25}


async def test_offset_flush_records_0_commits_on_the_interval_only() -> None:
    control, producer = MemoryControl(), FakeProducer()
    polls = [[rec(f"v{i}", position=i) for i in range(j, j + 5)] for j in range(1, 26, 5)]
    worker = {**HOUR_INTERVAL, "offset.flush.records": "0"}
    loop = make_loop(control, producer, polls, stop_when_done=False, worker=worker)
    run = asyncio.create_task(loop.run())
    await wait_until(lambda: loop.task.polls == 5 and not loop.submitted.pending)  # type: ignore[attr-defined]
    await asyncio.sleep(0.2)
    assert control.committed == [], "nothing but the interval (an hour) or the stop may commit"
    control.set(TargetState.STOPPED)
    await asyncio.wait_for(run, 5)
    assert control.committed == [[(A, {"position": 25})]]


async def test_a_commit_by_count_the_store_refuses_for_good_fails_the_task() -> None:
    control, producer = MemoryControl(), FakeProducer()
    control.commit_errors = [StoreError("offsets file is read-only")] * 3
    polls = [[rec(f"v{i}", position=i) for i in range(j, j + 5)] for j in range(1, 26, 5)]
    worker = {**HOUR_INTERVAL, "offset.flush.records": "10"}
    loop = make_loop(control, producer, polls, stop_when_done=False, worker=worker)
    with pytest.raises(StoreError, match="read-only"):
        await asyncio.wait_for(loop.run(), 5)


async def test_nothing_is_committed_before_kafka_answers() -> None:
    control, producer = MemoryControl(), FakeProducer(auto_ack=False)
    loop = make_loop(control, producer, [[rec("a1", position=1)]], stop_when_done=False)
    run = asyncio.create_task(loop.run())
    await wait_until(lambda: producer.sent)
    await asyncio.sleep(0.2)  # several flush intervals: the unanswered record must not be committed
    assert control.committed == [] or all(not batch for batch in control.committed)
    producer.answer(producer.sent[0])
    await wait_until(lambda: control.stored_offset(A) == {"position": 1})
    control.set(TargetState.STOPPED)
    await asyncio.wait_for(run, 5)


async def test_records_a_transform_drops_still_have_their_offsets_committed() -> None:
    control, producer = MemoryControl(), FakeProducer()
    config = {"transforms": "f", "transforms.f.type": "DropOrFail"}
    script = [[rec("keep", position=1)], [rec("drop me", position=2), rec("drop too", position=3)]]
    loop = make_loop(control, producer, script, config)
    await loop.run()
    assert producer.values("t") == [b"keep"]
    assert control.stored_offset(A) == {"position": 3}, (
        "a partition whose newest records were dropped must advance"
    )
    # Kafka tells the task about dropped records too, with no metadata.
    assert loop.task.committed_records[1:] == [("drop me", None), ("drop too", None)]  # type: ignore[attr-defined]


async def test_a_failing_transform_is_skipped_with_tolerance_all() -> None:
    control, producer = MemoryControl(), FakeProducer()
    config = {"transforms": "f", "transforms.f.type": "DropOrFail", "errors.tolerance": "all"}
    loop = make_loop(
        control, producer, [[rec("a", position=1), rec("boom", position=2), rec("b", position=3)]], config
    )
    await loop.run()
    assert producer.values("t") == [b"a", b"b"]
    assert control.stored_offset(A) == {"position": 3}


async def test_a_failing_transform_fails_the_task_with_tolerance_none() -> None:
    control, producer = MemoryControl(), FakeProducer()
    config = {"transforms": "f", "transforms.f.type": "DropOrFail"}
    loop = make_loop(control, producer, [[rec("a", position=1)], [rec("boom", position=2)]], config)
    with pytest.raises(ConnectError, match="Tolerance exceeded in error handler") as failed:
        await loop.run()
    assert isinstance(failed.value.__cause__, ValueError)
    assert "cannot transform 'boom'" in str(failed.value.__cause__)
    assert producer.values("t") == [b"a"]
    assert control.stored_offset(A) == {"position": 1}, "what Kafka acknowledged is still committed"


async def test_pause_commits_stops_polling_and_resume_continues() -> None:
    control, producer = MemoryControl(), FakeProducer()
    loop = make_loop(control, producer, [[rec("a", position=1)]], stop_when_done=False)
    run = asyncio.create_task(loop.run())
    await wait_until(lambda: producer.values("t") == [b"a"])
    control.set(TargetState.PAUSED)
    await wait_until(lambda: control.reports[-1:] == ["paused"])
    assert control.stored_offset(A) == {"position": 1}, "a pause commits what was acknowledged"
    loop.task.script.append([rec("b", position=2)])  # type: ignore[attr-defined]
    await asyncio.sleep(0.2)
    assert producer.values("t") == [b"a"], "a paused task must not poll"
    control.set(TargetState.STARTED)
    await wait_until(lambda: producer.values("t") == [b"a", b"b"])
    control.set(TargetState.STOPPED)
    await asyncio.wait_for(run, 5)
    assert control.reports == ["running", "paused", "running"]
    assert control.stored_offset(A) == {"position": 2}


def blocking_loop(control: MemoryControl, producer: FakeProducer) -> tuple[SourceLoop, BlockingPollTask]:
    """A loop running a `BlockingPollTask` whose woken poll returns one record (position 7)."""
    loop = SourceLoop(
        task_spec("source", BlockingPollSource, BlockingPollTask),
        control,
        plugin_host(BlockingPollSource),
        producer,
    )
    assert isinstance(loop.task, BlockingPollTask)
    loop.task.woken_records = [rec("last", position=7)]
    return loop, loop.task


async def test_a_stop_request_calls_stop_from_another_thread_to_wake_a_blocked_poll() -> None:
    control, producer = MemoryControl(), FakeProducer()
    loop, task = blocking_loop(control, producer)
    run = asyncio.create_task(loop.run())
    await wait_until(lambda: task.names() == ["start", "poll"])

    control.set(TargetState.STOPPED)
    await asyncio.wait_for(run, 5)

    assert task.names() == ["start", "poll", "stop", "poll-returned"], (
        "stop once, while poll blocked; no poll after it"
    )
    threads = dict(task.events)
    assert threads["stop"] != threads["poll"], "stop runs in another thread than the blocked poll"
    # What the woken poll returned is sent and committed, as Kafka sends a poll's records after a stop.
    assert producer.values("t") == [b"last"]
    assert control.stored_offset(A) == {"position": 7}


async def test_a_lost_worker_wakes_a_blocked_poll_and_its_records_are_not_sent() -> None:
    control, producer = MemoryControl(), FakeProducer()
    loop, task = blocking_loop(control, producer)
    run = asyncio.create_task(loop.run())
    await wait_until(lambda: task.names() == ["start", "poll"])

    control.lose()
    await asyncio.wait_for(run, 5)

    assert task.names() == ["start", "poll", "stop", "poll-returned"]
    # Unlike a stop request's: nothing sent now could be committed, the successor sends it again.
    assert producer.values("t") == []
    assert control.stored_offset(A) is None


async def test_a_lost_worker_halts_a_poll_being_sent_and_commits_only_what_kafka_has() -> None:
    control, producer = MemoryControl(), FakeProducer(auto_ack=False)
    poll = [rec(f"r{i}", position=i) for i in range(250)]  # 3 batches of at most 100 on one partition
    loop = make_loop(control, producer, [poll], stop_when_done=False)
    run = asyncio.create_task(loop.run())
    await wait_until(lambda: len(producer.sent) == 2)  # the third waits for room

    control.lose()
    for sent in producer.sent:
        producer.answer(sent)
    await asyncio.wait_for(run, 5)

    assert len(producer.values("t")) == 200, "the batch not handed over yet is not sent"
    assert control.stored_offset(A) == {"position": 199}


async def test_a_pause_does_not_interrupt_a_blocked_poll() -> None:
    control, producer = MemoryControl(), FakeProducer()
    loop, task = blocking_loop(control, producer)
    run = asyncio.create_task(loop.run())
    await wait_until(lambda: task.names() == ["start", "poll"])

    control.set(TargetState.PAUSED)
    await asyncio.sleep(0.2)
    assert task.names() == ["start", "poll"] and not run.done(), "a pause waits for poll, as Kafka's does"

    control.set(TargetState.STOPPED)
    await asyncio.wait_for(run, 5)
    assert task.names() == ["start", "poll", "stop", "poll-returned"]
