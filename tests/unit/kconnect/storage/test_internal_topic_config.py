"""The internal topics' worker keys: Kafka's defaults, -1 for the broker's default, Kafka's texts."""

from __future__ import annotations

import pytest
from kconnect.worker_config import ConfigFileError, InternalTopicConfig, WorkerConfig

NAMES = {
    "config.storage.topic": "c",
    "offset.storage.topic": "o",
    "status.storage.topic": "s",
}


def test_kafkas_defaults() -> None:
    worker = WorkerConfig.from_props(NAMES, "w.properties")
    assert worker.config_storage() == InternalTopicConfig("config.storage.topic", "c", 1, 3)
    assert worker.offset_storage() == InternalTopicConfig("offset.storage.topic", "o", 25, 3)
    assert worker.status_storage() == InternalTopicConfig("status.storage.topic", "s", 5, 3)


def test_broker_defaults_and_explicit_values() -> None:
    worker = WorkerConfig.from_props(
        {
            **NAMES,
            "config.storage.replication.factor": "-1",
            "config.storage.partitions": "9",  # not a Kafka key: the config topic has one partition
            "offset.storage.partitions": "-1",
            "offset.storage.replication.factor": "1",
            "status.storage.partitions": "2",
        }
    )
    assert worker.config_storage() == InternalTopicConfig("config.storage.topic", "c", 1, -1)
    assert worker.offset_storage() == InternalTopicConfig("offset.storage.topic", "o", -1, 1)
    assert worker.status_storage().partitions == 2


@pytest.mark.parametrize(
    ("props", "accessor", "message"),
    [
        (
            {"offset.storage.topic": " "},
            "offset_storage",
            'w.properties: offset.storage.topic: Missing required configuration "offset.storage.topic" '
            "which has no default value.",
        ),
        (
            {**NAMES, "status.storage.partitions": "0"},
            "status_storage",
            "w.properties: status.storage.partitions: Invalid value 0 for configuration "
            "status.storage.partitions: Number of partitions must be positive, or -1 to use the broker's "
            "default",
        ),
        (
            {**NAMES, "config.storage.replication.factor": "-2"},
            "config_storage",
            "w.properties: config.storage.replication.factor: Invalid value -2 for configuration "
            "config.storage.replication.factor: Replication factor must be positive and not larger than the "
            "number of brokers in the Kafka cluster, or -1 to use the broker's default",
        ),
        (
            {**NAMES, "offset.storage.replication.factor": "three"},
            "offset_storage",
            "w.properties: offset.storage.replication.factor: invalid value 'three': "
            "not a number of type INT",
        ),
    ],
)
def test_bad_values_are_refused_naming_the_key(props: dict[str, str], accessor: str, message: str) -> None:
    worker = WorkerConfig.from_props(props, "w.properties")
    with pytest.raises(ConfigFileError) as refused:
        getattr(worker, accessor)()
    assert str(refused.value) == message
