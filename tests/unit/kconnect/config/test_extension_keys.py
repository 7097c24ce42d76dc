"""kconnect's own connector keys: ``task.stall.timeout.ms`` and where a task's value comes from."""

from __future__ import annotations

import pytest
from kconnect.config.configdef import ConfigException
from kconnect.config.extension_keys import (
    TASK_STALL_TIMEOUT_CONFIG,
    TASK_STALL_TIMEOUT_DEFAULT_MS,
    extension_config_def,
    task_stall_restart,
    task_stall_timeout_ms,
)
from kconnect.worker_config import ConfigFileError, WorkerConfig

KEY = TASK_STALL_TIMEOUT_CONFIG


@pytest.mark.parametrize(
    ("worker", "connector", "expected"),
    [
        ({}, {}, TASK_STALL_TIMEOUT_DEFAULT_MS),
        ({KEY: "60000"}, {}, 60000),
        ({KEY: "60000"}, {KEY: "2000"}, 2000),
        ({KEY: "60000"}, {KEY: " "}, 60000),
        ({}, {KEY: "0"}, 0),
        ({KEY: "-1"}, {}, 0),
    ],
)
def test_the_connector_value_wins_then_the_worker_then_five_minutes(
    worker: dict[str, str], connector: dict[str, str], expected: int
) -> None:
    assert task_stall_timeout_ms(worker, connector) == expected


@pytest.mark.parametrize(
    ("worker", "connector", "where"), [({}, {KEY: "2s"}, "connector"), ({KEY: "x"}, {}, "worker")]
)
def test_a_value_that_is_no_number_names_the_key_and_where_it_was_set(
    worker: dict[str, str], connector: dict[str, str], where: str
) -> None:
    with pytest.raises(ConfigException, match=f"configuration {KEY} in the {where} config: Not a number"):
        task_stall_timeout_ms(worker, connector)


def test_validation_checks_the_key_as_kafka_checks_a_long() -> None:
    values = extension_config_def().validate({KEY: "soon"})
    assert values[KEY].errors == [f"Invalid value soon for configuration {KEY}: Not a number of type LONG"]
    assert extension_config_def().validate({KEY: "-1"})[KEY].errors == []


@pytest.mark.parametrize(
    ("connector", "expected"),
    [
        (None, False),
        ({}, False),
        ({"task.stall.restart": "true"}, True),
        ({"task.stall.restart": " TRUE "}, True),
    ],
)
def test_stalled_tasks_are_restarted_only_when_the_connector_asks(
    connector: dict[str, str] | None, expected: bool
) -> None:
    assert task_stall_restart(connector) is expected
    assert extension_config_def().validate({"task.stall.restart": "maybe"})["task.stall.restart"].errors


def test_a_worker_default_that_is_no_number_stops_the_worker_naming_the_key() -> None:
    with pytest.raises(ConfigFileError) as raised:
        WorkerConfig.from_props({KEY: "5m"}, "w.properties")
    assert str(raised.value) == (
        f"w.properties: {KEY}: Invalid value 5m for configuration {KEY}: Not a number of type LONG"
    )
    assert WorkerConfig.from_props({KEY: "-1"}).props[KEY] == "-1"
