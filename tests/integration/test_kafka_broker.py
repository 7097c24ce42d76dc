"""The session broker from ``scripts/kafka_broker.py`` is a real Kafka: produce, consume, describe."""

from __future__ import annotations

from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

pytestmark = pytest.mark.integration


async def test_produce_and_consume_round_trip(kafka_bootstrap: str, unique_topic: str) -> None:
    admin = AIOKafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(unique_topic, num_partitions=1, replication_factor=1)])
    finally:
        await admin.close()

    sent = [(f"k{i}".encode(), f"v{i}".encode()) for i in range(5)]
    producer = AIOKafkaProducer(bootstrap_servers=kafka_bootstrap, acks="all")
    await producer.start()
    try:
        for key, value in sent:
            await producer.send_and_wait(unique_topic, value, key=key)
    finally:
        await producer.stop()

    consumer = AIOKafkaConsumer(
        unique_topic,
        bootstrap_servers=kafka_bootstrap,
        group_id=f"{unique_topic}-group",
        auto_offset_reset="earliest",
        enable_auto_commit=False,
    )
    await consumer.start()
    received: list[tuple[bytes | None, bytes | None]] = []
    try:
        while len(received) < len(sent):
            batches = await consumer.getmany(timeout_ms=10_000)
            assert batches, f"no records within 10 s; received {received!r} so far"
            for records in batches.values():
                received.extend((record.key, record.value) for record in records)
        await consumer.commit()
    finally:
        await consumer.stop()

    assert received == sent


async def test_cluster_id_matches_describe_cluster(kafka_broker: Any) -> None:
    admin = AIOKafkaAdminClient(bootstrap_servers=kafka_broker.bootstrap_servers)
    await admin.start()
    try:
        cluster = await admin.describe_cluster()
    finally:
        await admin.close()

    assert cluster["cluster_id"] == kafka_broker.cluster_id
    assert [(b["host"], b["port"]) for b in cluster["brokers"]] == [("127.0.0.1", kafka_broker.port)]


def test_broker_writes_its_log(kafka_broker: Any) -> None:
    assert kafka_broker.running
    assert "Kafka Server started" in kafka_broker.log_path.read_text(encoding="utf-8")
