"""Fakes for unit tests of the task loops' logic: a worker control, a producer and a consumer.

They model what the loops rely on and nothing more: the producer answers each batch with a base
offset per partition (or an error), the consumer keeps a log and a position per partition, returns
nothing for paused partitions, and on a rebalance runs the listener as aiokafka does (from its own
task, not inside `getmany`) and then restarts each assigned partition at its committed offset.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from aiokafka.errors import CommitFailedError, KafkaError, KafkaTimeoutError, UnknownTopicOrPartitionError
from aiokafka.structs import RecordMetadata
from aiokafka.structs import TopicPartition as KTP
from kconnect import hookimpl
from kconnect.config import ConfigDef
from kconnect.config.worker_settings import WorkerSettings
from kconnect.executor import TaskSpec
from kconnect.model import ConnectorTaskId, TargetState
from kconnect.plugin_host import PluginHost, PluginRegistry

# --- the worker side of the control channel --------------------------------------------------------


class MemoryControl:
    """A TaskControl in memory: target state, reports and committed source offsets are recorded."""

    def __init__(self, target: TargetState = TargetState.STARTED) -> None:
        self.target = target
        self.reports: list[str] = []
        self.committed: list[list[tuple[Mapping[str, Any], Mapping[str, Any] | None]]] = []
        self.stored: dict[str, Any] = {}
        self.topics: list[str] = []
        self.topics_reset_count = 0
        #: The channel to the worker broke (`lose`).
        self.worker_lost = False
        #: Every metrics snapshot the loop sent, in order.
        self.metrics: list[Mapping[str, Mapping[str, float]]] = []
        #: Raised, one per call, by the next `commit_source_offsets` calls (a store that fails).
        self.commit_errors: list[Exception] = []
        self._changed = asyncio.Event()
        self._loop = asyncio.get_running_loop()

    def set(self, state: TargetState) -> None:
        """Change the target (from the event loop)."""
        self.target = state
        self._changed.set()

    def lose(self) -> None:
        """The worker is gone, as when the Spark task's control channel breaks: lost, and STOPPED."""
        self.worker_lost = True
        self.set(TargetState.STOPPED)

    def set_threadsafe(self, state: TargetState) -> None:
        """Change the target from a task's thread."""
        self._loop.call_soon_threadsafe(self.set, state)

    async def wait_for_target_change(self, current: TargetState, timeout_s: float) -> TargetState:
        if self.target is current:
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), timeout_s)
            except TimeoutError:
                pass
        return self.target

    async def report_running(self) -> None:
        self.reports.append("running")

    async def report_paused(self) -> None:
        self.reports.append("paused")

    async def report_stall(self, reason: str | None, stalled_s: float) -> None:
        self.reports.append(f"stalled: {reason}" if reason is not None else "moves again")

    async def commit_source_offsets(
        self, offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]]
    ) -> None:
        if self.commit_errors:
            raise self.commit_errors.pop(0)
        self.committed.append(list(offsets))
        for partition, offset in offsets:
            self.stored[repr(sorted(partition.items()))] = offset

    def stored_offset(self, partition: Mapping[str, Any]) -> Any:
        """The newest offset stored for `partition`."""
        return self.stored.get(repr(sorted(partition.items())))

    async def read_source_offsets(self, partitions: Sequence[Mapping[str, Any]]) -> list[Any]:
        return [self.stored_offset(p) for p in partitions]

    async def topic_used(self, topic: str) -> None:
        self.topics.append(topic)

    async def report_metrics(self, metrics: Mapping[str, Mapping[str, float]]) -> None:
        self.metrics.append(metrics)


# --- producer ----------------------------------------------------------------------------------------


@dataclass
class FakeBatch:
    """A batch builder holding at most `capacity` records."""

    capacity: int
    records: list[tuple[Any, bytes | None, bytes | None, list[tuple[str, bytes]]]] = field(
        default_factory=list
    )
    closed: bool = False

    def append(self, *, timestamp: Any, key: bytes | None, value: bytes | None, headers: Any) -> Any:
        if len(self.records) >= self.capacity or len(value or b"") > 1000:
            return None
        self.records.append((timestamp, key, value, headers))
        return object()

    def close(self) -> None:
        self.closed = True


@dataclass
class SentBatch:
    """One batch handed to the fake producer, and its pending answer."""

    topic: str
    partition: int
    batch: FakeBatch
    future: asyncio.Future[Any]

    @property
    def values(self) -> list[bytes | None]:
        return [r[2] for r in self.batch.records]


