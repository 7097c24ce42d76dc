"""The distributed worker's group keys: Kafka's defaults, and Kafka's reasons for refusing a value."""

from __future__ import annotations

import pytest
from kconnect.worker_config import ConfigFileError, GroupConfig, WorkerConfig


def test_kafkas_defaults() -> None:
    config = WorkerConfig.from_props({"group.id": "connect-cluster"}).group_config()
    assert config == GroupConfig(
        group_id="connect-cluster",
        heartbeat_interval_ms=3000,
        session_timeout_ms=10000,
        rebalance_timeout_ms=60000,
        scheduled_rebalance_max_delay_ms=300000,
        connect_protocol="sessioned",
    )


def test_every_key_is_read() -> None:
    config = GroupConfig.from_props(
        {
            "group.id": " g ",
            "heartbeat.interval.ms": "500",
            "session.timeout.ms": "6000",
            "rebalance.timeout.ms": "9000",
            "scheduled.rebalance.max.delay.ms": "0",
            "connect.protocol": "Compatible",
        }
    )
    assert config == GroupConfig("g", 500, 6000, 9000, 0, "compatible")


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({}, 'w.properties: group.id: Missing required configuration "group.id" which has no default value.'),
        (
            {"connect.protocol": "fancy"},
            "w.properties: connect.protocol: Invalid value fancy for configuration connect.protocol: "
            "Invalid Connect protocol compatibility (one of eager, compatible, sessioned)",
        ),
        (
            {"scheduled.rebalance.max.delay.ms": "-1"},
            "w.properties: scheduled.rebalance.max.delay.ms: Invalid value -1 for configuration "
            "scheduled.rebalance.max.delay.ms: Value must be at least 0",
        ),
        (
            {"heartbeat.interval.ms": "0"},
            "w.properties: heartbeat.interval.ms: Invalid value 0 for configuration heartbeat.interval.ms: "
            "Value must be at least 1",
        ),
        (
            {"session.timeout.ms": "ten"},
            "w.properties: session.timeout.ms: invalid value 'ten': not a number of type INT",
        ),
    ],
)
def test_bad_values_are_refused_naming_file_key_and_reason(props: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigFileError) as error:
        GroupConfig.from_props({"group.id": "g", **props} if props else props, "w.properties")
    assert str(error.value) == message


def test_a_standalone_worker_needs_no_group_id() -> None:
    assert WorkerConfig.from_props({}).props == {}
