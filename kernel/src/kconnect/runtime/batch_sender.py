"""Sends a poll's records to Kafka as whole batches, one per topic-partition.

aiokafka's per-record `send` costs a future and several event-loop callbacks per record, which
caps a Python source task well below what the broker takes. A poll already returns records in
bulk, so the source loop converts them all, then this module packs them into aiokafka batches
(`create_batch` / `send_batch`) and acknowledges each batch's records together.

Partitions are chosen as Java's producer does: the record's own partition if it has one, the
murmur2 hash of the key if it has a key, else one partition per topic for the whole poll (Java's
sticky partitioning, which keeps batches full).

Records of one topic-partition go out in the order given, in batches handed to the producer in
that order; a batch's records are acknowledged together, in order, with the batch's base offset
plus their index. A failed batch acknowledges none of its records.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from aiokafka.partitioner import DefaultPartitioner

from kconnect.runtime.kafka_clients import ProducerClient


@dataclass(slots=True)
class OutgoingRecord:
    """One converted record waiting to be sent, with what to acknowledge when Kafka has it."""

    topic: str
    partition: int | None
    key: bytes | None
    value: bytes | None
    timestamp_ms: int | None
    headers: Sequence[tuple[str, bytes]]
    on_ack: Any


@dataclass
class _Batch:
    builder: Any
    records: list[OutgoingRecord] = field(default_factory=list)


AckCallback = Callable[[OutgoingRecord, Any], None]
ErrorCallback = Callable[[BaseException], None]


class BatchSender:
    """Packs records into per-partition batches and sends them; one instance per source task."""

    def __init__(self, producer: ProducerClient, on_ack: AckCallback, on_error: ErrorCallback) -> None:
        """Send through `producer`; `on_ack` runs per acknowledged record, `on_error` per failed batch."""
        self._producer = producer
        self._on_ack = on_ack
        self._on_error = on_error
        self._partitioner = DefaultPartitioner()

    async def send(self, records: Sequence[OutgoingRecord]) -> None:
        """Send these records; returns once every batch is handed to the producer (not yet acked)."""
        sticky: dict[str, int] = {}
        open_batches: dict[tuple[str, int], _Batch] = {}
        for record in records:
            partition = await self._partition_for(record, sticky)
            slot = (record.topic, partition)
            batch = open_batches.get(slot)
            if batch is None:
                batch = open_batches[slot] = _Batch(self._producer.create_batch())
            if not self._append(batch, record):
                await self._send_batch(batch, *slot)
                batch = open_batches[slot] = _Batch(self._producer.create_batch())
                if not self._append(batch, record):
                    raise ValueError(
                        f"a record for {record.topic} is larger than the producer's batch size "
                        f"({len(record.value or b'') + len(record.key or b'')} bytes)"
                    )
        for (topic, partition), batch in open_batches.items():
            await self._send_batch(batch, topic, partition)

    @staticmethod
    def _append(batch: _Batch, record: OutgoingRecord) -> bool:
        metadata = batch.builder.append(
            timestamp=record.timestamp_ms, key=record.key, value=record.value, headers=list(record.headers)
        )
        if metadata is None:
            return False
        batch.records.append(record)
        return True

    async def _partition_for(self, record: OutgoingRecord, sticky: dict[str, int]) -> int:
        if record.partition is not None:
            return record.partition
        if record.key is None and record.topic in sticky:
            return sticky[record.topic]
        partitions = sorted(await self._producer.partitions_for(record.topic))
        if record.key is not None:
            return int(self._partitioner(record.key, partitions, partitions))
        sticky[record.topic] = random.choice(partitions)
        return sticky[record.topic]

    async def _send_batch(self, batch: _Batch, topic: str, partition: int) -> None:
        if not batch.records:
            return
        batch.builder.close()
        future = await self._producer.send_batch(batch.builder, topic, partition=partition)
        records = batch.records
        future.add_done_callback(lambda done: self._acknowledge(done, records))

    def _acknowledge(self, done: asyncio.Future[Any], records: list[OutgoingRecord]) -> None:
        if done.cancelled():
            self._on_error(asyncio.CancelledError("send cancelled"))
            return
        error = done.exception()
        if error is not None:
            self._on_error(error)
            return
        metadata = done.result()
        for index, record in enumerate(records):
            self._on_ack(record, metadata._replace(offset=metadata.offset + index))
