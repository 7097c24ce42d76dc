"""Kafka's transformations and predicates (`plugins/transforms`) in real pipelines: broker, Spark, files.

A connector config names them as Kafka's files do (Java class names, ``transforms.<alias>.*``,
``predicates.<alias>.*``, ``.negate``); the records in Kafka and in the sink file show they ran.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from aiokafka import AIOKafkaProducer

from tests.integration.harness import Connectors, consume_records
from tests.worker_process import count_lines

pytestmark = pytest.mark.integration

T = "org.apache.kafka.connect.transforms"


def test_a_source_chain_with_a_negated_predicate_shapes_and_routes_every_record(
    connectors: Connectors, kafka_bootstrap: str
) -> None:
    source_file = connectors.workdir / "in.txt"
    source_file.write_text("".join(f"line {i}\n" for i in range(20)), encoding="utf-8")
    connectors.create(
        connectors.name("src"),
        {
            "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
            "file": str(source_file),
            "topic": connectors.topic,
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter.schemas.enable": "false",
            "transforms": "hoist,insert,route",
            "transforms.hoist.type": f"{T}.HoistField$Value",
            "transforms.hoist.field": "line",
            "transforms.insert.type": f"{T}.InsertField$Value",
            "transforms.insert.static.field": "origin",
            "transforms.insert.static.value": "kconnect",
            "transforms.route.type": f"{T}.RegexRouter",
            "transforms.route.regex": "(.*)",
            "transforms.route.replacement": "$1-routed",
            "transforms.route.predicate": "other",
            "transforms.route.negate": "true",
            "predicates": "other",
            "predicates.other.type": f"{T}.predicates.TopicNameMatches",
            "predicates.other.pattern": "does-not-match",
        },
    )
    records = asyncio.run(consume_records(kafka_bootstrap, f"{connectors.topic}-routed", 20))
    values = [json.loads(m.value) for m in records]
    assert values == [{"line": f"line {i}", "origin": "kconnect"} for i in range(20)]


async def _produce(bootstrap: str, topic: str, values: list[bytes | None]) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
    await producer.start()
    try:
        for value in values:
            await producer.send_and_wait(topic, value, key=b"k")
    finally:
        await producer.stop()


def test_a_sink_filter_with_a_predicate_drops_the_tombstones_and_keeps_the_rest(
    connectors: Connectors, kafka_bootstrap: str
) -> None:
    sink_file = connectors.workdir / "out.txt"
    values: list[bytes | None] = []
    for i in range(10):
        values += [f"keep {i}".encode(), None]
    asyncio.run(_produce(kafka_bootstrap, connectors.topic, values))
    connectors.create(
        connectors.name("sink"),
        {
            "connector.class": "FileStreamSink",
            "file": str(sink_file),
            "topics": connectors.topic,
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
            "value.converter": "org.apache.kafka.connect.storage.StringConverter",
            "transforms": "dropTombstones",
            "transforms.dropTombstones.type": f"{T}.Filter",
            "transforms.dropTombstones.predicate": "tombstone",
            "predicates": "tombstone",
            "predicates.tombstone.type": f"{T}.predicates.RecordIsTombstone",
        },
    )
    connectors.worker.wait_for("the 10 lines in the sink file", lambda: count_lines(sink_file) >= 10)
    time_to_settle = 2.0  # a tombstone after the last kept line would show up as a "null" line
    asyncio.run(asyncio.sleep(time_to_settle))
    assert sink_file.read_text(encoding="utf-8").splitlines() == [f"keep {i}" for i in range(10)]