class FakeProducer:
    """A ProducerClient whose answers the test controls: acknowledge at once, or fail some partitions."""

    def __init__(self, partitions: int = 3, batch_capacity: int = 100, auto_ack: bool = True) -> None:
        self.partitions = partitions
        self.metadata_misses = 0
        """How many `partitions_for` calls fail as when the broker does not answer."""
        self.queue_full = False
        """While True, `send_batch` fails as aiokafka's does when a partition's queue stays full."""
        self.batch_capacity = batch_capacity
        self.auto_ack = auto_ack
        self.fail: set[tuple[str, int]] = set()
        self.sent: list[SentBatch] = []
        self.next_offset: dict[tuple[str, int], int] = {}
        self.started = self.stopped = False

    async def start(self) -> None:
        self.started = True

    async def stop(self) -> None:
        self.stopped = True

    def create_batch(self) -> FakeBatch:
        return FakeBatch(self.batch_capacity)

    async def partitions_for(self, topic: str) -> set[int]:
        if self.metadata_misses:
            # aiokafka's answer when the topic's metadata did not come within request.timeout.ms
            self.metadata_misses -= 1
            raise UnknownTopicOrPartitionError()
        return set(range(self.partitions))

    async def send_batch(self, batch: FakeBatch, topic: str, *, partition: int) -> asyncio.Future[Any]:
        assert batch.closed, "a batch must be closed before it is sent"
        if self.queue_full:
            await asyncio.sleep(0.01)  # aiokafka waits request.timeout.ms for room, then gives up
            raise KafkaTimeoutError()
        sent = SentBatch(topic, partition, batch, asyncio.get_running_loop().create_future())
        self.sent.append(sent)
        if self.auto_ack:
            self.answer(sent)
        return sent.future

    def answer(self, sent: SentBatch) -> None:
        """Acknowledge `sent` (base offset per partition), or fail it if its partition is in `fail`."""
        if sent.future.done():
            return
        if (sent.topic, sent.partition) in self.fail:
            sent.future.set_exception(KafkaError("broker rejected the batch"))
            return
        base = self.next_offset.get((sent.topic, sent.partition), 0)
        self.next_offset[(sent.topic, sent.partition)] = base + len(sent.batch.records)
        tp = KTP(sent.topic, sent.partition)
        sent.future.set_result(RecordMetadata(sent.topic, sent.partition, tp, base, -1, 0, 0))

    async def flush(self) -> None:
        """Wait until every batch was answered (by `auto_ack` or by the test)."""
        await asyncio.gather(*(s.future for s in self.sent), return_exceptions=True)

    def values(self, topic: str, partition: int | None = None) -> list[bytes | None]:
        """Every value sent to `topic` (and `partition`), in send order."""
        return [
            v
            for s in self.sent
            if s.topic == topic and (partition is None or s.partition == partition)
            for v in s.values
        ]


# --- consumer ----------------------------------------------------------------------------------------


@dataclass
class Message:
    """The fields of aiokafka's ConsumerRecord the sink loop reads."""

    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    timestamp: int = 0
    timestamp_type: int = 0
    headers: Sequence[tuple[str, bytes]] = ()


