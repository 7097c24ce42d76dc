"""Exactly-once source delivery (KIP-618): a source task's records and offsets in one transaction.

With ``exactly.once.source.support=enabled`` on a distributed worker, each source task gets a
transactional producer whose ``transactional.id`` is ``<group.id>-<connector>-<task>`` (Kafka's
``Worker.taskTransactionalId``). Starting it (InitProducerId) fences every earlier producer of the
same task and aborts the transaction such a zombie left open. The source loop's delivery strategy
(`kconnect.runtime.transactional_delivery`) then hands each poll's records to
`SourceTransactions.dispatch`:

1. a transaction is opened before the first record of it is handed to the producer;
2. each record handed over (or dropped by a transformation) adds its source offset to the
   transaction;
3. at a boundary the offsets are written by the same producer to the connector's offsets topic (its
   ``offsets.storage.topic``, else the worker's ``offset.storage.topic``), in Kafka's record format
   (`kconnect.kafka.offset_records`), and the transaction is committed: a ``read_committed``
   consumer, and the worker's offset reads, see the records and their offsets together or not at
   all. A connector with a topic of its own has its offsets copied to the worker's topic in the
   same transaction (Kafka copies them after the commit, best effort; docs/differences.md).

Boundaries (connector key ``transaction.boundary``): ``poll`` commits after every poll batch;
``interval`` when ``transaction.boundary.interval.ms`` (default: the worker's
``offset.flush.interval.ms``) has passed since the last commit; ``connector`` when the task asks
through its `TransactionContext`. Every boundary also commits when the task pauses or stops.
A task's abort discards the transaction's records, and their offsets are committed in the next
transaction so the task does not see them again (as Kafka does). A failed send or commit aborts
what can be aborted and fails the task; nothing of that transaction becomes visible.

``preparing`` (the rolling upgrade's middle step) changes nothing here: the worker reads offsets
with ``read_committed``, tasks keep their ordinary producers. Standalone workers have no
exactly-once support, as in Kafka.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from kconnect.config.connector_keys import (
    TRANSACTION_BOUNDARY_CONFIG,
    TRANSACTION_BOUNDARY_INTERVAL_CONFIG,
    connector_offsets_topic,
)
from kconnect.executor import TaskSpec
from kconnect.kafka.clients import ProducerClient, TransactionalProducerClient, create_producer
from kconnect.kafka.offset_records import offset_key, offset_value
from kconnect.records import SourceRecord
from kconnect.runtime.source_delivery import SendRecords
from kconnect.runtime.submitted_records import partition_key

log = logging.getLogger(__name__)

#: How long an abort after a failed commit may wait for the broker.
ABORT_TIMEOUT_S = 5.0
#: The worker's offsets topic when its file names none (Kafka has no default; kconnect's store uses it).
DEFAULT_OFFSETS_TOPIC = "connect-offsets"


class TransactionBoundary(str, Enum):
    """Where a task's transactions end (connector key ``transaction.boundary``)."""

    POLL = "poll"
    INTERVAL = "interval"
    CONNECTOR = "connector"


def task_transactional_id(group_id: str, connector: str, task: int) -> str:
    """The ``transactional.id`` of a task's producer, as Kafka's ``Worker.taskTransactionalId``."""
    return f"{group_id}-{connector}-{task}"


@dataclass(frozen=True)
class ExactlyOnceSource:
    """How one source task delivers exactly once: its producer's id, offsets topic and boundary."""

    transactional_id: str
    offsets_topic: str
    boundary: TransactionBoundary
    interval_s: float
    worker_offsets_topic: str | None = None
    """The worker's offsets topic when the connector has a topic of its own (its offsets are copied)."""

    @classmethod
    def for_task(cls, spec: TaskSpec) -> ExactlyOnceSource | None:
        """The settings of a source task of a distributed worker with exactly-once support
        ``enabled``; None otherwise (a standalone worker has no ``group.id``)."""
        worker, connector = spec.worker, spec.connector_config
        if spec.kind != "source" or not worker.exactly_once_source_support.enabled:
            return None
        worker_topic = worker.offset_storage_topic or DEFAULT_OFFSETS_TOPIC
        topic = connector_offsets_topic(connector) or worker_topic
        boundary = TransactionBoundary((connector.get(TRANSACTION_BOUNDARY_CONFIG) or "poll").strip().lower())
        interval = (connector.get(TRANSACTION_BOUNDARY_INTERVAL_CONFIG) or "").strip()
        return cls(
            transactional_id=task_transactional_id(worker.group_id, spec.id.connector, spec.id.task),
            offsets_topic=topic,
            boundary=boundary,
            interval_s=(int(interval) if interval else worker.offset_flush_interval_ms) / 1000,
            worker_offsets_topic=None if topic == worker_topic else worker_topic,
        )


