"""SinkLoop's logic with a fake consumer: order, commits, retries, rebalances, pause and errors."""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from aiokafka.errors import (
    CommitFailedError,
    GroupCoordinatorNotAvailableError,
    IllegalGenerationError,
    KafkaConnectionError,
    RebalanceInProgressError,
    RequestTimedOutError,
)
from aiokafka.structs import TopicPartition as KTP
from kconnect import TopicPartition
from kconnect.errors import ConnectError
from kconnect.model import TargetState
from kconnect.runtime.sink_loop import SinkLoop

from tests.connectors import ColumnRecordingSinkTask, RecordingSinkTask, sink_connector
from tests.unit.kconnect.runtime.loop_fakes import (
    FakeConsumer,
    MemoryControl,
    plugin_host,
    task_spec,
    wait_until,
)

T0, T1 = KTP("t", 0), KTP("t", 1)


CONNECTORS = {task: sink_connector(task) for task in (RecordingSinkTask, ColumnRecordingSinkTask)}
_HOST: list[Any] = []
#: The task class of this test's loop: every test runs with `put` and again with `put_batch`.
_TASK: list[type[RecordingSinkTask]] = [RecordingSinkTask]


@pytest.fixture(autouse=True, params=list(CONNECTORS), ids=["put", "put_batch"])
def task_class(request: pytest.FixtureRequest) -> type[RecordingSinkTask]:
    """The task class `Running` uses in this test."""
    _TASK[0] = request.param
    return request.param  # type: ignore[no-any-return]


def _host() -> Any:
    if not _HOST:
        _HOST.append(plugin_host(*CONNECTORS.values()))
    return _HOST[0]


class Running:
    """A SinkLoop running as an asyncio task against a FakeConsumer, with helpers to drive it."""

    def __init__(
        self,
        consumer: FakeConsumer,
        config: Mapping[str, str] | None = None,
        worker: Mapping[str, str] | None = None,
        configure: Callable[[RecordingSinkTask], None] = lambda task: None,
    ) -> None:
        self.control = MemoryControl()
        self.consumer = consumer
        task = _TASK[0]
        spec = task_spec("sink", CONNECTORS[task], task, {"topics": "t", **(config or {})}, worker)
        self.loop = SinkLoop(spec, self.control, _host(), consumer)
        self.configure = configure
        self.run: asyncio.Task[None] | None = None

    @property
    def task(self) -> RecordingSinkTask:
        task = self.loop.task
        assert isinstance(task, RecordingSinkTask)
        return task

    async def start(self, assigned: set[KTP]) -> Running:
        original_start = self.task.start

        def start(config: Mapping[str, str]) -> None:
            original_start(config)
            self.configure(self.task)

        self.task.start = start  # type: ignore[method-assign]
        self.run = asyncio.create_task(self.loop.run())
        await wait_until(lambda: self.consumer.listener is not None)
        await self.consumer.rebalance(assigned)
        return self

    async def stop(self) -> None:
        self.control.set(TargetState.STOPPED)
        assert self.run is not None
        await asyncio.wait_for(self.run, 5)


def _values(prefix: str, start: int, stop: int) -> list[str]:
    return [f"{prefix}{i}" for i in range(start, stop)]


async def test_records_keep_partition_order_and_only_what_pre_commit_returns_is_committed() -> None:
    consumer = FakeConsumer()
    consumer.append("t", 0, *_values("a", 0, 5))
    consumer.append("t", 1, *_values("b", 0, 3))

    def only_t0_and_a_bogus_offset(current: Mapping[TopicPartition, int]) -> Mapping[TopicPartition, int]:
        return {TopicPartition("t", 0): current[TopicPartition("t", 0)], TopicPartition("t", 1): 100}

    def configure(task: RecordingSinkTask) -> None:
        task.pre_commit_answer = only_t0_and_a_bogus_offset

    running = await Running(consumer, configure=configure).start({T0, T1})
    await wait_until(lambda: len(running.task.values) == 8)
    await running.stop()
    values = running.task.values
    assert [v for v in values if v.startswith("a")] == _values("a", 0, 5)
    assert [v for v in values if v.startswith("b")] == _values("b", 0, 3)
    # t-1's offset from pre_commit is invalid: t-1 keeps its position at assignment, as in Kafka.
    assert consumer.group_offsets == {T0: 5, T1: 0}
    assert running.control.topics == ["t"]


