"""MirrorMaker 2's ``MirrorSourceConnector`` (``connect-mirror`` 4.3.1 from Maven Central, on
``plugin.path``) on a kconnect worker, copying a topic between two real brokers.

The session broker is the target (the worker's own cluster, as an MM2 deployment on Connect runs
next to its target); a second broker, started for this module only, is the source. Every record
of the source topic arrives on the target in ``<alias>.<topic>`` (MM2's DefaultReplicationPolicy)
with its key, value and headers, byte for byte; the connector and its task are RUNNING on the
worker; records written after the start follow, and after a restart nothing is copied twice. The
config names the plugin by a KIP-891 version range, which the worker and the task's JVM resolve
alike; a range no installed version is in is Kafka's validate error. MirrorCheckpointConnector
translates a consumer group's offset onto the target and MirrorHeartbeatConnector writes
heartbeats there, beside a MirrorSourceConnector.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from kconnect_testkit.broker import KafkaBroker
from kconnect_testkit.plugin_jars import fetch_connect_mirror

from plugins.java.tests.integration.java_worker import java_worker
from tests.integration.harness import consume_to_end
from tests.worker_process import WorkerProcess

pytestmark = pytest.mark.integration

MIRROR_SOURCE = "org.apache.kafka.connect.mirror.MirrorSourceConnector"
MIRROR_CHECKPOINT = "org.apache.kafka.connect.mirror.MirrorCheckpointConnector"
MIRROR_HEARTBEAT = "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector"
BYTES = "org.apache.kafka.connect.converters.ByteArrayConverter"
ALIAS = "upstream"

Record = tuple[bytes | None, bytes | None, tuple[tuple[str, bytes], ...]]


@pytest.fixture(scope="module")
def source_bootstrap() -> Iterator[str]:
    """A second real broker, the source cluster, for this module only (a small heap: it holds one topic)."""
    with KafkaBroker(heap="256m", log_level="WARN") as broker:
        yield str(broker.bootstrap_servers)


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str) -> Iterator[WorkerProcess]:
    """A standalone kconnect worker on the target broker with connect-mirror 4.3.1 on its plugin.path."""
    folder = tmp_path_factory.mktemp("mirror-maker")
    plugin_path = str(fetch_connect_mirror("4.3.1"))
    # local[4]: one slot per task, three MM2 connectors' tasks at once
    with java_worker(folder, kafka_bootstrap, plugin_path, BYTES, spark_master="local[4]") as ours:
        yield ours


def _mm2(connector_class: str, name: str, source: str, target: str) -> dict[str, str]:
    """The keys every MM2 connector of this module's flow (upstream -> downstream) shares."""
    return {
        "name": name,
        "connector.class": connector_class,
        "tasks.max": "1",
        "source.cluster.alias": ALIAS,
        "target.cluster.alias": "downstream",
        "source.cluster.bootstrap.servers": source,
        "target.cluster.bootstrap.servers": target,
        "key.converter": BYTES,
        "value.converter": BYTES,
        "header.converter": BYTES,
    }


def _records(start: int, stop: int) -> list[Record]:
    """Records with distinct keys, values and headers; every tenth without a key, one a tombstone."""
    made: list[Record] = []
    for i in range(start, stop):
        key = None if i % 10 == 0 else f"key-{i}".encode()
        value = None if i == start + 7 else bytes([i % 256]) + f"value {i}".encode()
        headers = (("origin", f"h{i}".encode()), ("binary", bytes([0, 255, i % 256])))
        made.append((key, value, headers))
    return made


async def _create_topic(bootstrap: str, topic: str) -> None:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1)])
    finally:
        await admin.close()


async def _produce(bootstrap: str, topic: str, records: list[Record]) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
    await producer.start()
    try:
        for key, value, headers in records:
            await producer.send_and_wait(topic, value, key=key, headers=list(headers))
    finally:
        await producer.stop()


async def _consume(bootstrap: str, topic: str, count: int, timeout: float = 120.0) -> list[Record]:
    """Every record of `topic` once it holds at least `count` (waiting for the topic to appear and
    fill), read up to its end offset then: a record copied twice shows."""
    found = await consume_to_end(bootstrap, topic, count, timeout)
    return [(m.key, m.value, tuple(m.headers)) for m in found]


def test_mirror_source_connector_copies_a_topic_between_two_brokers(
    worker: WorkerProcess, kafka_bootstrap: str, source_bootstrap: str
) -> None:
    topic = f"mirrored-{uuid.uuid4().hex[:8]}"
    first = _records(0, 200)
    asyncio.run(_create_topic(source_bootstrap, topic))
    asyncio.run(_produce(source_bootstrap, topic, first))
    name = f"mm2-{uuid.uuid4().hex[:8]}"
    config = {
        **_mm2(MIRROR_SOURCE, name, source_bootstrap, kafka_bootstrap),
        "topics": topic,
        "replication.factor": "1",
        "offset-syncs.topic.replication.factor": "1",
        "sync.topic.acls.enabled": "false",
        "refresh.topics.interval.seconds": "5",
        # KIP-891: a Maven version range; the task's JVM picks the same version as the worker.
        "connector.plugin.version": "[4.0,5.0)",
    }
    response = worker.request("PUT", f"/connectors/{name}/config", config)
    assert response.status_code in (200, 201), response.text
    status = worker.wait_for_state(name, "RUNNING", tasks=1, fail_fast=True, timeout=180)
    assert status["tasks"][0]["worker_id"] == status["connector"]["worker_id"]

    mirrored = f"{ALIAS}.{topic}"
    assert asyncio.run(_consume(kafka_bootstrap, mirrored, len(first))) == first
    later = _records(200, 260)
    asyncio.run(_produce(source_bootstrap, topic, later))
    assert asyncio.run(_consume(kafka_bootstrap, mirrored, len(first) + len(later))) == first + later
    status = worker.status(name)
    assert [status["connector"]["state"], status["tasks"][0]["state"]] == ["RUNNING", "RUNNING"]

    # A restart resumes from the source offsets the task committed through the worker's offset
    # store (MirrorSourceTask reads them with its context's offsetStorageReader): nothing copied twice.
    restart = worker.request("POST", f"/connectors/{name}/restart?includeTasks=true")
    assert restart.status_code in (202, 204), restart.text
    worker.wait_for_state(name, "RUNNING", tasks=1, fail_fast=True, timeout=180)
    after = _records(260, 300)
    asyncio.run(_produce(source_bootstrap, topic, after))
    everything = first + later + after
    assert asyncio.run(_consume(kafka_bootstrap, mirrored, len(everything))) == everything
    assert worker.request("DELETE", f"/connectors/{name}").status_code == 204


