"""Topic creation by source connectors (KIP-158) on the real broker, with real workers and Spark.

Source connectors with ``topic.creation.*`` groups write to topics that do not exist yet; the
broker's admin API then shows each topic with the partitions and configs its group gave it, and
every line of the source files arrived. A connector without the keys, and a worker whose
``topic.creation.enable`` is false, leave creation to the broker (its defaults: one partition,
``cleanup.policy=delete``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType

from tests.integration.harness import Connectors, lines
from tests.worker_process import WorkerProcess

pytestmark = pytest.mark.integration

T = "org.apache.kafka.connect.transforms"
#: The broker's default retention (7 days): a topic config nobody set.
BROKER_RETENTION_MS = "604800000"
LINES = 40

#: Two groups and the default; ``wide`` sets its partitions, ``compacted`` takes the default's.
GROUPS = {
    "topic.creation.groups": "compacted,wide",
    "topic.creation.default.replication.factor": "-1",  # the broker's default.replication.factor
    "topic.creation.default.partitions": "3",
    "topic.creation.default.retention.ms": "7200000",
    "topic.creation.compacted.include": r".*-state",
    "topic.creation.compacted.cleanup.policy": "compact",
    "topic.creation.wide.include": r".*-events, .*-clicks",
    "topic.creation.wide.exclude": r"internal-.*",
    "topic.creation.wide.partitions": "5",
    "topic.creation.wide.retention.ms": "3600000",
}
#: A compacted topic takes only keyed records: the line becomes the key.
KEYED = {
    "transforms": "hoist,key",
    "transforms.hoist.type": f"{T}.HoistField$Value",
    "transforms.hoist.field": "line",
    "transforms.key.type": f"{T}.ValueToKey",
    "transforms.key.fields": "line",
}
#: The task writes to ``<base>-raw``; RegexRouter sends the records to ``<base>-events``.
ROUTED = {
    "transforms": "route",
    "transforms.route.type": f"{T}.RegexRouter",
    "transforms.route.regex": "(.*)-raw",
    "transforms.route.replacement": "$1-events",
}
JSON_VALUES = {
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter.schemas.enable": "false",
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "key.converter.schemas.enable": "false",
}


async def _describe(bootstrap: str, topic: str) -> tuple[int, dict[str, str]]:
    """The topic's partition count and its configs, as the broker's admin API shows them."""
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        [described] = await admin.describe_topics([topic])
        assert described["error_code"] == 0, described
        responses = await admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, topic, None)])
    finally:
        await admin.close()
    configs: dict[str, str] = {}
    for response in responses:
        for code, message, _type, _name, entries in response.resources:
            assert code == 0, message
            configs.update({entry[0]: entry[1] for entry in entries})
    return len(described["partitions"]), configs


def describe(bootstrap: str, topic: str) -> tuple[int, dict[str, str]]:
    """`_describe`, from a test."""
    return asyncio.run(_describe(bootstrap, topic))


def settings(bootstrap: str, topic: str) -> tuple[int, str, str]:
    """The topic's partition count, ``cleanup.policy`` and ``retention.ms``."""
    partitions, configs = describe(bootstrap, topic)
    return partitions, configs["cleanup.policy"], configs["retention.ms"]


async def _topics(bootstrap: str) -> set[str]:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        return set(await admin.list_topics())
    finally:
        await admin.close()


