"""The worker keys read with a default (`worker_config_def`) and their typed values (`WorkerSettings`)."""

from __future__ import annotations

import pickle

import pytest
from kconnect.config.known_worker_keys import is_known_worker_key
from kconnect.config.worker_keys import ExactlyOnceSourceSupport
from kconnect.config.worker_settings import WorkerSettings, worker_config_def
from kconnect.worker_config import ConfigFileError, WorkerConfig

DISTRIBUTED = {
    "group.id": "cluster",
    "offset.storage.topic": " offsets ",
    "exactly.once.source.support": "Enabled",
}


def test_an_empty_worker_file_gives_each_keys_declared_default() -> None:
    settings = WorkerSettings.from_props({})
    declared = {name: key.default for name, key in worker_config_def().config_keys.items()}
    assert settings.bootstrap_servers == declared["bootstrap.servers"] == "localhost:9092"
    assert settings.offset_flush_interval_ms == declared["offset.flush.interval.ms"] == 60000
    assert settings.offset_flush_timeout_ms == declared["offset.flush.timeout.ms"] == 5000
    assert settings.offset_flush_records == declared["offset.flush.records"] == 10_000
    assert settings.task_shutdown_graceful_timeout_ms == declared["task.shutdown.graceful.timeout.ms"] == 5000
    assert settings.topic_creation_enable is declared["topic.creation.enable"] is True
    assert (settings.group_id, settings.offset_storage_topic) == ("", "")
    assert settings.exactly_once_source_support is ExactlyOnceSourceSupport.DISABLED


@pytest.mark.parametrize(
    ("props", "field", "expected"),
    [
        ({"bootstrap.servers": "b1:9092,b2:9092"}, "bootstrap_servers", "b1:9092,b2:9092"),
        ({"offset.flush.interval.ms": " 50 "}, "offset_flush_interval_ms", 50),
        ({"offset.flush.interval.ms": " "}, "offset_flush_interval_ms", 60000),
        ({"offset.flush.records": "0"}, "offset_flush_records", 0),
        ({"topic.creation.enable": " FALSE "}, "topic_creation_enable", False),
        (DISTRIBUTED, "group_id", "cluster"),
        (DISTRIBUTED, "offset_storage_topic", "offsets"),
        (DISTRIBUTED, "exactly_once_source_support", ExactlyOnceSourceSupport.ENABLED),
        ({**DISTRIBUTED, "group.id": " "}, "exactly_once_source_support", ExactlyOnceSourceSupport.DISABLED),
    ],
)
def test_each_value_is_read_as_the_worker_always_read_it(
    props: dict[str, str], field: str, expected: object
) -> None:
    assert getattr(WorkerSettings.from_props(props), field) == expected


def test_the_settings_travel_pickled_with_their_raw_properties() -> None:
    settings = WorkerSettings.from_props({"producer.linger.ms": "7", "spark.master": "local[2]"})
    assert pickle.loads(pickle.dumps(settings)) == settings
    assert settings.props == {"producer.linger.ms": "7", "spark.master": "local[2]"}


def test_a_worker_reads_its_settings_once_at_start_and_a_bad_one_stops_it_naming_the_key() -> None:
    config = WorkerConfig.from_props({"offset.flush.interval.ms": "50"}, "w.properties")
    assert config.settings is config.settings
    assert config.settings.offset_flush_interval_ms == 50
    with pytest.raises(ConfigFileError) as raised:
        WorkerConfig.from_props({"offset.flush.timeout.ms": "soon"}, "w.properties")
    assert str(raised.value) == (
        "w.properties: offset.flush.timeout.ms: invalid value 'soon': not a number of type LONG"
    )


def test_every_declared_key_is_a_known_worker_key() -> None:
    assert all(is_known_worker_key(name) for name in worker_config_def().names())
