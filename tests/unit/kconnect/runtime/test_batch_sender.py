"""BatchSender with a fake producer: partition choice, order across batches, acks and failures."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from aiokafka.errors import RequestTimedOutError
from aiokafka.partitioner import DefaultPartitioner
from kconnect.kafka.clients import DeliveryPolicy
from kconnect.runtime.batch_sender import (
    UNANSWERED_PER_PARTITION,
    BatchSender,
    DeliveryError,
    OutgoingRecord,
    OutgoingRun,
    SendAbandoned,
    Span,
)

from tests.unit.kconnect.runtime.loop_fakes import FakeProducer


def out(
    value: str, key: bytes | None = None, partition: int | None = None, topic: str = "t"
) -> OutgoingRecord:
    return OutgoingRecord(topic, partition, key, value.encode(), None, [], value)


class Acks:
    def __init__(self) -> None:
        self.acked: list[tuple[str, int, int]] = []
        self.errors: list[BaseException] = []

    def on_ack(self, spans: Sequence[Span], metadata: Any) -> None:
        """One call per batch; record i of it is at the first record's offset + i."""
        index = 0
        for token, count in spans:
            for _ in range(count):
                self.acked.append((token, metadata.partition, metadata.offset + index))
                index += 1

    def on_error(self, error: BaseException, spans: Sequence[Span]) -> bool:
        self.errors.append(error)
        return False


async def test_keyless_records_of_one_poll_stick_to_one_partition_in_order() -> None:
    producer, acks = FakeProducer(partitions=3, batch_capacity=4), Acks()
    await BatchSender(producer, acks.on_ack, acks.on_error).send([out(f"v{i}") for i in range(10)])
    await producer.flush()  # done-callbacks run on the next loop iteration, as aiokafka's
    assert len({s.partition for s in producer.sent}) == 1, (
        "Java's sticky partitioning: one partition per poll"
    )
    assert [len(s.batch.records) for s in producer.sent] == [4, 4, 2], "full batches are sent, then a new one"
    assert [a[0] for a in acks.acked] == [f"v{i}" for i in range(10)]
    assert [a[2] for a in acks.acked] == list(range(10)), (
        "each record gets the batch's base offset + its index"
    )


async def test_keys_choose_the_partition_as_javas_murmur2_and_explicit_partitions_win() -> None:
    producer, acks = FakeProducer(partitions=3), Acks()
    records = [out("k1", key=b"alpha"), out("k2", key=b"beta"), out("p2", partition=2)]
    await BatchSender(producer, acks.on_ack, acks.on_error).send(records)
    await producer.flush()  # done-callbacks run on the next loop iteration, as aiokafka's
    expected = {
        v: DefaultPartitioner()(k, [0, 1, 2], [0, 1, 2]) for v, k in (("k1", b"alpha"), ("k2", b"beta"))
    }
    got = {a[0]: a[1] for a in acks.acked}
    assert got == {**expected, "p2": 2}


async def test_a_failed_batch_acknowledges_none_of_its_records() -> None:
    producer, acks = FakeProducer(partitions=3), Acks()
    producer.fail = {("t", 1)}
    records = [out("a", partition=0), out("b", partition=1), out("c", partition=0), out("d", partition=1)]
    await BatchSender(producer, acks.on_ack, acks.on_error).send(records)
    await producer.flush()  # done-callbacks run on the next loop iteration, as aiokafka's
    assert [a[0] for a in acks.acked] == ["a", "c"]
    assert len(acks.errors) == 1 and "rejected" in str(acks.errors[0])


async def test_acknowledgements_arrive_only_when_kafka_answers() -> None:
    producer, acks = FakeProducer(auto_ack=False), Acks()
    await BatchSender(producer, acks.on_ack, acks.on_error).send([out("a", partition=0)])
    assert acks.acked == [], "handed to the producer is not acknowledged"
    producer.answer(producer.sent[0])
    await producer.flush()
    assert acks.acked == [("a", 0, 0)]