async def test_records_dropped_or_skipped_still_advance_the_committed_offset() -> None:
    consumer = FakeConsumer()
    consumer.append("t", 0, "keep", "boom", "drop me", "drop too")
    config = {"transforms": "f", "transforms.f.type": "DropOrFail", "errors.tolerance": "all"}
    running = await Running(consumer, config).start({T0})
    await wait_until(lambda: consumer.group_offsets.get(T0) == 4)
    await running.stop()
    assert running.task.values == ["keep"]


async def test_errant_records_are_reported_and_skipped_and_their_offsets_committed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    consumer = FakeConsumer()
    consumer.append("t", 0, "a0", "bad1", "a2", "bad3")
    config = {"errors.tolerance": "all", "errors.log.enable": "true", "errors.log.include.messages": "true"}

    def configure(task: RecordingSinkTask) -> None:
        task.errant_prefix = "bad"

    running = await Running(consumer, config, configure=configure).start({T0})
    await wait_until(lambda: consumer.group_offsets.get(T0) == 4)
    await running.stop()
    assert running.task.values == ["a0", "a2"]
    reported = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Error encountered")]
    assert reported == [
        f"Error encountered in task {running.loop.spec.id}. Executing stage 'TASK_PUT' with class "
        f"'org.apache.kafka.connect.sink.SinkTask', where consumed record is {{topic='t', partition=0, "
        f"offset={offset}, timestamp=0, timestampType=CreateTime}}."
        for offset in (1, 3)
    ]


async def test_an_errant_record_without_tolerance_fails_the_task() -> None:
    consumer = FakeConsumer()
    consumer.append("t", 0, "a0", "bad1")

    def configure(task: RecordingSinkTask) -> None:
        task.errant_prefix = "bad"

    running = await Running(consumer, {"errors.log.enable": "true"}, configure=configure).start({T0})
    with pytest.raises(ConnectError, match="Tolerance exceeded in error handler") as failed:
        await asyncio.wait_for(running.run, 5)  # type: ignore[arg-type]
    assert isinstance(failed.value.__cause__, ValueError)
    assert consumer.group_offsets == {}


async def test_there_is_no_errant_record_reporter_without_a_dlq_or_error_log() -> None:
    running = await Running(FakeConsumer(), {"errors.tolerance": "all"}).start({T0})
    assert running.task.context.errant_record_reporter() is None
    await running.stop()


async def test_a_failing_transform_fails_the_task_without_tolerance() -> None:
    consumer = FakeConsumer()
    consumer.append("t", 0, "keep", "boom")
    running = await Running(consumer, {"transforms": "f", "transforms.f.type": "DropOrFail"}).start({T0})
    with pytest.raises(ConnectError, match="Tolerance exceeded in error handler") as failed:
        await asyncio.wait_for(running.run, 5)  # type: ignore[arg-type]
    assert isinstance(failed.value.__cause__, ValueError)
    assert "cannot transform 'boom'" in str(failed.value.__cause__)
    assert consumer.group_offsets == {}, "nothing of the failed batch is committed"


async def test_put_is_called_with_no_records_after_a_poll_that_returned_none() -> None:
    """Kafka's WorkerSinkTask calls put after every poll, so a sink can act on time alone."""
    consumer = FakeConsumer()
    consumer.append("t", 0, "a0")
    running = await Running(consumer).start({T0})
    await wait_until(lambda: running.task.values == ["a0"])
    await wait_until(lambda: sum(c[0] == "empty put" for c in running.task.calls.calls) >= 2)
    await running.stop()
    assert running.task.values == ["a0"]
    assert consumer.group_offsets == {T0: 1}, "empty puts move no offset"


