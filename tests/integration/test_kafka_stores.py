"""The Kafka-backed stores on the real broker: two store instances on the same topics act as two workers.

Every test uses its own topics (a unique suffix). The broker has one node, so topics are created
with replication factor 1 or -1 (the broker's default).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType
from kconnect.model import (
    ConnectorTaskId,
    RestartRequest,
    SessionKey,
    State,
    StateInfo,
    TargetState,
    TaskStateInfo,
)
from kconnect.storage import (
    InternalTopicError,
    KafkaConfigBackingStore,
    KafkaOffsetBackingStore,
    KafkaStatusBackingStore,
    StoreError,
)
from kconnect.storage.config_changes import (
    ConfigChange,
    ConnectorConfigDeleted,
    ConnectorConfigRead,
    TargetStateRead,
    TaskConfigsRead,
)
from kconnect.worker_config import WorkerConfig

from tests.unit.kconnect.storage.java_records import CONFIG_TOPIC, OFFSETS_TOPIC

pytestmark = pytest.mark.integration

Store = KafkaConfigBackingStore | KafkaOffsetBackingStore | KafkaStatusBackingStore
S = TypeVar("S", KafkaConfigBackingStore, KafkaOffsetBackingStore, KafkaStatusBackingStore)


class Cluster:
    """Worker properties naming this test's topics, and a factory of started stores (stopped at the end)."""

    def __init__(self, bootstrap: str) -> None:
        suffix = uuid.uuid4().hex[:8]
        self.bootstrap = bootstrap
        self.props = {
            "bootstrap.servers": bootstrap,
            "config.storage.topic": f"configs-{suffix}",
            "offset.storage.topic": f"offsets-{suffix}",
            "status.storage.topic": f"status-{suffix}",
            "config.storage.replication.factor": "1",
            "offset.storage.replication.factor": "-1",
            "status.storage.replication.factor": "1",
            "offset.storage.partitions": "7",
            "status.storage.partitions": "3",
        }
        self.config = WorkerConfig.from_props(self.props)
        self.stores: list[Store] = []

    async def configs(
        self, listener: Callable[[ConfigChange], None] | None = None
    ) -> KafkaConfigBackingStore:
        store = KafkaConfigBackingStore(self.props, self.config.config_storage())
        if listener is not None:
            store.set_update_listener(listener)
        return await self._start(store)

    async def offsets(self) -> KafkaOffsetBackingStore:
        return await self._start(KafkaOffsetBackingStore(self.props, self.config.offset_storage()))

    async def statuses(self, generation: int = 0) -> KafkaStatusBackingStore:
        store = KafkaStatusBackingStore(
            self.props, self.config.status_storage(), generation=lambda: generation
        )
        return await self._start(store)

    async def _start(self, store: S) -> S:
        await store.start()
        self.stores.append(store)
        return store


@pytest.fixture
async def cluster(kafka_bootstrap: str) -> AsyncIterator[Cluster]:
    c = Cluster(kafka_bootstrap)
    yield c
    for store in c.stores:
        await store.stop()


async def admin_call(bootstrap: str, call: Callable[[AIOKafkaAdminClient], Any]) -> Any:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        return await call(admin)
    finally:
        await admin.close()


async def produce(bootstrap: str, topic: str, records: list[tuple[bytes, bytes | None]]) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
    await producer.start()
    try:
        for key, value in records:
            await producer.send_and_wait(topic, value, key=key)
    finally:
        await producer.stop()


async def dump(bootstrap: str, topic: str) -> list[tuple[bytes, bytes | None]]:
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    await consumer.start()
    try:
        partitions = [TopicPartition(topic, p) for p in sorted(await _partitions(consumer, topic))]
        consumer.assign(partitions)
        await consumer.seek_to_beginning(*partitions)
        ends = await consumer.end_offsets(partitions)
        records: list[tuple[bytes, bytes | None]] = []
        while [tp for tp in partitions if await consumer.position(tp) < ends[tp]]:
            for batch in (await consumer.getmany(timeout_ms=1000)).values():
                records += [(r.key, r.value) for r in batch]
        return records
    finally:
        await consumer.stop()


async def _partitions(consumer: AIOKafkaConsumer, topic: str) -> set[int]:
    for _ in range(50):
        found = consumer.partitions_for_topic(topic)
        if found:
            return set(found)
        await consumer._client.force_metadata_update()
        await asyncio.sleep(0.1)
    raise AssertionError(f"topic {topic} not found")


# --- topics ------------------------------------------------------------------------------------------


