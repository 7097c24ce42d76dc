"""Bytes of the status topic's records, as Java Kafka Connect writes and reads them.

Java's workers serialise internal records with JsonConverter (``schemas.enable=false``): compact
JSON written by Jackson. `json_bytes` writes the same bytes for the JSON values these records hold
(strings escaped as Jackson escapes them, doubles as Java prints them), so a key written by
kconnect and one written by Java for the same value are the same bytes, and compaction on a
shared topic keeps only the newest. That JSON writer and the offsets topic's records live in
`kconnect.kafka.offset_records` (a source task's transactional producer writes offsets too). Status
keys are ``status-connector-<name>``, ``status-task-<name>-<n>`` and
``status-topic-<topic>:connector-<name>`` (see ``docs/distributed.md``).

A connector or task whose automatic restarts (a kconnect extension) have a schedule carries it in
one more field of its status value, ``kconnect_auto_restarts``: Java's reader takes the fields it
knows from the value's map and ignores the others, and a status without a schedule is Java's bytes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kconnect.kafka.offset_records import RecordFormatError, json_bytes, json_object
from kconnect.model import AutoRestarts, ConnectorTaskId, State, StateInfo, TaskStateInfo

CONNECTOR_STATUS_PREFIX = "status-connector-"
TASK_STATUS_PREFIX = "status-task-"
TOPIC_STATUS_PREFIX = "status-topic-"
TOPIC_STATUS_SEPARATOR = ":connector-"


# --- status topic ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class StatusRecord:
    """A connector's or task's status as stored: Kafka's AbstractStatus with its generation."""

    state: State
    worker_id: str
    generation: int
    trace: str | None = None
    version: str | None = None
    auto_restarts: AutoRestarts | None = None


AUTO_RESTARTS_FIELD = "kconnect_auto_restarts"


def connector_status_key(connector: str) -> str:
    """``status-connector-<name>``."""
    return CONNECTOR_STATUS_PREFIX + connector


def task_status_key(task: ConnectorTaskId) -> str:
    """``status-task-<name>-<n>``."""
    return f"{TASK_STATUS_PREFIX}{task.connector}-{task.task}"


def topic_status_key(connector: str, topic: str) -> str:
    """``status-topic-<topic>:connector-<name>`` (KIP-558 active topics)."""
    return f"{TOPIC_STATUS_PREFIX}{topic}{TOPIC_STATUS_SEPARATOR}{connector}"


def status_value(status: StatusRecord) -> bytes:
    """Kafka's status value, every field present as Java 4.x writes it (``version`` null when unknown)."""
    return json_bytes(
        {
            "state": status.state.value,
            "trace": status.trace,
            "worker_id": status.worker_id,
            "generation": status.generation,
            "version": status.version,
            **_auto_restarts_field(status.auto_restarts),
        }
    )


def _auto_restarts_field(restarts: AutoRestarts | None) -> dict[str, Any]:
    if restarts is None:
        return {}
    return {
        AUTO_RESTARTS_FIELD: {
            "count": restarts.count,
            "last_failure": restarts.last_failure,
            "last_failure_ms": restarts.last_failure_ms,
            "next_attempt_ms": restarts.next_attempt_ms,
            "gave_up": restarts.gave_up,
        }
    }


def _parse_auto_restarts(fields: dict[str, Any]) -> AutoRestarts | None:
    """The extension field, or None when absent or not as kconnect writes it (the status stays valid)."""
    value = fields.get(AUTO_RESTARTS_FIELD)
    if not isinstance(value, dict):
        return None
    count, trace, gave_up = value.get("count"), value.get("last_failure"), value.get("gave_up")
    failed_ms, next_ms = value.get("last_failure_ms"), value.get("next_attempt_ms")
    whole = (int, type(None))
    if not isinstance(count, int) or isinstance(count, bool) or not isinstance(gave_up, bool):
        return None
    if (
        not isinstance(trace, (str, type(None)))
        or not isinstance(failed_ms, whole)
        or not isinstance(next_ms, whole)
    ):
        return None
    return AutoRestarts(count, trace, failed_ms, next_ms, gave_up)


def parse_status_value(value: bytes) -> StatusRecord:
    """A status value; RecordFormatError when a field is missing or of the wrong type."""
    fields = json_object(value, "status value")
    try:
        state = State(fields.get("state"))
    except ValueError:
        raise RecordFormatError(f"status value: unknown state {fields.get('state')!r}") from None
    worker, generation = fields.get("worker_id"), fields.get("generation")
    trace, version = fields.get("trace"), fields.get("version")
    if not isinstance(worker, str) or not isinstance(generation, int) or isinstance(generation, bool):
        raise RecordFormatError("status value: worker_id must be a string and generation an integer")
    if trace is not None and not isinstance(trace, str):
        raise RecordFormatError("status value: trace must be a string")
    version = version if isinstance(version, str) else None
    return StatusRecord(state, worker, generation, trace, version, _parse_auto_restarts(fields))


def topic_status_value(connector: str, topic: str, task: int, discover_timestamp_ms: int) -> bytes:
    """Kafka's active-topic value: ``{"topic":{"name","connector","task","discoverTimestamp"}}``."""
    return json_bytes(
        {
            "topic": {
                "name": topic,
                "connector": connector,
                "task": task,
                "discoverTimestamp": discover_timestamp_ms,
            }
        }
    )


def parse_topic_status_key(key: str) -> tuple[str, str]:
    """Connector and topic of a ``status-topic-<topic>:connector-<name>`` key."""
    colon = key.find(":", len(TOPIC_STATUS_PREFIX))
    topic = key[len(TOPIC_STATUS_PREFIX) : colon] if colon >= 0 else ""
    connector = key[colon + len(TOPIC_STATUS_SEPARATOR) :] if colon >= 0 else ""
    # Kafka cuts at the first ':' (topic names cannot hold one); the connector name may hold any.
    if not topic or not connector or not key.startswith(TOPIC_STATUS_SEPARATOR, colon):
        raise RecordFormatError(f"invalid topic status key {key!r}")
    return connector, topic


def parse_task_id(key: str, prefix: str) -> ConnectorTaskId:
    """The task of a ``<prefix><name>-<n>`` key (the number after the last ``-``)."""
    connector, sep, number = key[len(prefix) :].rpartition("-")
    if not sep or not connector or not re.fullmatch(r"[+-]?[0-9]+", number):
        raise RecordFormatError(f"{key!r} is not a task key")
    return ConnectorTaskId(connector, int(number))


def state_info(record: StatusRecord) -> StateInfo:
    """The herder's view of a connector status record."""
    return StateInfo(record.state, record.worker_id, record.trace, record.version)


def task_state_info(task: ConnectorTaskId, record: StatusRecord) -> TaskStateInfo:
    """The herder's view of a task status record."""
    return TaskStateInfo(record.state, record.worker_id, record.trace, record.version, id=task.task)