async def test_a_retriable_put_is_offered_again_after_context_timeout_with_partitions_paused() -> None:
    consumer = FakeConsumer()
    consumer.append("t", 0, *_values("a", 0, 3))

    def configure(task: RecordingSinkTask) -> None:
        task.retriable_failures = 2
        task.context.timeout(150)

    running = await Running(consumer, configure=configure).start({T0})
    await wait_until(lambda: running.task.values == _values("a", 0, 3))
    puts = [c for c in running.task.calls.calls if c[0] == "put"]
    assert len(puts) == 3
    assert puts[1][1] - puts[0][2] >= 0.14 and puts[2][1] - puts[1][2] >= 0.14, "context.timeout not honoured"
    waiting = [paused for at, paused in consumer.polls if puts[0][2] < at < puts[2][1]]
    assert waiting and all(paused == {T0} for paused in waiting), (
        "the consumer must poll, all partitions paused"
    )
    consumer.append("t", 0, "a3")
    await wait_until(lambda: running.task.values == _values("a", 0, 4))
    await running.stop()
    assert consumer.group_offsets == {T0: 4}


@pytest.mark.parametrize(
    "error",
    [
        CommitFailedError,
        IllegalGenerationError,
        RebalanceInProgressError,
        RequestTimedOutError,
        GroupCoordinatorNotAvailableError,
        KafkaConnectionError,
    ],
)
async def test_a_commit_refused_by_a_rebalance_or_unanswered_is_logged_and_retried_by_the_next_commit(
    error: type[Exception], caplog: pytest.LogCaptureFixture
) -> None:
    consumer = FakeConsumer(fail_commits=1, commit_error=error)
    consumer.append("t", 0, *_values("a", 0, 3))
    running = await Running(consumer).start({T0})
    await wait_until(lambda: consumer.group_offsets == {T0: 3})
    assert running.run is not None and not running.run.done(), "a rebalanced commit must not fail the task"
    assert "failed because its consumer group rebalanced" in caplog.text or (
        "failed because the broker did not answer" in caplog.text
    )
    await running.stop()


async def test_a_revocation_waits_for_the_put_in_flight() -> None:
    consumer = FakeConsumer()
    consumer.append("t", 0, *_values("a", 0, 3))

    def configure(task: RecordingSinkTask) -> None:
        task.put_delay_s = 0.3

    running = await Running(consumer, configure=configure).start({T0})
    await asyncio.to_thread(running.task.in_put.wait, 5)
    # aiokafka calls the listener from its coordination task while put runs in its thread.
    await consumer.rebalance({T0})
    await wait_until(lambda: running.task.values == _values("a", 0, 3))
    await running.stop()
    calls = running.task.calls
    assert calls.overlaps() == [], f"task calls overlapped: {calls.calls}"
    names = [name for name in calls.names() if name != "empty put"]
    first_put = names.index("put")
    # A periodic commit may come before the first put (the assigned position counts, as in Kafka).
    assert names[:first_put] == ["open"] + ["pre_commit"] * (first_put - 1)
    assert names[first_put : first_put + 3] == ["put", "pre_commit", "close"]
    assert consumer.commits[0] == {T0: 3}, "the revocation commits what the put in flight delivered"


async def test_a_batch_fetched_during_a_revocation_is_delivered_once() -> None:
    consumer = FakeConsumer()
    consumer.append("t", 0, *_values("a", 0, 2))
    running = await Running(consumer).start({T0})
    await wait_until(lambda: running.task.values == _values("a", 0, 2))
    gate = threading.Event()
    running.task.pre_commit_gate = gate
    rebalance = asyncio.create_task(consumer.rebalance({T0}))
    await wait_until(running.task.at_pre_commit_gate.is_set)
    # While the revocation's pre_commit holds the task, the loop fetches the next records...
    consumer.append("t", 0, *_values("a", 2, 5))
    await wait_until(lambda: consumer.positions.get(T0) == 5)
    gate.set()
    await asyncio.wait_for(rebalance, 5)
    running.task.pre_commit_gate = None
    # ...and the partition restarts at the committed offset: each record reaches put exactly once.
    await wait_until(lambda: len(running.task.values) >= 5)
    await asyncio.sleep(0.1)
    await running.stop()
    assert running.task.values == _values("a", 0, 5)


