"""A task's producer keeps writing to every topic it wrote to when a topic created after it started
is added (aiokafka 0.14 forgets the topics it knew from its first metadata: see
`kconnect.kafka.clients.TopicTrackingProducer`), on the real broker.

It is what a source task under exactly-once support does when its connector's own offsets topic is
created after its producer started: its records, their offsets and the copy to the worker's
offsets topic go to three topics in one transaction, which must commit.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from typing import Any

import pytest
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from kconnect.kafka.clients import create_producer

from tests.integration.harness import end_offset

pytestmark = pytest.mark.integration


async def _write_before_and_after_a_new_topic(bootstrap: str, transactional: bool) -> dict[str, int]:
    stem = f"producer-topics-{uuid.uuid4().hex[:6]}"
    before, other, new = f"{stem}-before", f"{stem}-other", f"{stem}-new"
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(before, 1, 1), NewTopic(other, 1, 1)])
        tid = f"{stem}-tx" if transactional else None
        producer: Any = create_producer({"bootstrap.servers": bootstrap}, {}, tid)
        await producer.start()
        try:
            await admin.create_topics([NewTopic(new, 1, 1)])
            if transactional:
                await producer.begin_transaction()
            acks = [await producer.send(before, b"%d" % n) for n in range(500)]
            acks.append(await producer.send(new, b"new"))
            acks.append(await producer.send(other, b"other"))
            if transactional:
                await asyncio.wait_for(producer.commit_transaction(), 20)
            await asyncio.wait_for(asyncio.gather(*acks), 20)
        finally:
            with contextlib.suppress(asyncio.TimeoutError):  # a stranded batch never flushes
                await asyncio.wait_for(producer.stop(), 10)
    finally:
        await admin.close()
    return {topic: await end_offset(bootstrap, topic) for topic in (before, other, new)}


@pytest.mark.parametrize("transactional", [False, True], ids=["plain", "transactional"])
def test_a_topic_created_after_the_producer_started_does_not_strand_the_topics_it_knew(
    kafka_bootstrap: str, transactional: bool
) -> None:
    ends = asyncio.run(_write_before_and_after_a_new_topic(kafka_bootstrap, transactional))
    # A transaction adds its commit marker to each partition.
    marker = 1 if transactional else 0
    assert list(ends.values()) == [500 + marker, 1 + marker, 1 + marker]