class FakeConsumer:
    """A ConsumerClient over in-memory partition logs, with aiokafka's rebalance behaviour."""

    def __init__(self, fail_commits: int = 0, commit_error: type[Exception] = CommitFailedError) -> None:
        self.logs: dict[KTP, list[Message]] = {}
        self.positions: dict[KTP, int] = {}
        self.group_offsets: dict[KTP, int] = {}
        self._assignment: set[KTP] = set()
        self._paused: set[KTP] = set()
        self.listener: Any = None
        self.topics: Sequence[str] = ()
        self.fail_commits = fail_commits
        self.commit_error = commit_error
        self.commits: list[dict[KTP, int]] = []
        self.polls: list[tuple[float, frozenset[KTP]]] = []
        self.started = self.stopped = False
        self.max_poll_records = 1000
        #: Run inside the next `getmany`, before it reads: aiokafka rebalances while a fetch waits.
        self.inside_next_getmany: Callable[[], Awaitable[None]] | None = None

    def append(self, topic: str, partition: int, *values: str) -> None:
        """Write values to a partition's log."""
        log = self.logs.setdefault(KTP(topic, partition), [])
        for value in values:
            log.append(Message(topic, partition, len(log), None, value.encode()))

    async def start(self) -> None:
        self.started = True

    async def stop(self) -> None:
        self.stopped = True

    def subscribe(
        self, topics: Any = (), pattern: str | re.Pattern[str] | None = None, listener: Any = None
    ) -> None:
        self.topics = list(topics)
        self.listener = listener

    async def rebalance(self, assigned: set[KTP]) -> None:
        """Revoke everything, then assign `assigned`, as aiokafka's eager protocol does."""
        revoked = set(self._assignment)
        await self.listener.on_partitions_revoked(revoked)
        self._assignment = set(assigned)
        self._paused.clear()
        for tp in assigned:
            self.positions[tp] = self.group_offsets.get(tp, 0)
        await self.listener.on_partitions_assigned(set(assigned))

    async def getmany(self, *partitions: KTP, timeout_ms: int = 0) -> dict[KTP, list[Message]]:
        self.polls.append((time.monotonic(), frozenset(self._paused)))
        if self.inside_next_getmany is not None:
            inside, self.inside_next_getmany = self.inside_next_getmany, None
            await inside()
        result: dict[KTP, list[Message]] = {}
        for tp in sorted(self._assignment - self._paused):
            log = self.logs.get(tp, [])
            start = self.positions.get(tp, 0)
            if start < len(log):
                result[tp] = log[start : start + self.max_poll_records]
                self.positions[tp] = start + len(result[tp])
        if not result:
            await asyncio.sleep(min(timeout_ms, 20) / 1000)
        return result

    def assignment(self) -> set[KTP]:
        return set(self._assignment)

    def pause(self, *partitions: KTP) -> None:
        assert set(partitions) <= self._assignment, "aiokafka refuses to pause unassigned partitions"
        self._paused.update(partitions)

    def resume(self, *partitions: KTP) -> None:
        self._paused.difference_update(partitions)

    def paused(self) -> set[KTP]:
        return set(self._paused)

    def seek(self, partition: KTP, offset: int) -> None:
        self.positions[partition] = offset

    async def position(self, partition: KTP) -> int:
        return self.positions.get(partition, 0)

    async def commit(self, offsets: Any = None) -> None:
        if self.fail_commits:
            self.fail_commits -= 1
            raise self.commit_error("the group rebalanced")
        self.commits.append(dict(offsets))
        self.group_offsets.update(offsets)


# --- plugins -----------------------------------------------------------------------------------------


class DropOrFail:
    """A transformation: drops records whose value starts with "drop", raises on "boom"."""

    config_def: ClassVar[ConfigDef | None] = None

    def configure(self, configs: Mapping[str, Any]) -> None: ...

    def apply(self, record: Any) -> Any:
        if str(record.value).startswith("drop"):
            return None
        if str(record.value).startswith("boom"):
            raise ValueError(f"cannot transform {record.value!r}")
        return record

    def close(self) -> None: ...


def plugin_host(*connectors: type) -> PluginHost:
    """A real PluginHost with the installed plugins, these connectors and the DropOrFail transform."""

    class _Plugin:
        @hookimpl
        def register_connectors(self, registry: PluginRegistry) -> None:
            for connector in connectors:
                registry.add(connector, aliases=[connector.__name__])

        @hookimpl
        def register_transforms(self, registry: PluginRegistry) -> None:
            registry.add(DropOrFail, aliases=["DropOrFail"])

    return PluginHost.load(extra_plugins=[_Plugin()])


STRING_CONVERTERS = {
    "key.converter": "org.apache.kafka.connect.storage.StringConverter",
    "value.converter": "org.apache.kafka.connect.storage.StringConverter",
}


def task_spec(
    kind: str,
    connector: type,
    task: type,
    connector_config: Mapping[str, str] | None = None,
    worker: Mapping[str, str] | None = None,
) -> TaskSpec:
    """A TaskSpec for `task` of `connector`, with string converters and a 50 ms flush interval."""
    return TaskSpec(
        id=ConnectorTaskId("c", 0),
        kind=kind,  # type: ignore[arg-type]
        task_class=f"{task.__module__}.{task.__qualname__}",
        connector_config={
            "connector.class": connector.__name__,
            **STRING_CONVERTERS,
            **(connector_config or {}),
        },
        task_config={},
        worker=WorkerSettings.from_props({"offset.flush.interval.ms": "50", **(worker or {})}),
    )


async def wait_until(check: Any, timeout: float = 5.0) -> None:
    """Yield to the loop until `check()` is true; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.005)