async def test_a_record_larger_than_a_batch_names_its_topic() -> None:
    producer, acks = FakeProducer(), Acks()
    with pytest.raises(ValueError, match="a record for t is larger than the producer's batch size"):
        await BatchSender(producer, acks.on_ack, acks.on_error).send([out("x" * 2000, partition=0)])


async def test_a_partition_holds_at_most_two_unanswered_batches_and_goes_on_when_answered() -> None:
    """A silent broker stops the sender instead of piling batches up; an answer lets it go on."""
    producer, acks = FakeProducer(batch_capacity=1, auto_ack=False), Acks()
    sender = BatchSender(producer, acks.on_ack, acks.on_error)
    send = asyncio.create_task(sender.send([out(f"v{i}", partition=0) for i in range(4)]))
    await asyncio.sleep(0.05)
    assert len(producer.sent) == UNANSWERED_PER_PARTITION and not send.done()
    producer.answer(producer.sent[0])
    await asyncio.sleep(0.05)
    assert len(producer.sent) == 3, "one answer makes room for one batch"
    for sent in producer.sent[1:]:
        producer.answer(sent)
    await asyncio.wait_for(send, 5)
    for sent in producer.sent:
        producer.answer(sent)
    await producer.flush()
    assert [a[0] for a in acks.acked] == ["v0", "v1", "v2", "v3"]


async def test_a_stop_while_the_broker_is_silent_abandons_the_send() -> None:
    producer, acks = FakeProducer(batch_capacity=1, auto_ack=False), Acks()
    stopping = False
    sender = BatchSender(producer, acks.on_ack, acks.on_error, stopping=lambda: stopping)
    send = asyncio.create_task(sender.send([out(f"v{i}", partition=0) for i in range(4)]))
    await asyncio.sleep(0.05)
    stopping = True
    with pytest.raises(SendAbandoned):
        await asyncio.wait_for(send, 5)
    assert acks.acked == [] and len(producer.sent) == 2, "nothing unanswered counts as sent"


async def test_a_batch_the_broker_never_answered_fails_saying_how_long_and_why() -> None:
    producer, acks = FakeProducer(auto_ack=False), Acks()
    policy = DeliveryPolicy(delivery_timeout_ms=8000)
    await BatchSender(producer, acks.on_ack, acks.on_error, policy=policy).send([out("a", partition=2)])
    producer.sent[0].future.set_exception(RequestTimedOutError())
    await producer.flush()
    assert acks.acked == [] and len(acks.errors) == 1
    message = str(acks.errors[0])
    assert message.startswith("Kafka did not acknowledge 1 record for t-2 within delivery.timeout.ms=8000 ms")
    assert "the broker was unreachable" in message and "RequestTimedOutError" in message


async def test_after_a_failed_batch_the_batches_waiting_for_room_are_not_handed_over() -> None:
    """The broker is silent: two batches are out, the third waits for room. The first fails past
    delivery.timeout.ms, so the send ends there (the caller fails the task) with nothing more sent."""
    producer, acks = FakeProducer(batch_capacity=1, auto_ack=False), Acks()
    sender = BatchSender(producer, acks.on_ack, acks.on_error)
    send = asyncio.create_task(sender.send([out(f"v{i}", partition=0) for i in range(4)]))
    await asyncio.sleep(0.05)
    producer.sent[0].future.set_exception(RequestTimedOutError())
    await asyncio.wait_for(send, 5)
    assert len(producer.sent) == UNANSWERED_PER_PARTITION and sender.failed
    assert len(acks.errors) == 1 and acks.acked == []


