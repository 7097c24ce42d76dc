"""Records of the config topic (``config.storage.topic``), as Java Kafka Connect writes and reads them.

Keys are Kafka's (``KafkaConfigBackingStore``); values are the JSON Java's JsonConverter
(``schemas.enable=false``) writes:

==============================  =====================================================================
key                             value
==============================  =====================================================================
``connector-<name>``            ``{"properties":{...}}``; null (tombstone) deletes the connector
``task-<name>-<n>``             ``{"properties":{...}}``; applied only when a commit follows
``commit-<name>``               ``{"tasks":N}``: tasks 0..N-1 written before it become current
``target-state-<name>``         ``{"state":"PAUSED","state.v2":"STOPPED"}`` (``state`` never STOPPED,
                                for workers older than KIP-875); null when the connector is deleted
``restart-connector-<name>``    ``{"include-tasks":true,"only-failed":false}`` (KIP-745)
``session-key``                 ``{"key":"<base64>","algorithm":"HmacSHA256","creation-timestamp":ms}``
``logger-cluster-<namespace>``  ``{"level":"DEBUG"}``: a cluster-wide logger level (KIP-976)
``tasks-fencing-<name>``        ``{"task-count":N}``: the task count of the source connector's last
                                generation whose predecessors were fenced (KIP-618)
==============================  =====================================================================

kconnect's leader writes ``tasks-fencing-<name>`` after a round of zombie fencing
(`kconnect.herder.zombie_fencing`), as Kafka's does, and reads it back as Kafka's
``taskCountRecord``: the generation a fencing round before altering or resetting a stopped source
connector's offsets has to fence (its tasks' configs are gone by then). A record that
is a whole value by itself is read straight into it: a restart request into the vocabulary's
`RestartRequest`, a session key into `SessionKey`, a logger level into the change a listener
hears (`config_changes.LoggerLevelRead`).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kconnect.kafka.offset_records import RecordFormatError, json_bytes, parse_json
from kconnect.model import ConnectorTaskId, RestartRequest, SessionKey, TargetState
from kconnect.storage.config_changes import LoggerLevelRead
from kconnect.storage.record_formats import parse_task_id

CONNECTOR_PREFIX = "connector-"
TASK_PREFIX = "task-"
COMMIT_TASKS_PREFIX = "commit-"
TARGET_STATE_PREFIX = "target-state-"
RESTART_PREFIX = "restart-connector-"
SESSION_KEY_KEY = "session-key"
TASK_COUNT_PREFIX = "tasks-fencing-"
LOGGER_CLUSTER_PREFIX = "logger-cluster-"


@dataclass(frozen=True)
class ConnectorConfigRecord:
    """``connector-<name>``: the connector's config, or None when it was deleted."""

    connector: str
    config: dict[str, str] | None


@dataclass(frozen=True)
class TaskConfigRecord:
    """``task-<name>-<n>``: one task's config, pending until a commit record applies it."""

    task: ConnectorTaskId
    config: dict[str, str]


@dataclass(frozen=True)
class TaskCommitRecord:
    """``commit-<name>``: the connector now has `tasks` tasks, whose configs precede this record."""

    connector: str
    tasks: int


@dataclass(frozen=True)
class TargetStateRecord:
    """``target-state-<name>``: the connector's target state, or None when it was deleted."""

    connector: str
    state: TargetState | None


@dataclass(frozen=True)
class TaskCountRecord:
    """``tasks-fencing-<name>``: the task count of the source connector's last fenced generation."""

    connector: str
    tasks: int


ConfigRecord = (
    ConnectorConfigRecord
    | TaskConfigRecord
    | TaskCommitRecord
    | TargetStateRecord
    | RestartRequest
    | SessionKey
    | LoggerLevelRead
    | TaskCountRecord
)
"""One config-topic record as read: ``restart-connector-``, ``session-key`` and ``logger-cluster-``
records are their values (a KIP-745 request, a KIP-507 key, a KIP-976 level)."""