async def test_missing_topics_are_created_with_their_partitions_and_compaction(cluster: Cluster) -> None:
    await cluster.configs()
    await cluster.offsets()
    await cluster.statuses()
    names = [cluster.props[f"{k}.storage.topic"] for k in ("config", "offset", "status")]
    described = await admin_call(cluster.bootstrap, lambda a: a.describe_topics(names))
    assert {t["topic"]: len(t["partitions"]) for t in described} == dict(zip(names, [1, 7, 3], strict=True))
    resources = [ConfigResource(ConfigResourceType.TOPIC, n, None) for n in names]
    responses = await admin_call(cluster.bootstrap, lambda a: a.describe_configs(resources))
    policies = {
        name: value
        for response in responses
        for _, _, _, name, entries in response.resources
        for key, value, *_ in entries
        if key == "cleanup.policy"
    }
    assert policies == dict.fromkeys(names, "compact")


@pytest.mark.parametrize(
    ("key", "partitions", "policy", "message"),
    [
        (
            "config.storage.topic",
            2,
            "compact",
            "Topic '{topic}' supplied via the 'config.storage.topic' property is required to have a "
            "single partition in order to guarantee consistency of connector configurations, but found 2 "
            "partitions.",
        ),
        (
            "config.storage.topic",
            1,
            "delete",
            "Topic '{topic}' supplied via the 'config.storage.topic' property is required to have "
            "'cleanup.policy=compact' to guarantee consistency and durability of connector configurations, "
            "but found the topic currently has 'cleanup.policy=delete'. Continuing would likely result in "
            "eventually losing connector configurations and problems restarting this Connect cluster in the "
            "future. Change the 'config.storage.topic' property in the Connect worker configurations to use "
            "a topic with 'cleanup.policy=compact'.",
        ),
        (
            "offset.storage.topic",
            3,
            "compact,delete",
            "Topic '{topic}' supplied via the 'offset.storage.topic' property is required to have "
            "'cleanup.policy=compact' to guarantee consistency and durability of source connector offsets, "
            "but found the topic currently has 'cleanup.policy=compact,delete'.",
        ),
        (
            "status.storage.topic",
            1,
            "delete",
            "Topic '{topic}' supplied via the 'status.storage.topic' property is required to have "
            "'cleanup.policy=compact' to guarantee consistency and durability of connector and task statuses",
        ),
    ],
)
async def test_an_unfit_existing_topic_refuses_the_start_with_one_line(
    cluster: Cluster, key: str, partitions: int, policy: str, message: str
) -> None:
    topic = cluster.props[key]
    new = NewTopic(topic, partitions, 1, topic_configs={"cleanup.policy": policy})
    await admin_call(cluster.bootstrap, lambda a: a.create_topics([new]))
    start = {"config": cluster.configs, "offset": cluster.offsets, "status": cluster.statuses}[
        key.split(".")[0]
    ]
    with pytest.raises(InternalTopicError) as refused:
        await start()
    assert str(refused.value).startswith(message.format(topic=topic))
    assert "\n" not in str(refused.value)


async def test_a_replication_factor_the_cluster_cannot_meet_refuses_the_start(cluster: Cluster) -> None:
    cluster.props["config.storage.replication.factor"] = "3"
    cluster.config = WorkerConfig.from_props(cluster.props)
    with pytest.raises(InternalTopicError, match=r"Unable to create topic '.*' \(config.storage.topic, 1 "):
        await cluster.configs()


# --- config topic ------------------------------------------------------------------------------------


async def test_two_workers_see_each_others_config_writes_and_hear_them(cluster: Cluster) -> None:
    a = await cluster.configs()
    heard: list[ConfigChange] = []
    b = await cluster.configs(heard.append)
    await a.put_connector_config("src", {"connector.class": "X", "name": "src"}, TargetState.PAUSED)
    await a.put_task_configs("src", [{"task": "0"}, {"task": "1"}])
    await b.put_target_state("src", TargetState.STOPPED)
    await a.put_restart_request(RestartRequest("src", only_failed=True, include_tasks=True))
    key = SessionKey(b"\x01" * 32, "HmacSHA256", 1700000000000)
    await a.put_session_key(key)
    await a.read_to_end()
    await b.read_to_end()
    for store in (a, b):
        snapshot = store.snapshot()
        assert snapshot.connector_config("src") == {"connector.class": "X", "name": "src"}
        assert snapshot.target_state("src") is TargetState.STOPPED
        assert snapshot.task_configs["src"] == ({"task": "0"}, {"task": "1"})
        assert store.session_key == key
    assert a.snapshot() == b.snapshot()
    assert heard == [  # a new session key is no change: the store's session_key holds it
        ConnectorConfigRead("src", {"connector.class": "X", "name": "src"}, TargetState.PAUSED),
        TaskConfigsRead("src", ({"task": "0"}, {"task": "1"})),
        TargetStateRead("src", TargetState.STOPPED),
        RestartRequest("src", only_failed=True, include_tasks=True),
    ]