async def test_a_batch_failing_while_the_producers_queue_stays_full_ends_the_send() -> None:
    """aiokafka refuses a batch while its queue for the partition stays full (the broker is frozen);
    offering it again goes on only until a batch out there fails: then the send ends."""
    producer, acks = FakeProducer(auto_ack=False), Acks()
    sender = BatchSender(producer, acks.on_ack, acks.on_error)
    await sender.send_runs([run(["a"], "first", partition=0)])
    producer.queue_full = True
    send = asyncio.create_task(sender.send_runs([run(["b"], "second", partition=0)]))
    await asyncio.sleep(0.1)
    assert not send.done(), "a full queue alone is retried, as the producer waits for the broker"
    producer.sent[0].future.set_exception(RequestTimedOutError())
    await asyncio.wait_for(send, 5)
    assert sender.failed and len(acks.errors) == 1 and acks.acked == []


async def test_a_topic_without_metadata_yet_waits_as_connects_producer_and_then_sends() -> None:
    """Connect's producers wait for a topic's metadata without end (``max.block.ms``): aiokafka's own
    wait of request.timeout.ms ending does not fail the send."""
    producer, acks = FakeProducer(partitions=2), Acks()
    producer.metadata_misses = 3
    await BatchSender(producer, acks.on_ack, acks.on_error).send([out("a"), out("b", partition=1)])
    await producer.flush()
    assert [a[0] for a in acks.acked] == ["a", "b"] and not acks.errors
    assert producer.metadata_misses == 0


async def test_a_topic_without_metadata_past_max_block_ms_fails_the_send_with_javas_message() -> None:
    producer, acks = FakeProducer(partitions=2), Acks()
    producer.metadata_misses = 10**6
    sender = BatchSender(producer, acks.on_ack, acks.on_error, policy=DeliveryPolicy(max_block_ms=50))
    with pytest.raises(DeliveryError, match=r"^Topic t not present in metadata after 50 ms\.$"):
        await sender.send([out("a")])
    assert not producer.sent and not acks.acked


async def test_a_stopping_task_stops_waiting_for_metadata() -> None:
    producer, acks = FakeProducer(partitions=2), Acks()
    producer.metadata_misses = 1
    sender = BatchSender(producer, acks.on_ack, acks.on_error, stopping=lambda: True)
    with pytest.raises(SendAbandoned):
        await sender.send([out("a", partition=0)])
    assert not producer.sent


def run(values: list[str], token: str, partition: int | None = None, topic: str = "t") -> OutgoingRun:
    return OutgoingRun(topic, partition, [v.encode() for v in values], None, None, token)


async def test_runs_fill_batches_in_order_and_come_back_as_spans_of_their_token() -> None:
    producer, acks = FakeProducer(partitions=3, batch_capacity=4), Acks()
    spans: list[list[tuple[str, int]]] = []
    sender = BatchSender(producer, lambda s, m: (spans.append(list(s)), acks.on_ack(s, m)), acks.on_error)
    await sender.send_runs([run(["a1", "a2", "a3"], "A"), run(["b1", "b2", "b3"], "B")])
    await producer.flush()
    assert len({s.partition for s in producer.sent}) == 1, "keyless runs stick to one partition per send"
    assert [len(s.batch.records) for s in producer.sent] == [4, 2]
    assert spans == [[("A", 3), ("B", 1)], [("B", 2)]], "a run split across batches: a span in each"
    assert [a[2] for a in acks.acked] == list(range(6))
    assert b"".join(v or b"" for v in producer.values("t")) == b"a1a2a3b1b2b3"


async def test_a_run_with_its_own_partition_goes_there_and_a_failed_batch_acknowledges_none_of_it() -> None:
    producer, acks = FakeProducer(partitions=3), Acks()
    producer.fail = {("t", 1)}
    await BatchSender(producer, acks.on_ack, acks.on_error).send_runs(
        [run(["x", "y"], "X", 1), run(["z"], "Z", 2)]
    )
    await producer.flush()
    assert acks.acked == [("Z", 2, 0)]
    assert len(acks.errors) == 1 and "rejected 2 records for t-1" in str(acks.errors[0])