def test_a_version_range_no_installed_version_is_in_is_kafkas_validate_error(worker: WorkerProcess) -> None:
    config = {
        "connector.class": MIRROR_SOURCE,
        "name": "mm2-unmatched",
        "connector.plugin.version": "[5.0,6.0)",
    }
    response = worker.request("PUT", "/connector-plugins/MirrorSourceConnector/config/validate", config)
    assert response.status_code == 200, response.text
    errors = {
        c["value"]["name"]: c["value"]["errors"] for c in response.json()["configs"] if c["value"]["errors"]
    }
    range_text = "matches the version range [5.0,6.0), available versions: [4.3.1]"
    message = f"Plugin {MIRROR_SOURCE} not found that {range_text}"
    assert errors == {"connector.class": [message], "connector.plugin.version": [message]}
    created = worker.request("PUT", "/connectors/mm2-unmatched/config", config)
    assert created.status_code == 400 and message in created.json()["message"]


async def _commit_group(bootstrap: str, topic: str, group: str, count: int) -> None:
    """A consumer group on the source that has read `count` records of `topic` and committed."""
    consumer = AIOKafkaConsumer(
        topic,
        bootstrap_servers=bootstrap,
        group_id=group,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
    )
    await consumer.start()
    try:
        read = 0
        async with asyncio.timeout(60):
            while read < count:
                batch = await consumer.getmany(timeout_ms=500)
                read += sum(len(part) for part in batch.values())
        await consumer.commit()
    finally:
        await consumer.stop()


async def _group_offset(bootstrap: str, group: str, topic: str) -> int | None:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        offsets = await admin.list_consumer_group_offsets(group)
    finally:
        await admin.close()
    found = offsets.get(TopicPartition(topic, 0))
    return None if found is None else int(found.offset)


def test_checkpoints_and_heartbeats_beside_the_source_connector(
    worker: WorkerProcess, kafka_bootstrap: str, source_bootstrap: str
) -> None:
    """MirrorCheckpointConnector writes checkpoints and translates a source consumer group's
    committed offset onto the mirrored topic of the target (through the source connector's offset
    syncs); MirrorHeartbeatConnector writes heartbeats on the target."""
    stem = uuid.uuid4().hex[:8]
    topic, group = f"checkpointed-{stem}", f"readers-{stem}"
    asyncio.run(_create_topic(source_bootstrap, topic))
    asyncio.run(_produce(source_bootstrap, topic, _records(0, 50)))
    asyncio.run(_commit_group(source_bootstrap, topic, group, 50))
    names = {kind: f"{kind}-{stem}" for kind in ("source", "checkpoint", "heartbeat")}
    configs = {
        "source": {
            **_mm2(MIRROR_SOURCE, names["source"], source_bootstrap, kafka_bootstrap),
            "topics": topic,
            "replication.factor": "1",
            "offset-syncs.topic.replication.factor": "1",
            "sync.topic.acls.enabled": "false",
            "offset.lag.max": "0",
        },
        "checkpoint": {
            **_mm2(MIRROR_CHECKPOINT, names["checkpoint"], source_bootstrap, kafka_bootstrap),
            "groups": group,
            "checkpoints.topic.replication.factor": "1",
            "emit.checkpoints.interval.seconds": "1",
            "refresh.groups.interval.seconds": "1",
            "sync.group.offsets.enabled": "true",
            "sync.group.offsets.interval.seconds": "1",
        },
        "heartbeat": {
            **_mm2(MIRROR_HEARTBEAT, names["heartbeat"], source_bootstrap, kafka_bootstrap),
            "heartbeats.topic.replication.factor": "1",
            "emit.heartbeats.interval.seconds": "1",
        },
    }
    for kind, config in configs.items():
        response = worker.request("PUT", f"/connectors/{names[kind]}/config", config)
        assert response.status_code in (200, 201), response.text
    for name in names.values():
        worker.wait_for_state(name, "RUNNING", tasks=1, fail_fast=True, timeout=180)

    mirrored = f"{ALIAS}.{topic}"
    assert len(asyncio.run(_consume(kafka_bootstrap, mirrored, 50))) == 50
    assert asyncio.run(_consume(kafka_bootstrap, f"{ALIAS}.checkpoints.internal", 1))
    assert asyncio.run(_consume(kafka_bootstrap, "heartbeats", 1))
    worker.wait_for(
        "the group's offset translated onto the target",
        lambda: asyncio.run(_group_offset(kafka_bootstrap, group, mirrored)) == 50,
        timeout=120,
    )
    for name in names.values():
        assert worker.request("DELETE", f"/connectors/{name}").status_code == 204
