"""Sends a poll's records to Kafka as whole batches, one per topic-partition.

aiokafka's per-record `send` costs a future and several event-loop callbacks per record, which
caps a Python source task well below what the broker takes. A poll already returns records in
bulk, so the source loop converts them all, then this module packs them into aiokafka batches
(`create_batch` / `send_batch`) and acknowledges each batch's records together.

Partitions are chosen as Java's producer does: the record's own partition if it has one, the
murmur2 hash of the key if it has a key, else one partition per topic for the whole poll (Java's
sticky partitioning, which keeps batches full).

Records come one by one (`OutgoingRecord`, `send`) or as runs of one topic's keyless records in
columns (`OutgoingRun`, `send_runs`: a `SourceBatch`'s, appended to the producer's batch in a
tight loop, with no object per record). Each carries a token the callbacks get back when Kafka
answers; records that share a token (a run's) are reported as one span of them.

Records of one topic-partition go out in the order given, in batches handed to the producer in
that order; a batch's records are acknowledged together, in order, with the batch's base offset
plus their index. A failed batch acknowledges none of its records; the error callback decides
whether the failure ends the sending or is tolerated.

Flow control: at most `UNANSWERED_PER_PARTITION` batches of one partition wait for the broker at a
time (the one aiokafka has in flight and the one it queues behind it). When the broker does not
answer, `send` waits for room instead of piling records up, so a source task stops polling during
an outage, as Java's does when its producer's buffer is full, and resumes where it was. While it
waits it logs how long the broker has been silent; the producer retries the batches until
``delivery.timeout.ms`` (see `kconnect.kafka.clients.DeliveryPolicy`), and a batch that fails is reported
as a `DeliveryError` saying which partition, how many records and how long it waited.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from aiokafka.errors import KafkaTimeoutError, UnknownTopicOrPartitionError
from aiokafka.partitioner import DefaultPartitioner

from kconnect.kafka.clients import DeliveryPolicy, ProducerClient, broker_unreachable

log = logging.getLogger(__name__)

#: Batches of one topic-partition handed to the producer and not yet answered, at most.
UNANSWERED_PER_PARTITION = 2
#: The longest one wait for a topic's metadata (aiokafka's own is ``request.timeout.ms``).
MAX_METADATA_WAIT_S = 60.0
#: The headers of a record without any, as the producer's batch takes them (never changed).
_NO_HEADERS: list[tuple[str, bytes]] = []
#: How often a sender waiting for the broker logs that it still waits.
WAIT_LOG_INTERVAL_S = 10.0


@dataclass(slots=True)
class OutgoingRecord:
    """One converted record waiting to be sent, with what to acknowledge when Kafka has it."""

    topic: str
    partition: int | None
    key: bytes | None
    value: bytes | None
    timestamp_ms: int | None
    headers: list[tuple[str, bytes]]
    on_ack: Any


@dataclass(slots=True)
class OutgoingRun:
    """Converted keyless records of one topic, in columns, acknowledged with one token.

    A None column is None for every record (the producer's timestamp, no headers); a run without
    a `partition` goes to the topic's partition of this send, as keyless records do.
    """

    topic: str
    partition: int | None
    values: Sequence[bytes | None]
    timestamps: Sequence[int | None] | None
    headers: Sequence[list[tuple[str, bytes]]] | None
    on_ack: Any


#: Consecutive records of a batch that share an acknowledgement token: the token, how many.
Span = tuple[Any, int]


@dataclass(slots=True)
class _Batch:
    builder: Any
    #: The records appended, as spans of one token, in order.
    spans: list[Span] = field(default_factory=list)
    count: int = 0
    handed_at: float = 0.0

    def add(self, token: Any, count: int) -> None:
        """`count` more records with `token` were appended."""
        if count:
            self.spans.append((token, count))
            self.count += count


class DeliveryError(Exception):
    """Kafka did not take a batch: it refused it, or did not answer within ``delivery.timeout.ms``."""


class _Failed(Exception):
    """A batch failed: the send under way ends there, handing nothing more over (`_stop_if_failed`)."""


class SendAbandoned(Exception):
    """`send` stopped waiting for the broker because the task is stopping, or stopped sending because
    it was halted; nothing unsent is lost (it was not acknowledged, so its offset is not committed)."""


AckCallback = Callable[[Sequence[Span], Any], None]
"""Called once per acknowledged batch: its records' tokens in order, as spans, and the metadata of
the first record (the others' offsets follow it one by one)."""
ErrorCallback = Callable[[BaseException, Sequence[Span]], bool]
"""Called once per failed batch with the error and the batch's records' tokens, as spans; True
when the caller tolerates the failure (``errors.tolerance=all``: the records are skipped and
sending goes on), False when it fails the task (no further batch is handed over)."""


class BatchSender:
    """Packs records into per-partition batches and sends them; one instance per source task."""

    def __init__(
        self,
        producer: ProducerClient,
        on_ack: AckCallback,
        on_error: ErrorCallback,
        *,
        policy: DeliveryPolicy | None = None,
        stopping: Callable[[], bool] = lambda: False,
        halted: Callable[[], bool] = lambda: False,
        name: str = "source task",
    ) -> None:
        """Send through `producer`; `on_ack` runs per acknowledged batch, `on_error` per failed batch.

        `stopping` is asked while `send` waits for the broker: when it answers True, `send` raises
        `SendAbandoned`. `halted` is asked before each batch is handed over: when it answers True
        (nothing more may be sent: the task's worker is gone), `send` raises `SendAbandoned` with
        the rest unsent. `name` labels the log lines.
        """
        self._producer = producer
        self._on_ack = on_ack
        self._on_error = on_error
        self._policy = policy or DeliveryPolicy()
        self._stopping = stopping
        self._halted = halted
        self._name = name
        self._partitioner = DefaultPartitioner()
        self._unanswered: Counter[tuple[str, int]] = Counter()
        self._answered = asyncio.Event()
        #: Topics the producer had metadata of when last asked (see `_partitions`).
        self._with_metadata: set[str] = set()
        self.failed = False

    async def send(self, records: Sequence[OutgoingRecord]) -> None:
        """Send these records; returns once every batch is handed to the producer (not yet acked).

        Stops handing batches over once a batch failed (the caller fails the task). Raises
        `SendAbandoned` if the task stops while the broker does not answer.
        """
        with contextlib.suppress(_Failed):
            await self._send_records(records)

    async def _send_records(self, records: Sequence[OutgoingRecord]) -> None:
        sticky: dict[str, int] = {}
        open_batches: dict[tuple[str, int], _Batch] = {}
        for record in records:
            partition = record.partition
            if partition is None:
                partition = sticky.get(record.topic) if record.key is None else None
                if partition is None:
                    partition = await self._partition_for(record, sticky)
            slot = (record.topic, partition)
            batch = open_batches.get(slot)
            if batch is None:
                batch = open_batches[slot] = _Batch(self._producer.create_batch())
            if not self._append(batch, record):
                batch = await self._next_batch(batch, slot, open_batches)
                if not self._append(batch, record):
                    raise ValueError(
                        f"a record for {record.topic} is larger than the producer's batch size "
                        f"({len(record.value or b'') + len(record.key or b'')} bytes)"
                    )
        await self._send_open(open_batches)

    @staticmethod
    def _append(batch: _Batch, record: OutgoingRecord) -> bool:
        metadata = batch.builder.append(
            timestamp=record.timestamp_ms, key=record.key, value=record.value, headers=record.headers
        )
        if metadata is None:
            return False
        batch.add(record.on_ack, 1)
        return True

    async def send_runs(self, runs: Sequence[OutgoingRun]) -> None:
        """Send these runs of records, as `send` sends records (the same order, flow control and
        failures); a run is appended in one loop, reported to the callbacks as spans of its token."""
        with contextlib.suppress(_Failed):
            await self._send_runs(runs)

    async def _send_runs(self, runs: Sequence[OutgoingRun]) -> None:
        sticky: dict[str, int] = {}
        open_batches: dict[tuple[str, int], _Batch] = {}
        for run in runs:
            partition = run.partition
            if partition is None:
                partition = await self._sticky_partition(run.topic, sticky)
            slot = (run.topic, partition)
            batch = open_batches.get(slot)
            if batch is None:
                batch = open_batches[slot] = _Batch(self._producer.create_batch())
            append = batch.builder.append
            timestamps = run.timestamps or itertools.repeat(None)
            headers = run.headers or itertools.repeat(_NO_HEADERS)
            appended = 0
            # An absent column repeats without end: the values say how many records there are.
            for value, timestamp, wire_headers in zip(run.values, timestamps, headers, strict=False):
                if append(timestamp=timestamp, key=None, value=value, headers=wire_headers) is None:
                    batch.add(run.on_ack, appended)
                    appended = 0
                    batch = await self._next_batch(batch, slot, open_batches)
                    append = batch.builder.append
                    if append(timestamp=timestamp, key=None, value=value, headers=wire_headers) is None:
                        raise ValueError(
                            f"a record for {run.topic} is larger than the producer's batch size "
                            f"({len(value or b'')} bytes)"
                        )
                appended += 1
            batch.add(run.on_ack, appended)
        await self._send_open(open_batches)

    async def _next_batch(
        self, full: _Batch, slot: tuple[str, int], open_batches: dict[tuple[str, int], _Batch]
    ) -> _Batch:
        """Send the full batch of `slot` and open the next one in its place."""
        await self._send_batch(full, *slot)
        batch = open_batches[slot] = _Batch(self._producer.create_batch())
        return batch

    async def _send_open(self, open_batches: dict[tuple[str, int], _Batch]) -> None:
        for (topic, partition), batch in open_batches.items():
            await self._send_batch(batch, topic, partition)

    async def _partition_for(self, record: OutgoingRecord, sticky: dict[str, int]) -> int:
        if record.partition is not None:
            return record.partition
        if record.key is None:
            return await self._sticky_partition(record.topic, sticky)
        partitions = await self._partitions(record.topic)
        return int(self._partitioner(record.key, partitions, partitions))

    async def _sticky_partition(self, topic: str, sticky: dict[str, int]) -> int:
        """The one partition of `topic` this send puts keyless records in, chosen at random on first
        use (Java's sticky partitioning); `sticky` holds the send's choices."""
        if topic not in sticky:
            sticky[topic] = random.choice(await self._partitions(topic))
        return sticky[topic]

    async def _partitions(self, topic: str) -> list[int]:
        """The topic's partitions, waiting for its metadata at most ``max.block.ms`` (without end by
        default, as Connect's producers), then a `DeliveryError` with the Java producer's message.

        A topic whose metadata the producer already had is asked directly: the bounded wait (a task
        of its own per call) is only for a topic without metadata yet, or whose metadata was lost.
        """
        if topic in self._with_metadata:
            try:
                return sorted(await self._producer.partitions_for(topic))
            except (KafkaTimeoutError, UnknownTopicOrPartitionError):
                self._with_metadata.discard(topic)
        started = time.monotonic()
        limit_s = self._policy.max_block_ms / 1000
        while True:
            remaining = limit_s - (time.monotonic() - started)
            try:
                # aiokafka waits request.timeout.ms by itself; the shared metadata request it waits
                # for is shielded, so giving up on it early cancels nothing else.
                wait = min(max(remaining, 0.001), MAX_METADATA_WAIT_S)
                partitions = sorted(await asyncio.wait_for(self._producer.partitions_for(topic), wait))
                self._with_metadata.add(topic)
                return partitions
            except (asyncio.TimeoutError, KafkaTimeoutError, UnknownTopicOrPartitionError):
                if self._stopping():
                    raise SendAbandoned() from None
                self._stop_if_failed()
                waited = time.monotonic() - started
                if waited >= limit_s:
                    raise DeliveryError(
                        f"Topic {topic} not present in metadata after {self._policy.max_block_ms} ms."
                    ) from None
                log.warning(
                    "%s: no metadata of topic %s from Kafka for %.0f s yet", self._name, topic, waited
                )

    async def _send_batch(self, batch: _Batch, topic: str, partition: int) -> None:
        self._stop_if_failed()
        if not batch.count:
            return
        slot = (topic, partition)
        await self._wait_for_room(slot)
        self._stop_if_failed()
        if self._halted():
            raise SendAbandoned()
        batch.builder.close()
        while True:
            if topic not in self._with_metadata:
                # aiokafka's send_batch waits for the topic's metadata only request.timeout.ms.
                await self._partitions(topic)
            self._stop_if_failed()
            try:
                future = await self._producer.send_batch(batch.builder, topic, partition=partition)
                break
            except (KafkaTimeoutError, UnknownTopicOrPartitionError):
                self._with_metadata.discard(topic)
                # aiokafka's queue for the partition stayed full for request.timeout.ms, or the
                # topic's metadata was lost meanwhile: the batch was not taken, so offering it again
                # loses and duplicates nothing (and once a batch failed, not offering it is safe).
                if self._stopping():
                    raise SendAbandoned() from None
        batch.handed_at = time.monotonic()
        self._unanswered[slot] += 1
        future.add_done_callback(lambda done: self._acknowledge(done, batch, slot))

    def _stop_if_failed(self) -> None:
        """Raise `_Failed` once a batch failed, wherever a send waits or is about to hand a batch
        over: the caller fails the task with that batch's error (aiokafka's queue may still hold the
        failed partition's next batch, so offering more would wait on it without end)."""
        if self.failed:
            raise _Failed()

    async def _wait_for_room(self, slot: tuple[str, int]) -> None:
        """Wait until `slot` has fewer than `UNANSWERED_PER_PARTITION` unanswered batches."""
        started = time.monotonic()
        next_log = started + WAIT_LOG_INTERVAL_S
        while self._unanswered[slot] >= UNANSWERED_PER_PARTITION and not self.failed:
            self._answered.clear()
            try:
                await asyncio.wait_for(self._answered.wait(), 1.0)
            except asyncio.TimeoutError:
                if self._stopping():
                    raise SendAbandoned() from None
                if time.monotonic() >= next_log:
                    next_log += WAIT_LOG_INTERVAL_S
                    log.warning(
                        "%s: Kafka has not answered for %.0f s (%d batches of %s-%d waiting); the "
                        "producer retries them until delivery.timeout.ms=%d",
                        self._name,
                        time.monotonic() - started,
                        self._unanswered[slot],
                        *slot,
                        self._policy.delivery_timeout_ms,
                    )

    def _acknowledge(self, done: asyncio.Future[Any], batch: _Batch, slot: tuple[str, int]) -> None:
        self._unanswered[slot] -= 1
        if not self._unanswered[slot]:
            del self._unanswered[slot]
        self._answered.set()
        if done.cancelled():
            self.failed = True
            self._on_error(asyncio.CancelledError("send cancelled"), batch.spans)
            return
        error = done.exception()
        if error is not None:
            if not self._on_error(self._delivery_error(error, batch, slot), batch.spans):
                self.failed = True
            return
        self._on_ack(batch.spans, done.result())

    def _delivery_error(self, error: BaseException, batch: _Batch, slot: tuple[str, int]) -> DeliveryError:
        waited = time.monotonic() - batch.handed_at
        count = batch.count
        what = f"{count} record{'s' if count != 1 else ''} for {slot[0]}-{slot[1]}"
        if broker_unreachable(error):
            message = (
                f"Kafka did not acknowledge {what} within delivery.timeout.ms="
                f"{self._policy.delivery_timeout_ms} ms: the broker was unreachable or kept failing "
                f"for {waited:.1f} s (last error: {error!r})"
            )
        else:
            message = f"Kafka rejected {what}: {error!r}"
        failure = DeliveryError(message)
        failure.__cause__ = error
        return failure
