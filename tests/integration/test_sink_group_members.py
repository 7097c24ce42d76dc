"""Altering or resetting a sink's offsets while its stopped tasks are still leaving the consumer group.

A STOPPED connector's status shows no tasks as soon as its empty task list is read back; its task
consumers may still be members of ``connect-<name>`` for a moment after. The broker refuses an
outside commit or group delete until they leave, so kconnect's admin waits for the group to empty
(`GROUP_EMPTY_WAIT_S`) and, past that, answers with what to do rather than the client's error.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest
from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from kconnect.errors import ConnectError
from kconnect.herder import offsets as offsets_module
from kconnect.herder.offsets import AiokafkaAdmin
from kconnect.worker_config import WorkerConfig

pytestmark = pytest.mark.integration


@pytest.fixture
async def topic(kafka_bootstrap: str) -> str:
    """A new one-partition topic."""
    name = f"members-{uuid.uuid4().hex[:8]}"
    admin = AIOKafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(name, 1, 1)])
    finally:
        await admin.close()
    return name


@pytest.fixture
async def member(kafka_bootstrap: str, topic: str) -> AsyncIterator[tuple[str, AIOKafkaConsumer]]:
    """A consumer that has joined a new group on `topic`, as a sink task's consumer would have."""
    group = f"connect-{uuid.uuid4().hex[:8]}"
    consumer = AIOKafkaConsumer(topic, bootstrap_servers=kafka_bootstrap, group_id=group)
    await consumer.start()
    await asyncio.wait_for(_joined(consumer), 30)
    try:
        yield group, consumer
    finally:
        await consumer.stop()


async def _joined(consumer: AIOKafkaConsumer) -> None:
    while not consumer.assignment():
        await consumer.getmany(timeout_ms=200)


def _admin(bootstrap: str) -> AiokafkaAdmin:
    return AiokafkaAdmin(WorkerConfig({"bootstrap.servers": bootstrap}))


async def _leave_after(consumer: AIOKafkaConsumer, seconds: float) -> None:
    await asyncio.sleep(seconds)
    await consumer.stop()


async def test_an_alter_waits_for_the_last_task_consumer_to_leave_then_commits(
    kafka_bootstrap: str, topic: str, member: tuple[str, AIOKafkaConsumer]
) -> None:
    group, consumer = member
    admin = _admin(kafka_bootstrap)
    leaving = asyncio.create_task(_leave_after(consumer, 2.0))
    await admin.alter_offsets(group, {(topic, 0): 42})
    await leaving
    assert await admin.list_offsets(group) == {(topic, 0): 42}


async def test_a_reset_waits_for_the_last_task_consumer_to_leave_then_deletes_the_group(
    kafka_bootstrap: str, topic: str, member: tuple[str, AIOKafkaConsumer]
) -> None:
    group, consumer = member
    await consumer.commit({TopicPartition(topic, 0): 7})
    admin = _admin(kafka_bootstrap)
    leaving = asyncio.create_task(_leave_after(consumer, 2.0))
    await admin.delete_group(group)
    await leaving
    assert await admin.list_offsets(group) == {}


async def test_a_group_that_keeps_its_members_gets_an_error_saying_what_to_do(
    kafka_bootstrap: str, topic: str, member: tuple[str, AIOKafkaConsumer], monkeypatch: pytest.MonkeyPatch
) -> None:
    group, consumer = member
    monkeypatch.setattr(offsets_module, "GROUP_EMPTY_WAIT_S", 1.0)
    admin = _admin(kafka_bootstrap)
    for write in (admin.alter_offsets(group, {(topic, 0): 1}), admin.delete_group(group)):
        with pytest.raises(ConnectError) as raised:
            await write
        message = str(raised.value)
        assert message.startswith("Failed to ") and f"consumer group {group}: it still had members" in message
        assert "retry the request" in message
    # The member is untouched: still assigned, its group still there.
    assert consumer.assignment() == {TopicPartition(topic, 0)}
