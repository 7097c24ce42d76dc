"""Config-topic records: kconnect writes Java 4.3.1's bytes and reads everything Java writes."""

from __future__ import annotations

import base64
import re

import pytest
from kconnect.kafka.offset_records import RecordFormatError
from kconnect.model import ConnectorTaskId, RestartRequest, SessionKey, TargetState
from kconnect.storage.config_changes import LoggerLevelRead
from kconnect.storage.config_records import (
    ConnectorConfigRecord,
    TargetStateRecord,
    TaskCommitRecord,
    TaskConfigRecord,
    TaskCountRecord,
    commit_key,
    commit_value,
    config_value,
    connector_key,
    logger_level_key,
    logger_level_value,
    parse_config_record,
    restart_key,
    restart_value,
    session_key_value,
    target_state_key,
    target_state_value,
    task_count_key,
    task_count_value,
    task_key,
)

from tests.unit.kconnect.storage.java_records import CONFIG_TOPIC

SOURCE_CONFIG = {
    "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
    "tasks.max": "1",
    "file": "/tmp/goldjava/in.txt",
    "topic": "gold-data",
    "name": "gold-src",
}


def java(n: int) -> tuple[bytes, bytes | None]:
    _, key, value = CONFIG_TOPIC[n]
    return key, value


def test_connector_config_bytes_equal_javas() -> None:
    assert (connector_key("gold-src").encode(), config_value(SOURCE_CONFIG)) == java(1)


def test_task_config_and_commit_bytes_equal_javas() -> None:
    key, value = java(3)
    task = parse_config_record(key.decode(), value)
    assert isinstance(task, TaskConfigRecord)
    assert task.task == ConnectorTaskId("gold-src", 0)
    assert (task_key(task.task).encode(), config_value(task.config)) == (key, value)
    assert (commit_key("gold-src").encode(), commit_value(1)) == java(4)
    assert commit_value(0) == java(11)[1]


@pytest.mark.parametrize(
    ("n", "state"),
    [(8, TargetState.PAUSED), (10, TargetState.STARTED), (12, TargetState.STOPPED)],
)
def test_target_state_bytes_equal_javas(n: int, state: TargetState) -> None:
    assert (target_state_key("gold-src").encode(), target_state_value(state)) == java(n)
    assert parse_config_record(*_text(java(n))) == TargetStateRecord("gold-src", state)


def test_restart_request_bytes_equal_javas() -> None:
    request = RestartRequest("gold-src", only_failed=False, include_tasks=True)
    assert (restart_key("gold-src").encode(), restart_value(request)) == java(9)
    assert parse_config_record(*_text(java(9))) == request


def test_session_key_round_trips_javas_bytes() -> None:
    record = parse_config_record(*_text(java(0)))
    assert isinstance(record, SessionKey)
    assert record == SessionKey(
        base64.b64decode("Pt4piq9MFPzWTpQNFolxce/i7Jqs3OxM7F3HuWznEM0="), "HmacSHA256", 1795359469544
    )
    assert session_key_value(record) == java(0)[1]


def test_every_java_record_is_understood() -> None:
    parsed = [parse_config_record(key.decode(), value) for _, key, value in CONFIG_TOPIC]
    assert parsed[1] == ConnectorConfigRecord("gold-src", SOURCE_CONFIG)
    assert parsed[7] == TaskCommitRecord("gold-gone", 2)
    assert parsed[13] == ConnectorConfigRecord("gold-gone", None)
    assert parsed[14] == TargetStateRecord("gold-gone", None)


def test_target_state_of_a_worker_older_than_kip_875_reads_state() -> None:
    assert parse_config_record("target-state-a", b'{"state":"PAUSED"}') == TargetStateRecord(
        "a", TargetState.PAUSED
    )


def test_task_key_with_dashes_in_the_connector_name() -> None:
    record = parse_config_record("task-my-conn--1-12", b'{"properties":{}}')
    assert record == TaskConfigRecord(ConnectorTaskId("my-conn--1", 12), {})


def test_restart_flags_default_to_false_as_in_kafka() -> None:
    assert parse_config_record("restart-connector-a", b'{"include-tasks":"yes"}') == RestartRequest(
        "a", only_failed=False, include_tasks=False
    )


def test_exactly_once_records_are_ignored() -> None:
    assert parse_config_record("tasks-fencing-a", b'{"task-count":2}') == TaskCountRecord("a", 2)


def test_logger_level_bytes_are_javas_and_read_back() -> None:
    """KIP-976: Java's JsonConverter writes the LOGGER_LEVEL_V0 struct as ``{"level":...}``."""
    assert logger_level_key("org.apache.kafka.connect") == "logger-cluster-org.apache.kafka.connect"
    assert logger_level_value("DEBUG") == b'{"level":"DEBUG"}'
    for level in ("DEBUG", "debug", "NOT-A-LEVEL"):  # the name is judged when a worker sets it, as in Kafka
        record = parse_config_record(logger_level_key("org.x"), logger_level_value(level))
        assert record == LoggerLevelRead("org.x", level)
    assert parse_config_record("logger-cluster-", b'{"level":"INFO"}') == LoggerLevelRead("", "INFO")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (None, "Ignoring logging level for namespace org.x because it is unexpectedly null"),
        (b'"DEBUG"', "Ignoring logging level for namespace org.x because the value is not a Map but is "
         "java.lang.String"),
        (b"{}", "Invalid data for logging level key 'level' field with namespace org.x; should be a String "
         "but it is null"),
        (b'{"level":5}', "Invalid data for logging level key 'level' field with namespace org.x; should be a "
         "String but it is java.lang.Long"),
        (b'{"level":["DEBUG"]}', "should be a String but it is java.util.ArrayList"),
    ],
)  # fmt: skip
def test_malformed_logger_levels_are_refused_with_kafkas_texts(value: bytes | None, message: str) -> None:
    with pytest.raises(RecordFormatError, match=re.escape(message)):
        parse_config_record("logger-cluster-org.x", value)


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("connector-a", b"[1]", "expected a JSON object"),
        ("connector-a", b'{"properties":"x"}', "'properties' should be an object"),
        ("task-a", b'{"properties":{}}', "is not a task key"),
        ("task-a-x", b'{"properties":{}}', "is not a task key"),
        ("task-a-0", None, "cannot be null"),
        ("commit-a", b'{"tasks":"2"}', "expected {'tasks': <integer>}"),
        ("target-state-a", b'{"state":"RUNNING"}', "invalid target state 'RUNNING'"),
        ("session-key", b'{"key":"!!","algorithm":"HmacSHA256","creation-timestamp":1}', "not base64"),
        ("something-else", b"{}", "unknown config record key"),
        ("connector-a", b"\xff", "not JSON"),
    ],
)
def test_malformed_records_are_refused_with_the_reason(key: str, value: bytes | None, message: str) -> None:
    with pytest.raises(RecordFormatError, match=message.replace("{", r"\{").replace("[", r"\[")):
        parse_config_record(key, value)


def _text(record: tuple[bytes, bytes | None]) -> tuple[str, bytes | None]:
    return record[0].decode(), record[1]


def test_a_task_count_record_is_written_as_kafkas_and_read_back_as_known() -> None:
    assert task_count_key("src") == "tasks-fencing-src"
    assert task_count_value(3) == b'{"task-count":3}'
    assert parse_config_record("tasks-fencing-src", task_count_value(3)) == TaskCountRecord("src", 3)