async def test_a_restarted_config_store_recovers_everything_and_tombstones_delete(cluster: Cluster) -> None:
    a = await cluster.configs()
    await a.put_connector_config("keep", {"k": "1"})
    await a.put_task_configs("keep", [{"t": "0"}])
    await a.put_connector_config("gone", {"g": "1"}, TargetState.PAUSED)
    await a.put_task_configs("gone", [{"t": "0"}, {"t": "1"}])
    await a.remove_connector_config("gone")
    before = a.snapshot()
    assert before.connectors() == ["keep"]
    heard: list[ConfigChange] = []
    again = await cluster.configs(heard.append)
    assert again.snapshot() == before
    assert heard == []  # what start read is in the snapshot, not told again
    await a.remove_connector_config("keep")
    await again.read_to_end()
    assert again.snapshot().connectors() == [] and heard == [ConnectorConfigDeleted("keep")]


async def test_task_configs_without_their_commit_stay_invisible(cluster: Cluster) -> None:
    a = await cluster.configs()
    await a.put_connector_config("c", {})
    await a.put_task_configs("c", [{"round": "1"}])
    topic = cluster.props["config.storage.topic"]
    # A leader that died after writing new task configs, before their commit.
    await produce(cluster.bootstrap, topic, [(b"task-c-0", b'{"properties":{"round":"2"}}')])
    b = await cluster.configs()
    await a.read_to_end()
    for store in (a, b):
        assert store.snapshot().task_configs["c"] == ({"round": "1"},)
    await produce(cluster.bootstrap, topic, [(b"commit-c", b'{"tasks":1}')])
    await b.read_to_end()
    assert b.snapshot().task_configs["c"] == ({"round": "2"},)


async def test_javas_config_topic_is_read_as_java_shows_it(cluster: Cluster) -> None:
    topic = cluster.props["config.storage.topic"]
    await cluster.configs()  # creates the topic
    await produce(cluster.bootstrap, topic, [(key, value) for _, key, value in CONFIG_TOPIC])
    snapshot = (await cluster.configs()).snapshot()
    assert snapshot.connectors() == ["gold-src"]
    assert snapshot.target_state("gold-src") is TargetState.STOPPED
    assert snapshot.task_count("gold-src") == 0


async def test_config_writes_are_the_bytes_java_writes(cluster: Cluster) -> None:
    a = await cluster.configs()
    _, _, config = CONFIG_TOPIC[1]
    await a.put_connector_config("gold-src", {
        "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector", "tasks.max": "1",
        "file": "/tmp/goldjava/in.txt", "topic": "gold-data", "name": "gold-src",
    })  # fmt: skip
    await a.put_target_state("gold-src", TargetState.STOPPED)
    records = await dump(cluster.bootstrap, cluster.props["config.storage.topic"])
    assert records == [(b"connector-gold-src", config), CONFIG_TOPIC[12][1:]]


# --- offsets topic -----------------------------------------------------------------------------------


async def test_offsets_written_by_one_worker_are_read_by_another_and_after_a_restart(
    cluster: Cluster,
) -> None:
    a = await cluster.offsets()
    b = await cluster.offsets()
    await a.set("src", [({"file": "x"}, {"position": 10}), ({"file": "y"}, {"position": 3})])
    await a.set("src", [({"file": "x"}, {"position": 42})])
    await a.set("other", [({"file": "x"}, {"position": 1})])
    assert await b.get("src", [{"file": "x"}, {"file": "y"}, {"file": "z"}]) == [
        {"position": 42},
        {"position": 3},
        None,
    ]
    await b.remove("src", [{"file": "y"}])
    again = await cluster.offsets()
    assert await again.partitions("src") == [{"file": "x"}]
    assert await again.get("other", [{"file": "x"}]) == [{"position": 1}]
    await again.remove("src")
    assert await a.partitions("src") == []


