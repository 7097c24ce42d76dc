"""A sink task's offsets and its batch awaiting `put`: pure bookkeeping, no I/O.

The sink loop records each partition's position when it is assigned (`SinkOffsets.assigned`: Kafka
counts it as committed) and what `put` accepted (`SinkOffsets.delivered`), asks the task what is
durable (`pre_commit`) and commits `SinkOffsets.to_commit` of the answer, Kafka's rules: only
partitions still assigned, never beyond what was delivered, nothing when no offset changed since
the last successful commit, and else every assigned partition, so the group holds an offset for each
(what ``GET /connectors/{name}/offsets`` lists). A commit that failed leaves `committed` as it was,
so the next commit retries it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import Any

from kconnect.records import SinkBatch, SinkRecord
from kconnect.task import TopicPartition

log = logging.getLogger(__name__)


def source_partition(record: SinkRecord) -> TopicPartition:
    """The Kafka partition a sink record was read from, whatever transformations changed."""
    return TopicPartition(
        record.original_topic or record.topic,
        record.original_kafka_partition if record.original_kafka_partition is not None else 0,
    )


@dataclass
class SinkOffsets:
    """Per partition: the next offset after what `put` accepted, and what the group has committed."""

    current: dict[TopicPartition, int] = field(default_factory=dict)
    committed: dict[TopicPartition, int] = field(default_factory=dict)

    def delivered(self, next_offsets: Mapping[TopicPartition, int]) -> None:
        """`put` accepted records up to (not including) these offsets."""
        self.current.update(next_offsets)

    def assigned(self, positions: Mapping[TopicPartition, int]) -> None:
        """Newly assigned partitions start at these positions, which count as committed (Kafka's
        WorkerSinkTask does the same when partitions are assigned)."""
        self.current.update(positions)
        self.committed.update(positions)

    def to_commit(
        self, task_offsets: Mapping[TopicPartition, int], assigned: Set[TopicPartition]
    ) -> dict[TopicPartition, int]:
        """Of what `pre_commit` returned, the offsets to commit now (Kafka's WorkerSinkTask rules).

        Every assigned partition with a known offset is committed, at what the task returned or else
        at its last committed offset; nothing at all when that equals what was last committed.
        """
        requested = {tp: offset for tp, offset in self.current.items() if tp in assigned}
        last = {tp: offset for tp, offset in self.committed.items() if tp in requested}
        result = dict(last)
        for tp, offset in task_offsets.items():
            if tp not in requested:
                log.warning("Ignoring the offset %s/%d from pre_commit: partition not assigned", tp, offset)
            elif offset > requested[tp]:
                log.warning(
                    "Ignoring the offset %s/%d from pre_commit: not yet consumed (current %d)",
                    tp,
                    offset,
                    requested[tp],
                )
            else:
                result[tp] = offset
        return {} if result == last else result

    def commit_succeeded(self, offsets: Mapping[TopicPartition, int]) -> None:
        """The group now holds these offsets."""
        self.committed.update(offsets)

    def forget(self, partitions: Iterable[TopicPartition]) -> None:
        """These partitions left the task (revoked): their offsets are the next owner's business."""
        for tp in partitions:
            self.current.pop(tp, None)
            self.committed.pop(tp, None)


@dataclass
class DeliveryBatch:
    """Records of one fetch on their way to `put`, with the offsets they advance once accepted.

    `next_offsets` covers every fetched record, also those converters or transformations dropped,
    so a partition whose records were all dropped still advances (Kafka does the same).
    """

    #: A `SinkBatch` when the task takes columns (`SinkTask.put_batch`), else the records for `put`.
    records: list[SinkRecord] | SinkBatch
    next_offsets: dict[TopicPartition, int]
    #: When `put` raised RetriableError: the monotonic time of the next attempt.
    retry_at: float = 0.0
    #: The fetched messages, per partition in offset order: what an errant record was consumed as.
    consumed: Mapping[TopicPartition, Sequence[Any]] = field(default_factory=dict)

    def drop(self, partitions: Set[TopicPartition]) -> None:
        """Forget records of revoked partitions: their new owner reads them from the committed offset."""
        if isinstance(self.records, SinkBatch):
            self.records = self.records.without(partitions)
        else:
            self.records = [r for r in self.records if source_partition(r) not in partitions]
        for tp in partitions:
            self.next_offsets.pop(tp, None)

    def __bool__(self) -> bool:
        return bool(self.next_offsets)