async def _lines(bootstrap: str, topic: str, count: int, value: Callable[[bytes], str]) -> list[str]:
    """The first `count` values of `topic` (from every partition), as `value` reads them."""
    consumer = AIOKafkaConsumer(topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest")
    await consumer.start()
    try:
        found: list[str] = []
        while len(found) < count:
            batch = await asyncio.wait_for(consumer.getmany(timeout_ms=500), 60)
            found += [value(m.value) for messages in batch.values() for m in messages if m.value]
        return found
    finally:
        await consumer.stop()


def arrived(bootstrap: str, topic: str, count: int, value: Callable[[bytes], str]) -> list[str]:
    """The lines in `topic`, sorted (the partitions interleave them)."""
    return sorted(asyncio.run(_lines(bootstrap, topic, count, value)))


def _json_line(raw: bytes) -> str:
    parsed: Any = json.loads(raw)
    return str(parsed["line"]) if isinstance(parsed, dict) else str(parsed)


def _source(connectors: Connectors, stem: str, topic: str, extra: dict[str, str]) -> Path:
    source_file = connectors.workdir / f"{stem}.txt"
    source_file.write_text(lines(0, LINES), encoding="utf-8")
    config = {"connector.class": "FileStreamSource", "file": str(source_file), "topic": topic}
    connectors.create(connectors.name(stem), {**config, **JSON_VALUES, **extra})
    return source_file


def test_each_topic_is_created_with_the_partitions_and_configs_of_its_group(
    connectors: Connectors, kafka_bootstrap: str
) -> None:
    base = connectors.topic
    _source(connectors, "state", f"{base}-state", {**GROUPS, **KEYED})
    _source(connectors, "events", f"{base}-raw", {**GROUPS, **ROUTED})
    _source(connectors, "logs", f"{base}-logs", GROUPS)
    _source(connectors, "plain", f"{base}-plain", {})

    # Consume only once they exist: a consumer asking for a missing topic has the broker create it.
    names = {f"{base}-{topic}" for topic in ("state", "events", "logs", "plain")}
    connectors.worker.wait_for("the four topics", lambda: names <= asyncio.run(_topics(kafka_bootstrap)))
    expected = [f"line {i}" for i in range(LINES)]
    for topic in ("state", "events", "logs", "plain"):
        assert arrived(kafka_bootstrap, f"{base}-{topic}", LINES, _json_line) == sorted(expected), topic

    assert settings(kafka_bootstrap, f"{base}-state") == (3, "compact", BROKER_RETENTION_MS)
    assert settings(kafka_bootstrap, f"{base}-events") == (5, "delete", "3600000")
    assert settings(kafka_bootstrap, f"{base}-logs") == (3, "delete", "7200000")
    assert settings(kafka_bootstrap, f"{base}-plain") == (1, "delete", BROKER_RETENTION_MS)  # the broker's
    assert f"{base}-raw" not in asyncio.run(_topics(kafka_bootstrap))  # only the routed topic exists


def test_validate_answers_name_the_missing_default_counts(connectors: Connectors) -> None:
    name = connectors.name("bad")
    config = {
        "connector.class": "FileStreamSource",
        "name": name,
        "topic": "t",
        "topic.creation.groups": "wide",
    }
    response = connectors.worker.request("PUT", "/connector-plugins/FileStreamSource/config/validate", config)
    assert response.status_code == 200, response.text
    errors = {
        c["value"]["name"]: c["value"]["errors"] for c in response.json()["configs"] if c["value"]["errors"]
    }
    assert errors == {
        f"topic.creation.default.{key}": [
            f'Missing required configuration "topic.creation.default.{key}" which has no default value.'
        ]
        for key in ("replication.factor", "partitions")
    }
    create = connectors.worker.request("POST", "/connectors", {"name": name, "config": config})
    assert create.status_code == 400, create.text


def test_a_worker_with_topic_creation_off_leaves_the_topic_to_the_broker(
    start_worker: Callable[..., WorkerProcess], tmp_path: Path, kafka_bootstrap: str, unique_topic: str
) -> None:
    worker = start_worker({"topic.creation.enable": "false"})
    source_file = tmp_path / "in.txt"
    source_file.write_text(lines(0, LINES), encoding="utf-8")
    config = {"connector.class": "FileStreamSource", "file": str(source_file), "topic": unique_topic}
    response = worker.request(
        "POST", "/connectors", {"name": "src", "config": {**config, **GROUPS, **JSON_VALUES}}
    )
    assert response.status_code == 201, response.text
    worker.wait_for("the topic", lambda: unique_topic in asyncio.run(_topics(kafka_bootstrap)))
    assert arrived(kafka_bootstrap, unique_topic, LINES, _json_line) == sorted(
        f"line {i}" for i in range(LINES)
    )
    assert settings(kafka_bootstrap, unique_topic) == (1, "delete", BROKER_RETENTION_MS)
