"""Which topics a sink consumes: ``topics.regex`` matches whole names, as Kafka's ``Matcher.matches()``."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from aiokafka import AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

from tests.integration.harness import Connectors, path_of
from tests.worker_process import count_lines

pytestmark = pytest.mark.integration


async def _create_and_fill(bootstrap: str, records: dict[str, list[str]]) -> None:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(topic, 1, 1) for topic in records])
    finally:
        await admin.close()
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
    await producer.start()
    try:
        for topic, values in records.items():
            for value in values:
                await producer.send_and_wait(topic, value.encode())
    finally:
        await producer.stop()


def _offsets(connectors: Connectors, name: str) -> list[dict[str, Any]]:
    response = connectors.worker.get(f"{path_of(name)}/offsets")
    assert response.status_code == 200, response.text
    return list(response.json()["offsets"])


def test_topics_regex_does_not_take_a_topic_it_only_prefixes(
    connectors: Connectors, kafka_bootstrap: str
) -> None:
    worker, orders = connectors.worker, connectors.topic
    dlq = f"{orders}-dlq"
    order_lines = [f"order-{i}" for i in range(10)]
    dead_lines = [f"dead-{i}" for i in range(5)]
    asyncio.run(_create_and_fill(kafka_bootstrap, {orders: order_lines, dlq: dead_lines}))

    sink, sink_file = connectors.name("sink"), connectors.workdir / "out.txt"
    connectors.create(
        sink,
        {
            "connector.class": "FileStreamSink",
            "file": str(sink_file),
            "topics.regex": orders,
            "value.converter": "org.apache.kafka.connect.storage.StringConverter",
            "errors.tolerance": "all",
            "errors.deadletterqueue.topic.name": dlq,
        },
    )
    worker.wait_for("the orders in the sink file", lambda: count_lines(sink_file) >= 10)
    orders_partition = {"kafka_topic": orders, "kafka_partition": 0}
    only_orders = [{"partition": orders_partition, "offset": {"kafka_offset": 10}}]
    worker.wait_for("the sink's group committed orders", lambda: _offsets(connectors, sink) == only_orders)
    assert sink_file.read_text(encoding="utf-8") == "".join(f"{line}\n" for line in order_lines)
    topics = worker.get(f"{path_of(sink)}/topics").json()
    assert topics == {sink: {"topics": [orders]}}
