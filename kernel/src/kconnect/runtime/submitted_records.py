"""Which source offsets are safe to commit: pure bookkeeping, no I/O.

Records of one source partition are acknowledged by Kafka possibly out of order; an offset may
be committed only when it and every earlier record of the same source partition were
acknowledged (Kafka's SubmittedRecords). The source loop calls `submit` before sending a record,
`ack` from the send's completion, and `committable` on each offset flush.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


def partition_key(partition: Mapping[str, Any] | None) -> str:
    """A stable, hashable key for a source partition (its canonical JSON)."""
    return json.dumps(partition, sort_keys=True, separators=(",", ":"), default=str)


@dataclass(slots=True)
class SubmittedRecord:
    """Records sent to Kafka and not yet committed: one record, or a batch committed as a whole
    (`kconnect.records.SourceBatch`: its offset is the one after its last record)."""

    partition: Mapping[str, Any] | None
    offset: Mapping[str, Any] | None
    #: How many of its records Kafka has not acknowledged yet.
    unacked: int = 1

    @property
    def acked(self) -> bool:
        """Kafka acknowledged every one of its records."""
        return not self.unacked


@dataclass
class SubmittedRecords:
    """Per-partition queues of in-flight records, in send order."""

    _queues: dict[str, deque[SubmittedRecord]] = field(default_factory=dict)
    _partitions: dict[str, Mapping[str, Any] | None] = field(default_factory=dict)
    _pending: int = 0
    #: Connectors usually reuse one partition dict for a whole poll: skip re-serialising it and
    #: looking its queue up (the queue is forgotten when `committable` drops it).
    _last_partition: Mapping[str, Any] | None = None
    _last_queue: deque[SubmittedRecord] | None = None

    def submit(
        self, partition: Mapping[str, Any] | None, offset: Mapping[str, Any] | None, count: int = 1
    ) -> SubmittedRecord:
        """Record that a record (or `count` records sharing one offset) with this source
        partition/offset is about to be sent; `count` 0 is acknowledged at once."""
        record = SubmittedRecord(partition, offset, count)
        queue = self._last_queue
        if queue is None or partition is not self._last_partition:
            key = partition_key(partition)
            queue = self._queues.get(key)
            if queue is None:
                queue = self._queues[key] = deque()
                self._partitions[key] = partition
            self._last_partition, self._last_queue = partition, queue
        queue.append(record)
        self._pending += count
        return record

    def ack(self, record: SubmittedRecord, count: int | None = None) -> None:
        """Kafka acknowledged `count` of its records (None: all that are left)."""
        acked = record.unacked if count is None else min(count, record.unacked)
        record.unacked -= acked
        self._pending -= acked

    @property
    def pending(self) -> int:
        """How many submitted records Kafka has not acknowledged yet."""
        return self._pending

    def committable(self) -> list[tuple[Mapping[str, Any], Mapping[str, Any] | None]]:
        """Pop the acknowledged prefix of every partition; return its newest offset per partition.

        Partitions with no acknowledged prefix (or a None partition, which Kafka never commits)
        are left out.
        """
        result: list[tuple[Mapping[str, Any], Mapping[str, Any] | None]] = []
        for key, queue in self._queues.items():
            newest: SubmittedRecord | None = None
            while queue and queue[0].acked:
                newest = queue.popleft()
            partition = self._partitions[key]
            if newest is not None and partition is not None and newest.offset is not None:
                result.append((partition, newest.offset))
        self._queues = {k: q for k, q in self._queues.items() if q}
        self._last_queue = None
        return result