class WorkerTransactionContext:
    """The `kconnect.task.TransactionContext` a task gets under ``transaction.boundary=connector``.

    The task calls it from `poll`'s thread; the loop asks it, on the event loop, after it sent the
    records of that poll. A request about a record is remembered by the record's identity.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._commit_batch = False
        self._abort_batch = False
        self._commit_records: dict[int, SourceRecord] = {}
        self._abort_records: dict[int, SourceRecord] = {}

    def commit_transaction(self, record: SourceRecord | None = None) -> None:
        """Commit after `record` is sent, or after the current batch."""
        with self._lock:
            if record is None:
                self._commit_batch = True
            else:
                self._commit_records[id(record)] = record

    def abort_transaction(self, record: SourceRecord | None = None) -> None:
        """Abort after `record` is sent, or after the current batch."""
        with self._lock:
            if record is None:
                self._abort_batch = True
            else:
                self._abort_records[id(record)] = record

    def request_on(self, record: SourceRecord) -> str | None:
        """``commit``, ``abort`` or None: what the task asked for right after `record` (asked once)."""
        with self._lock:
            aborted = self._abort_records.pop(id(record), None) is record
            committed = self._commit_records.pop(id(record), None) is record
        return _request(aborted, committed, "record")

    def request_for_batch(self) -> str | None:
        """``commit``, ``abort`` or None: what the task asked for the batch (asked once)."""
        with self._lock:
            aborted, committed = self._abort_batch, self._commit_batch
            self._abort_batch = self._commit_batch = False
        return _request(aborted, committed, "batch")


def _request(aborted: bool, committed: bool, what: str) -> str | None:
    if aborted and committed:
        # Kafka's WorkerTransactionContext refuses the same contradiction.
        raise RuntimeError(
            f"The task requested both a commit and an abort of the transaction for the same {what}"
        )
    return "abort" if aborted else "commit" if committed else None


class SourceTransactions:
    """Opens, fills and ends one source task's transactions.

    `kconnect.runtime.transactional_delivery.TransactionalDelivery` calls `dispatch` with each
    poll's records, `poll_done` after a poll without any, `commit` when the loop pauses or stops,
    and `abort` after a failure; when one of them says a transaction was committed, it tells the
    task (`SourceTask.commit`).
    """

    def __init__(
        self,
        producer: TransactionalProducerClient,
        connector: str,
        settings: ExactlyOnceSource,
        context: WorkerTransactionContext | None,
        name: str,
    ) -> None:
        """`context` is the task's transaction context (connector-defined boundaries only)."""
        self._producer = producer
        self._connector = connector
        self.settings = settings
        self.context = context
        self._name = name
        self._open = False
        self._offsets: dict[str, tuple[Mapping[str, Any], Mapping[str, Any]]] = {}
        self._last_commit = time.monotonic()
        self.committed = 0
        self.aborted = 0

    async def dispatch(self, records: list[SourceRecord], send: SendRecords) -> bool:
        """Send a poll's records in the current transaction, ending it where the boundary says.

        Returns True when a transaction was committed (the loop then calls `SourceTask.commit`).
        """
        committed = False
        segment: list[SourceRecord] = []
        for record in records:
            segment.append(record)
            request = self.context.request_on(record) if self.context is not None else None
            if request is not None:
                await self._send(segment, send)
                segment = []
                committed |= await self._end(request)
        await self._send(segment, send)
        return await self.poll_done(polled=bool(records)) | committed

    async def poll_done(self, polled: bool = False) -> bool:
        """After a poll's records were sent, or a poll returned none: end the transaction if the
        task asked to for the batch, or if the boundary is due. True when one was committed."""
        if self.context is not None:
            request = self.context.request_for_batch()
            return request is not None and await self._end(request)
        return self._due(polled) and await self.commit()

    def _due(self, polled: bool) -> bool:
        if self.settings.boundary is TransactionBoundary.POLL:
            return polled
        return time.monotonic() - self._last_commit >= self.settings.interval_s

    async def _send(self, records: list[SourceRecord], send: SendRecords) -> None:
        if not records:
            return
        await self._begin()
        await send(records)
        for record in records:
            partition, offset = record.source_partition, record.source_offset
            if partition is not None and offset is not None:
                self._offsets[partition_key(partition)] = (partition, offset)

    async def _begin(self) -> None:
        if not self._open:
            await self._producer.begin_transaction()
            self._open = True

    async def _end(self, request: str) -> bool:
        if request == "abort":
            await self.abort_requested()
        return await self.commit()

    async def commit(self) -> bool:
        """Write the transaction's source offsets with its producer, then commit it.

        Returns False when there was nothing to commit. Raises (after aborting) if the offsets or
        the transaction could not be written: the task fails and nothing of it is visible.
        """
        self._last_commit = time.monotonic()
        if not self._open and not self._offsets:
            return False
        try:
            await self._begin()
            topics = [self.settings.offsets_topic, self.settings.worker_offsets_topic]
            for partition, offset in self._offsets.values():
                key, value = offset_key(self._connector, partition), offset_value(offset)
                for topic in filter(None, topics):
                    await self._producer.send(topic, value=value, key=key)
            await self._producer.commit_transaction()
        except Exception as exc:
            await self.abort(ABORT_TIMEOUT_S)
            raise RuntimeError(
                f"{self._name}: failed to commit its producer transaction "
                f"(transactional.id {self.settings.transactional_id}): {exc!r}"
            ) from exc
        self._open = False
        log.debug("%s committed a transaction with %d source offsets", self._name, len(self._offsets))
        self._offsets.clear()
        self.committed += 1
        return True

    async def abort_requested(self) -> None:
        """The task asked to abort: drop the transaction's records, keep their offsets for the next."""
        if not self._open:
            log.warning("%s: ignoring the task's request to abort: the transaction is empty", self._name)
            return
        log.info("%s: aborting the transaction as the task requested", self._name)
        await self._producer.abort_transaction()
        self._open = False
        self.aborted += 1

    async def abort(self, timeout_s: float | None = None) -> None:
        """After a failure: abort the open transaction if the producer still can (best effort,
        waiting at most `timeout_s` for a broker that does not answer)."""
        self._offsets.clear()
        if not self._open:
            return
        self._open = False
        try:
            await asyncio.wait_for(self._producer.abort_transaction(), timeout_s)
            self.aborted += 1
        except Exception as exc:
            # A fenced or failed producer cannot abort; the broker aborts the transaction when the
            # next producer of this id starts, or when it times out.
            log.warning("%s could not abort its transaction: %r", self._name, exc)


def task_producer(
    spec: TaskSpec, producer: ProducerClient | None = None
) -> tuple[ProducerClient, SourceTransactions | None]:
    """A source task's producer and, under exactly-once support, the transactions it runs.

    `producer` (a test's) is used as given; otherwise a real one is made, transactional when the
    worker gives the task exactly-once delivery.
    """
    settings = ExactlyOnceSource.for_task(spec)
    if settings is None:
        return producer or create_producer(spec.worker.props, spec.connector_config), None
    made = producer or create_producer(spec.worker.props, spec.connector_config, settings.transactional_id)
    transactional: Any = made  # a transactional producer, as `create_producer` promises
    context = WorkerTransactionContext() if settings.boundary is TransactionBoundary.CONNECTOR else None
    name = f"Source task {spec.id}"
    return made, SourceTransactions(transactional, spec.id.connector, settings, context, name)