# --- keys and values kconnect writes ---------------------------------------------------------------


def connector_key(connector: str) -> str:
    """``connector-<name>``."""
    return CONNECTOR_PREFIX + connector


def task_key(task: ConnectorTaskId) -> str:
    """``task-<name>-<n>``."""
    return f"{TASK_PREFIX}{task.connector}-{task.task}"


def commit_key(connector: str) -> str:
    """``commit-<name>``."""
    return COMMIT_TASKS_PREFIX + connector


def target_state_key(connector: str) -> str:
    """``target-state-<name>``."""
    return TARGET_STATE_PREFIX + connector


def restart_key(connector: str) -> str:
    """``restart-connector-<name>``."""
    return RESTART_PREFIX + connector


def logger_level_key(namespace: str) -> str:
    """``logger-cluster-<namespace>``."""
    return LOGGER_CLUSTER_PREFIX + namespace


def config_value(config: Mapping[str, str]) -> bytes:
    """A connector or task config value: ``{"properties":{...}}``."""
    return json_bytes({"properties": dict(config)})


def task_count_key(connector: str) -> str:
    """``tasks-fencing-<name>``."""
    return TASK_COUNT_PREFIX + connector


def task_count_value(tasks: int) -> bytes:
    """A task count value: ``{"task-count":N}``."""
    return json_bytes({"task-count": tasks})


def commit_value(tasks: int) -> bytes:
    """A task commit value: ``{"tasks":N}``."""
    return json_bytes({"tasks": tasks})


def target_state_value(state: TargetState) -> bytes:
    """A target state value; ``state`` says PAUSED for STOPPED so pre-KIP-875 workers pause it."""
    legacy = TargetState.PAUSED if state is TargetState.STOPPED else state
    return json_bytes({"state": legacy.value, "state.v2": state.value})


def restart_value(request: RestartRequest) -> bytes:
    """A restart request value: ``{"include-tasks":b,"only-failed":b}``."""
    return json_bytes({"include-tasks": request.include_tasks, "only-failed": request.only_failed})


def logger_level_value(level: str) -> bytes:
    """A cluster-wide logger level value: ``{"level":"DEBUG"}``."""
    return json_bytes({"level": level})


def session_key_value(session_key: SessionKey) -> bytes:
    """A session key value: base64 key, algorithm, creation time in epoch milliseconds."""
    return json_bytes(
        {
            "key": base64.b64encode(session_key.key).decode("ascii"),
            "algorithm": session_key.algorithm,
            "creation-timestamp": session_key.creation_timestamp_ms,
        }
    )


# --- reading ---------------------------------------------------------------------------------------


def parse_config_record(key: str, value: bytes | None) -> ConfigRecord:
    """What one config-topic record says; RecordFormatError (the reader logs and skips it) if malformed.

    Prefixes are tried in Kafka's order, so a key means what it means to a Java worker.
    """
    if key.startswith(LOGGER_CLUSTER_PREFIX):  # Kafka checks its other prefixes first; none overlaps
        return _logger_level(key[len(LOGGER_CLUSTER_PREFIX) :], value)
    fields = None if value is None else _object(parse_json(value), key)
    if key.startswith(TARGET_STATE_PREFIX):
        return TargetStateRecord(key[len(TARGET_STATE_PREFIX) :], _target_state(fields, key))
    if key.startswith(CONNECTOR_PREFIX):
        config = None if fields is None else _properties(fields, key)
        return ConnectorConfigRecord(key[len(CONNECTOR_PREFIX) :], config)
    if key.startswith(TASK_PREFIX):
        if fields is None:
            raise RecordFormatError(f"{key}: a task config cannot be null")
        return TaskConfigRecord(parse_task_id(key, TASK_PREFIX), _properties(fields, key))
    if key.startswith(COMMIT_TASKS_PREFIX):
        tasks = None if fields is None else fields.get("tasks")
        if not isinstance(tasks, int) or isinstance(tasks, bool):
            raise RecordFormatError(f"{key}: expected {{'tasks': <integer>}}")
        return TaskCommitRecord(key[len(COMMIT_TASKS_PREFIX) :], tasks)
    if key.startswith(RESTART_PREFIX):
        if fields is None:
            raise RecordFormatError(f"{key}: a restart request cannot be null")
        # Kafka reads a missing or non-boolean flag as its default, false.
        only_failed = fields.get("only-failed") is True
        include_tasks = fields.get("include-tasks") is True
        return RestartRequest(key[len(RESTART_PREFIX) :], only_failed, include_tasks)
    if key.startswith(TASK_COUNT_PREFIX):
        count = None if fields is None else fields.get("task-count")
        if not isinstance(count, int) or isinstance(count, bool):
            raise RecordFormatError(f"{key}: expected {{'task-count': <integer>}}")
        return TaskCountRecord(key[len(TASK_COUNT_PREFIX) :], count)
    if key == SESSION_KEY_KEY:
        return _session_key(fields)
    raise RecordFormatError(f"unknown config record key {key!r}")