async def test_a_batch_fetched_under_the_new_assignment_while_the_listener_ran_is_not_skipped() -> None:
    """A broker outage ends in a rebalance run inside a fetch: the fetch reads from the reset position."""
    consumer = FakeConsumer()
    consumer.append("t", 0, *_values("a", 0, 2))
    running = await Running(consumer).start({T0})
    await wait_until(lambda: consumer.group_offsets == {T0: 2})
    consumer.append("t", 0, *_values("a", 2, 6))
    consumer.inside_next_getmany = lambda: consumer.rebalance({T0})
    await wait_until(lambda: running.task.values == _values("a", 0, 6))
    await asyncio.sleep(0.1)
    await running.stop()
    assert running.task.values == _values("a", 0, 6), "each record once, none skipped"
    assert consumer.group_offsets == {T0: 6}


async def test_a_paused_sink_keeps_polling_with_every_partition_paused_and_resumes_without_rebalance() -> (
    None
):
    consumer = FakeConsumer()
    consumer.append("t", 0, *_values("a", 0, 2))
    running = await Running(consumer, worker={"consumer.max.poll.interval.ms": "1000"}).start({T0, T1})
    await wait_until(lambda: running.task.values == _values("a", 0, 2))
    running.control.set(TargetState.PAUSED)
    await wait_until(lambda: running.control.reports[-1:] == ["paused"])
    assert consumer.group_offsets == {T0: 2, T1: 0}, "a pause commits every assigned partition"
    paused_at = time.monotonic()
    consumer.append("t", 0, *_values("a", 2, 4))
    await asyncio.sleep(1.5)  # longer than max.poll.interval.ms
    assert running.task.values == _values("a", 0, 2), "a paused sink must not deliver"
    polls = [(at, paused) for at, paused in consumer.polls if at > paused_at]
    assert polls and all(paused == {T0, T1} for _, paused in polls)
    times = [paused_at] + [at for at, _ in polls] + [time.monotonic()]
    gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
    assert max(gaps) < 1.0, f"the consumer went {max(gaps):.2f} s without polling: it would leave its group"
    running.control.set(TargetState.STARTED)
    await wait_until(lambda: running.task.values == _values("a", 0, 4))
    await running.stop()
    assert running.control.reports == ["running", "paused", "running"]
    assert running.task.opened == [{TopicPartition("t", 0), TopicPartition("t", 1)}], "no second assignment"


async def test_partitions_the_task_paused_stay_paused_across_a_pause_and_resume() -> None:
    consumer = FakeConsumer()
    consumer.append("t", 0, "a0")
    consumer.append("t", 1, "b0")

    def configure(task: RecordingSinkTask) -> None:
        task.on_put = lambda: task.context.pause(TopicPartition("t", 1))

    running = await Running(consumer, configure=configure).start({T0, T1})
    await wait_until(lambda: consumer.paused() == {T1})
    await wait_until(lambda: consumer.paused() == {T1})
    running.control.set(TargetState.PAUSED)
    await wait_until(lambda: running.control.reports[-1:] == ["paused"])
    running.control.set(TargetState.STARTED)
    await wait_until(lambda: running.control.reports[-1:] == ["running"])
    consumer.append("t", 1, "b1")
    await asyncio.sleep(0.2)
    assert consumer.paused() == {T1} and "b1" not in running.task.values
    await running.stop()


async def test_an_error_in_open_during_a_rebalance_fails_the_task() -> None:
    consumer = FakeConsumer()

    def configure(task: RecordingSinkTask) -> None:
        task.open_error = OSError("cannot open the target table")

    running = Running(consumer, configure=configure)
    with pytest.raises(RuntimeError, match="failed during a consumer group rebalance") as failure:
        await running.start({T0})
        await asyncio.wait_for(running.run, 5)  # type: ignore[arg-type]
    assert isinstance(failure.value.__cause__, OSError)


async def test_a_task_overriding_put_batch_gets_columns_unless_transformations_need_records(
    task_class: type[RecordingSinkTask],
) -> None:
    for config, columns in (({}, True), ({"transforms": "f", "transforms.f.type": "DropOrFail"}, False)):
        consumer = FakeConsumer()
        consumer.append("t", 0, *_values("a", 0, 5))
        running = await Running(consumer, config).start({T0})
        await wait_until(lambda r=running: len(r.task.values) == 5)
        await running.stop()
        assert running.task.values == _values("a", 0, 5)
        took_columns = isinstance(running.task, ColumnRecordingSinkTask) and running.task.batches > 0
        assert took_columns == (columns and task_class is ColumnRecordingSinkTask), config
