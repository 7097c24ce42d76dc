"""Java source tasks create their topics as their ``topic.creation.*`` groups say (KIP-158), with
Kafka's own TopicCreation, TopicCreationGroup and TopicAdmin (``TopicCreator.java``), on Kafka's
``connect-file`` 4.3.1 jar from ``plugin.path``, a real broker and the embedded local Spark.

Three Java FileStreamSources write to topics that do not exist yet: one the ``compacted`` group
includes, one the ``wide`` group includes, one ``wide`` excludes (so the default group's). Each
topic is created before its first record with its group's partitions and topic configs, which the
broker's auto-create (one partition, ``cleanup.policy=delete``, the broker's retention) would not
give, and every line arrives. Validate checks the groups' keys for a Java connector as for a
Python one.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiokafka.admin import AIOKafkaAdminClient
from kconnect_testkit.plugin_jars import fetch_connect_file

from plugins.java.tests.integration.java_worker import java_worker
from tests.integration.harness import consume_records
from tests.integration.test_topic_creation import describe
from tests.worker_process import WorkerProcess

pytestmark = pytest.mark.integration

SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"
STRING = "org.apache.kafka.connect.storage.StringConverter"
SMT = "org.apache.kafka.connect.transforms."
#: Kafka's Java classes rather than the Python FileStream plugin's, which share their names.
JAVA = {"connector.plugin.version": "4.3.1"}
LINES = 20
#: The broker's default retention (7 days): a topic config nobody set.
BROKER_RETENTION_MS = "604800000"

GROUPS = {
    "topic.creation.groups": "compacted,wide",
    "topic.creation.default.replication.factor": "-1",  # the broker's default.replication.factor
    "topic.creation.default.partitions": "3",
    "topic.creation.default.retention.ms": "7200000",
    "topic.creation.compacted.include": r".*-state",
    "topic.creation.compacted.cleanup.policy": "compact",
    "topic.creation.wide.include": r".*-events",
    "topic.creation.wide.exclude": r"internal-.*",
    "topic.creation.wide.partitions": "5",
    "topic.creation.wide.retention.ms": "3600000",
}
#: A compacted topic takes only keyed records: the line becomes the key too.
KEYED = {
    "transforms": "hoist,key",
    "transforms.hoist.type": f"{SMT}HoistField$Value",
    "transforms.hoist.field": "line",
    "transforms.key.type": f"{SMT}ValueToKey",
    "transforms.key.fields": "line",
}


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str) -> Iterator[WorkerProcess]:
    """A standalone kconnect worker (``topic.creation.enable`` at its default) with connect-file 4.3.1."""
    folder = tmp_path_factory.mktemp("java-topic-creation")
    with java_worker(folder, kafka_bootstrap, str(fetch_connect_file("4.3.1")), STRING) as ours:
        yield ours


async def _listed(bootstrap: str) -> set[str]:
    """The cluster's topics (a list, which never auto-creates a topic as a consumer's metadata may)."""
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        return set(await admin.list_topics())
    finally:
        await admin.close()


def _errors(worker: WorkerProcess, config: dict[str, str]) -> dict[str, list[str]]:
    validated = worker.request("PUT", "/connector-plugins/FileStreamSourceConnector/config/validate", config)
    assert validated.status_code == 200, validated.text
    return {
        c["value"]["name"]: c["value"]["errors"] for c in validated.json()["configs"] if c["value"]["errors"]
    }


def test_validate_checks_the_topic_creation_keys_of_a_java_source(worker: WorkerProcess) -> None:
    config = {"name": "v", "connector.class": SOURCE, "file": "/tmp/in.txt", "topic": "t", **JAVA, **GROUPS}
    assert _errors(worker, config) == {}
    keys = {
        c["definition"]["name"]
        for c in worker.request(
            "PUT", "/connector-plugins/FileStreamSourceConnector/config/validate", config
        ).json()["configs"]
    }
    assert {"topic.creation.compacted.include", "topic.creation.wide.partitions"} <= keys
    missing = {k: v for k, v in config.items() if k != "topic.creation.default.partitions"}
    assert list(_errors(worker, missing)) == ["topic.creation.default.partitions"]


def test_java_sources_create_their_topics_with_their_groups_settings(
    worker: WorkerProcess, kafka_bootstrap: str, tmp_path: Path
) -> None:
    stem = uuid.uuid4().hex[:8]
    topics = {
        "compacted": (f"jtc-{stem}-state", KEYED),
        "wide": (f"jtc-{stem}-events", {}),
        "default": (f"internal-{stem}-events", {}),
    }
    for group, (topic, transforms) in topics.items():
        source_file = tmp_path / f"{group}.txt"
        source_file.write_text("".join(f"{group} line {i}\n" for i in range(LINES)), encoding="utf-8")
        config = {
            "connector.class": SOURCE,
            "file": str(source_file),
            "topic": topic,
            **JAVA,
            **GROUPS,
            **transforms,
        }
        response = worker.request(
            "PUT", f"/connectors/{group}-{stem}/config", {"name": f"{group}-{stem}", **config}
        )
        assert response.status_code == 201, response.text
    wanted = {topic for topic, _ in topics.values()}
    worker.wait_for("the three topics", lambda: wanted <= asyncio.run(_listed(kafka_bootstrap)))

    found = {group: describe(kafka_bootstrap, topic) for group, (topic, _) in topics.items()}
    settings = {
        group: (partitions, configs["cleanup.policy"], configs["retention.ms"])
        for group, (partitions, configs) in found.items()
    }
    assert settings == {
        # A group takes the default group's partitions and replication factor, not its topic configs.
        "compacted": (3, "compact", BROKER_RETENTION_MS),
        "wide": (5, "delete", "3600000"),
        "default": (3, "delete", "7200000"),
    }
    for group, (topic, _) in topics.items():
        records = asyncio.run(consume_records(kafka_bootstrap, topic, LINES))
        assert len(records) == LINES, group
        assert worker.request("DELETE", f"/connectors/{group}-{stem}").status_code == 204
