"""SinkOffsets and DeliveryBatch: Kafka's rules for which sink offsets are committed."""

from __future__ import annotations

from kconnect import SinkRecord
from kconnect.runtime.sink_offsets import DeliveryBatch, SinkOffsets
from kconnect.task import TopicPartition

P0, P1, P2 = TopicPartition("t", 0), TopicPartition("t", 1), TopicPartition("t", 2)


def test_only_assigned_and_delivered_offsets_are_committed() -> None:
    offsets = SinkOffsets()
    offsets.delivered({P0: 10, P1: 5})
    task_answer = {P0: 8, P1: 6, P2: 3}  # P1 beyond what was delivered, P2 never delivered here
    assert offsets.to_commit(task_answer, {P0, P1, P2}) == {P0: 8}
    assert offsets.to_commit({P0: 10}, {P1}) == {}, "a partition no longer assigned is not committed"
    offsets.commit_succeeded({P0: 8})
    assert offsets.to_commit({P0: 8}, {P0, P1}) == {}, "nothing changed since the last commit"
    assert offsets.to_commit({P0: 8, P1: 5}, {P0, P1}) == {P0: 8, P1: 5}, "once one moved, all are sent"


def test_positions_at_assignment_count_as_committed_and_are_sent_with_the_first_change() -> None:
    offsets = SinkOffsets()
    offsets.assigned({P0: 0, P1: 0, P2: 7})
    assert offsets.to_commit({P0: 0, P1: 0, P2: 7}, {P0, P1, P2}) == {}, "no record yet: no commit"
    offsets.delivered({P1: 4})
    assert offsets.to_commit({P0: 0, P1: 4, P2: 7}, {P0, P1, P2}) == {P0: 0, P1: 4, P2: 7}
    # A task that returns only some partitions: the others go at their last committed offset.
    assert offsets.to_commit({P1: 4}, {P0, P1, P2}) == {P0: 0, P1: 4, P2: 7}
    assert offsets.to_commit({}, {P0, P1, P2}) == {}, "a task that returns nothing opts out"


def test_a_failed_commit_is_sent_again_and_revoked_partitions_are_forgotten() -> None:
    offsets = SinkOffsets()
    offsets.delivered({P0: 3})
    assert offsets.to_commit({P0: 3}, {P0}) == {P0: 3}
    # The commit failed (rebalance): nothing recorded, so the next round offers it again.
    assert offsets.to_commit({P0: 3}, {P0}) == {P0: 3}
    offsets.forget({P0})
    assert offsets.current == {} and offsets.to_commit({P0: 3}, {P0}) == {}


def _record(partition: int, offset: int, topic_after_transform: str = "t") -> SinkRecord:
    return SinkRecord(
        topic=topic_after_transform,
        kafka_partition=partition,
        value=f"{partition}@{offset}",
        kafka_offset=offset,
        original_topic="t",
        original_kafka_partition=partition,
        original_kafka_offset=offset,
    )


def test_a_batch_drops_revoked_partitions_by_where_records_were_read() -> None:
    batch = DeliveryBatch([_record(0, 0, "renamed"), _record(1, 0), _record(0, 1)], {P0: 2, P1: 1})
    batch.drop({P0})
    assert [r.value for r in batch.records] == ["1@0"] and batch.next_offsets == {P1: 1}
    batch.drop({P1})
    assert not batch
