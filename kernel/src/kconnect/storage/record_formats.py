"""Bytes of the status topic's records, as Java Kafka Connect writes and reads them.

Java's workers serialise internal records with JsonConverter (``schemas.enable=false``): compact
JSON written by Jackson. `json_bytes` writes the same bytes for the JSON values these records hold
(strings escaped as Jackson escapes them, doubles as Java prints them), so a key written by
kconnect and one written by Java for the same value are the same bytes, and compaction on a
shared topic keeps only the newest. That JSON writer and the offsets topic's records live in
`kconnect.kafka.offset_records` (a source task's transactional producer writes offsets too). Status
keys are ``status-connector-<name>``, ``status-task-<name>-<n>`` and
``status-topic-<topic>:connector-<name>`` (see ``docs/distributed.md``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kconnect.kafka.offset_records import RecordFormatError, json_bytes, json_object
from kconnect.model import ConnectorTaskId, State, StateInfo, TaskStateInfo

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
        }
    )


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
    return StatusRecord(state, worker, generation, trace, version if isinstance(version, str) else None)


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