async def test_javas_offsets_are_read_and_rewritten_under_javas_key(cluster: Cluster) -> None:
    topic = cluster.props["offset.storage.topic"]
    _, java_key, java_value = OFFSETS_TOPIC[0]
    await cluster.offsets()
    reordered = b'["multi",{"b":2,"a":1}]'  # a Java map's order, not the connector's
    await produce(cluster.bootstrap, topic, [(java_key, java_value), (reordered, b'{"n":1}')])
    store = await cluster.offsets()
    assert await store.get("gold-src", [{"filename": "/tmp/goldjava/in.txt"}]) == [{"position": 35}]
    await store.set("multi", [({"a": 1, "b": 2}, {"n": 2})])
    await store.set("multi", [({"a": 1, "b": 2}, None)])
    records = await dump(cluster.bootstrap, topic)
    assert [key for key, _ in records if b"multi" in key] == [reordered] * 3
    assert await store.get("multi", [{"a": 1, "b": 2}]) == [None]


async def test_an_offset_the_broker_refuses_raises_store_error_naming_the_topic(cluster: Cluster) -> None:
    store = await cluster.offsets()
    topic = cluster.props["offset.storage.topic"]
    with pytest.raises(StoreError, match=f"topic {topic} \\(source connector offsets\\): writing failed"):
        await store.set("src", [({"file": "x"}, {"blob": "x" * 2_000_000})])
    assert await store.get("src", [{"file": "x"}]) == [None]


# --- status topic ------------------------------------------------------------------------------------


async def wait_for(check: Callable[[], bool], store: KafkaStatusBackingStore) -> None:
    for _ in range(100):
        await store.read_to_end()
        if check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("condition not met within 5 s")


async def test_statuses_of_one_worker_are_read_by_another_and_after_a_restart(cluster: Cluster) -> None:
    a = await cluster.statuses(generation=3)
    b = await cluster.statuses()
    task = ConnectorTaskId("src", 0)
    a.put_connector("src", StateInfo(State.RUNNING, "a:8083", version="1.0"))
    a.put_task(task, TaskStateInfo(State.FAILED, "a:8083", "boom\n\tat x", id=0))
    a.put_topic("src", "lines")
    await wait_for(lambda: b.get_task(task) is not None and b.topics("src") == ["lines"], b)
    assert b.get_connector("src") == StateInfo(State.RUNNING, "a:8083", version="1.0")
    assert b.get_task(task) == TaskStateInfo(State.FAILED, "a:8083", "boom\n\tat x", id=0)
    assert b.generation_of(task) == 3
    again = await cluster.statuses()
    assert again.get_task(task) == b.get_task(task) and again.topics("src") == ["lines"]
    b.remove("src")
    await b.flush()
    await wait_for(lambda: a.get_connector("src") is None, a)
    assert a.get_task(task) is None and a.topics("src") == []
    restarted = await cluster.statuses()
    assert restarted.get_connector("src") is None and restarted.get_task(task) is None
    assert restarted.topics("src") == []


async def test_a_stale_unassigned_from_another_worker_does_not_hide_a_running_task(cluster: Cluster) -> None:
    old = await cluster.statuses(generation=4)
    new = await cluster.statuses(generation=5)
    task = ConnectorTaskId("src", 0)
    new.put_task(task, TaskStateInfo(State.RUNNING, "new:8083", id=0))
    await wait_for(lambda: old.get_task(task) is not None, old)
    old.put_task(task, TaskStateInfo(State.UNASSIGNED, "old:8083", id=0))
    await old.flush()  # the stale write is in the topic before the reader reads it
    reader = await cluster.statuses()
    assert reader.get_task(task) == TaskStateInfo(State.RUNNING, "new:8083", id=0)
    new.put_task(task, TaskStateInfo(State.UNASSIGNED, "new:8083", id=0))  # its own change shows
    await wait_for(lambda: reader.get_task(task) == TaskStateInfo(State.UNASSIGNED, "new:8083", id=0), reader)


async def test_statuses_written_just_before_stop_are_not_lost(cluster: Cluster) -> None:
    a = KafkaStatusBackingStore(cluster.props, cluster.config.status_storage(), generation=lambda: 1)
    await a.start()
    tasks = [ConnectorTaskId("src", n) for n in range(20)]
    for task in tasks:
        a.put_task(task, TaskStateInfo(State.UNASSIGNED, "a:8083", id=task.task))
    await a.stop()  # a worker shutting down writes its last statuses, then stops at once
    b = await cluster.statuses()
    assert [b.get_task(t) for t in tasks] == [
        TaskStateInfo(State.UNASSIGNED, "a:8083", id=t.task) for t in tasks
    ]


# --- the broker ----------------------------------------------------------------------------------------


async def test_an_unreachable_broker_refuses_the_start_naming_the_topic(cluster: Cluster) -> None:
    cluster.props["bootstrap.servers"] = "localhost:1"
    with pytest.raises(
        InternalTopicError, match=r"Topic 'offsets-\w+' \(offset.storage.topic\) cannot be checked"
    ):
        await cluster.offsets()
