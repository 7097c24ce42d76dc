"""The task half of the plugin author API: SourceTask, SinkTask and their contexts.

Tasks run where the executor puts them (with the Spark executor: inside a Spark task on an
executor), so a task must not rely on anything of the worker process but its context.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from typing import Any, ClassVar, Protocol

from kconnect.records import SinkBatch, SinkRecord, SourceBatch, SourceRecord


class OffsetStorageReader(Protocol):
    """Reads the committed offsets of source partitions (what a source task resumes from)."""

    def offset(self, partition: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """The last committed offset of one source partition, or None."""
        ...

    def offsets(
        self, partitions: Sequence[Mapping[str, Any]]
    ) -> list[tuple[Mapping[str, Any], Mapping[str, Any] | None]]:
        """The last committed offsets of several partitions, as (partition, offset) pairs."""
        ...


class TransactionContext(Protocol):
    """Lets a source task define its own transactions (Kafka's TransactionContext, KIP-618).

    A task receives one through `SourceTaskContext.transaction_context` only when the worker has
    ``exactly.once.source.support=enabled`` and the connector ``transaction.boundary=connector``.
    Call it from `poll` (any thread of the task); the framework acts on the request once it has
    sent the records `poll` returned: a request about a record takes effect right after that
    record, a request without one after the whole batch. A commit makes the transaction's records
    and their source offsets visible together; an abort discards both (the records are not sent
    again: the task decides what to do next).
    """

    def commit_transaction(self, record: SourceRecord | None = None) -> None:
        """Commit the current transaction after `record`, or after the batch `poll` returns."""
        ...

    def abort_transaction(self, record: SourceRecord | None = None) -> None:
        """Abort the current transaction after `record`, or after the batch `poll` returns."""
        ...


class SourceTaskContext(Protocol):
    """What the framework offers a running source task."""

    @property
    def configs(self) -> Mapping[str, str]:
        """The task's configuration."""
        ...

    @property
    def offset_storage_reader(self) -> OffsetStorageReader:
        """The reader of this connector's committed source offsets."""
        ...

    @property
    def transaction_context(self) -> TransactionContext | None:
        """The task's transaction context under connector-defined transaction boundaries, else None."""
        ...


class TopicPartition(tuple[str, int]):
    """A (topic, partition) pair."""

    __slots__ = ()

    def __new__(cls, topic: str, partition: int) -> TopicPartition:
        """A (topic, partition) pair."""
        return super().__new__(cls, (topic, partition))

    @property
    def topic(self) -> str:
        """The topic name."""
        return self[0]

    @property
    def partition(self) -> int:
        """The partition number."""
        return self[1]


class ErrantRecordReporter(Protocol):
    """Sends records a sink task could not handle to the connector's error reporting (Kafka's
    ErrantRecordReporter): the dead letter queue and the log, as ``errors.*`` configure them."""

    def report(self, record: SinkRecord, error: BaseException) -> Future[None]:
        """Report `record` as failed with `error`, from `put` (any thread).

        The returned future is done when the report is written (the framework also waits for it
        before committing the record's offset). Raises ConnectError ("Tolerance exceeded in error
        handler") when the connector has ``errors.tolerance=none``: let it propagate to fail the task.
        """
        ...


class SinkTaskContext(Protocol):
    """What the framework offers a running sink task."""

    def errant_record_reporter(self) -> ErrantRecordReporter | None:
        """The reporter for records `put` cannot handle; None when the connector configures neither
        a dead letter queue nor error logging (Kafka's ``errantRecordReporter()``)."""
        ...

    @property
    def configs(self) -> Mapping[str, str]:
        """The task's configuration."""
        ...

    def assignment(self) -> set[TopicPartition]:
        """The partitions this task currently consumes."""
        ...

    def offset(self, offsets: Mapping[TopicPartition, int]) -> None:
        """Reset the consumer position of these partitions (the next record read is at the offset)."""
        ...

    def timeout(self, timeout_ms: int) -> None:
        """After a RetriableError from `put`, wait this long before calling `put` again."""
        ...

    def pause(self, *partitions: TopicPartition) -> None:
        """Stop fetching from these partitions until `resume`."""
        ...

    def resume(self, *partitions: TopicPartition) -> None:
        """Resume fetching from these partitions."""
        ...

    def request_commit(self) -> None:
        """Ask for an offset commit as soon as possible."""
        ...


class Task(ABC):
    """Base of every task: `version`, `start`, `stop`."""

    #: Java class names of the task a ported plugin answers to; the first is what a task config's
    #: ``task.class`` shows (``org.apache.kafka.connect.file.FileStreamSourceTask``), else the Python path.
    java_class_names: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def version(cls) -> str:
        """The plugin's version string."""
        return "undefined"

    @abstractmethod
    def start(self, config: Mapping[str, str]) -> None:
        """Start with the task's configuration (one entry of the connector's `task_configs`)."""

    @abstractmethod
    def stop(self) -> None:
        """Stop; called once, after which no other method is called."""


class SourceTask(Task):
    """A task that reads from an external system and returns SourceRecords.

    The framework calls `initialize`, `start`, then `poll` in a loop; each record's offset is
    committed once Kafka acknowledged it, and `commit_record` / `commit` tell the task so.
    """

    context: SourceTaskContext

    def initialize(self, context: SourceTaskContext) -> None:
        """Called once by the framework before `start`."""
        self.context = context

    @abstractmethod
    def poll(self) -> list[SourceRecord] | None:
        """Return new records, or None/[] when there are none now. Should not block for long."""

    def poll_batch(self) -> Sequence[SourceBatch] | None:
        """Return new records as columns, a `SourceBatch` per source partition (kconnect's
        extension; opt-in), or None/[] when there are none now.

        A task that overrides it is polled here instead of through `poll` whenever nothing needs a
        `SourceRecord` per record: no transformation, no exactly-once support, ``errors.tolerance``
        none and `commit_record` not overridden; otherwise `poll` is called as before. The contract
        is `poll`'s, with the same records in the same order, except that a batch's offset is
        committed only once all its records are acknowledged. The default returns each record of
        `poll` as a batch of one.
        """
        records = self.poll()
        if not records:
            return None
        return [
            SourceBatch(
                topic=record.topic,
                values=[record.value],
                value_schema=record.value_schema,
                keys=[record.key],
                key_schema=record.key_schema,
                kafka_partition=record.kafka_partition,
                timestamps=[record.timestamp],
                headers=[record.headers],
                source_partition=record.source_partition,
                source_offset=record.source_offset,
            )
            for record in records
        ]

    @abstractmethod
    def stop(self) -> None:
        """Stop; called once, from another thread while `poll` may be blocked (Kafka's contract).

        Wake a blocked `poll` here (set the event it waits on, close the socket it reads), and
        make `poll` and `stop` thread-safe. The records that `poll` then returns are still sent,
        so `commit_record` and `commit` may follow; `poll` is not called again.
        """

    def commit(self) -> None:
        """Called after the framework committed offsets for the records sent so far."""

    def commit_record(self, record: SourceRecord, metadata: Any | None) -> None:
        """Called once per record after Kafka acknowledged it (metadata: topic/partition/offset)."""


class SinkTask(Task):
    """A task that receives SinkRecords from Kafka and writes them to an external system.

    The framework calls `initialize`, `start`, `open(partitions)`, then `put` with each batch;
    periodically `pre_commit` (default: `flush`) and commits the returned offsets to the
    consumer group `connect-<connector name>` only after it returned.
    """

    context: SinkTaskContext

    def initialize(self, context: SinkTaskContext) -> None:
        """Called once by the framework before `start`."""
        self.context = context

    @abstractmethod
    def put(self, records: Sequence[SinkRecord]) -> None:
        """Write (or buffer) these records. Raise RetriableError to have them delivered again."""

    def put_batch(self, batch: SinkBatch) -> None:
        """Write (or buffer) one fetch's records, given as columns (kconnect's extension; opt-in).

        A task that overrides it gets each fetch here instead of through `put` whenever the
        connector configures no transformation, so the framework builds no `SinkRecord` per record
        (`SinkBatch`); with transformations, `put` gets the transformed records as before. The
        contract is `put`'s: the same records in the same order, RetriableError to have the batch
        delivered again, and errant records reported through `batch.record(i)`. The default hands
        `batch.records()` to `put`.
        """
        self.put(batch.records())

    def flush(self, current_offsets: Mapping[TopicPartition, int]) -> None:
        """Make every record given to `put` so far durable."""

    def pre_commit(self, current_offsets: Mapping[TopicPartition, int]) -> Mapping[TopicPartition, int]:
        """Flush and return the offsets safe to commit (next offset to read, per partition)."""
        self.flush(current_offsets)
        return current_offsets

    def open(self, partitions: set[TopicPartition]) -> None:
        """Partitions were assigned to this task."""

    def close(self, partitions: set[TopicPartition]) -> None:
        """Partitions were taken from this task; called after their last commit."""