def _logger_level(namespace: str, value: bytes | None) -> LoggerLevelRead:
    """Kafka's checks and texts (processLoggerLevelRecord); the level's name itself is checked when set."""
    if value is None:
        raise RecordFormatError(
            f"Ignoring logging level for namespace {namespace} because it is unexpectedly null"
        )
    fields = parse_json(value)
    if not isinstance(fields, dict):
        raise RecordFormatError(
            f"Ignoring logging level for namespace {namespace} because the value is not a Map "
            f"but is {_java_class_name(fields)}"
        )
    level = fields.get("level")
    if not isinstance(level, str):
        raise RecordFormatError(
            f"Invalid data for logging level key 'level' field with namespace {namespace}; "
            f"should be a String but it is {_java_class_name(level)}"
        )
    return LoggerLevelRead(namespace, level)


def _java_class_name(value: Any) -> str:
    """What Kafka's ConnectUtils.className names a JSON value read by its JsonConverter."""
    if value is None:
        return "null"
    names = {
        bool: "java.lang.Boolean",
        int: "java.lang.Long",
        float: "java.lang.Double",
        str: "java.lang.String",
    }
    return names.get(type(value), "java.util.ArrayList" if isinstance(value, list) else "java.util.HashMap")


def _object(value: Any, key: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RecordFormatError(f"{key}: expected a JSON object, got {type(value).__name__}")
    return value


def _properties(fields: dict[str, Any], key: str) -> dict[str, str]:
    properties = fields.get("properties")
    if not isinstance(properties, dict):
        raise RecordFormatError(f"{key}: 'properties' should be an object")
    # Java's map may hold null values (an optional string schema); kconnect's configs hold strings.
    return {str(k): v for k, v in properties.items() if isinstance(v, str)}


def _target_state(fields: dict[str, Any] | None, key: str) -> TargetState | None:
    if fields is None:
        return None
    state = fields.get("state.v2")
    if not isinstance(state, str):  # written by a worker older than KIP-875
        state = fields.get("state")
    try:
        return TargetState(state)
    except ValueError:
        raise RecordFormatError(f"{key}: invalid target state {state!r}") from None


def _session_key(fields: dict[str, Any] | None) -> SessionKey:
    if fields is None:
        raise RecordFormatError("session-key: a session key cannot be null")
    key, algorithm, created = fields.get("key"), fields.get("algorithm"), fields.get("creation-timestamp")
    if not isinstance(key, str) or not isinstance(algorithm, str) or not isinstance(created, int):
        raise RecordFormatError("session-key: expected key and algorithm strings and a creation-timestamp")
    try:
        secret = base64.b64decode(key, validate=True)
    except binascii.Error as exc:
        raise RecordFormatError(f"session-key: the key is not base64: {exc}") from exc
    return SessionKey(secret, algorithm, created)
