"""Bytes of the offsets and status topics' records, as Java Kafka Connect writes and reads them.

Java's workers serialise internal records with JsonConverter (``schemas.enable=false``): compact
JSON written by Jackson. `json_bytes` writes the same bytes for the JSON values these records hold
(strings escaped as Jackson escapes them, doubles as Java prints them), so a key written by
kconnect and one written by Java for the same value are the same bytes, and compaction on a
shared topic keeps only the newest. Offsets keys are ``["<connector>", {source partition}]``;
status keys are ``status-connector-<name>``, ``status-task-<name>-<n>`` and
``status-topic-<topic>:connector-<name>`` (see ``docs/distributed.md``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kconnect.data.values import java_double_repr
from kconnect.model import ConnectorTaskId, State, StateInfo, TaskStateInfo

CONNECTOR_STATUS_PREFIX = "status-connector-"
TASK_STATUS_PREFIX = "status-task-"
TOPIC_STATUS_PREFIX = "status-topic-"
TOPIC_STATUS_SEPARATOR = ":connector-"


class RecordFormatError(ValueError):
    """A record of an internal topic cannot be read; readers log it and skip the record (as Kafka)."""


# --- JSON as Jackson writes it ---------------------------------------------------------------------

_ESCAPES = {c: f"\\u{c:04X}" for c in range(0x20)}
_ESCAPES.update({0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\f", 0x0D: "\\r", 0x22: '\\"', 0x5C: "\\\\"})
_NEEDS_ESCAPE = re.compile('[\x00-\x1f"\\\\\U00010000-\U0010ffff]')


def _string(text: str) -> str:
    if not _NEEDS_ESCAPE.search(text):
        return f'"{text}"'
    out = []
    for char in text:
        code = ord(char)
        if code > 0xFFFF:  # Jackson's UTF-8 writer escapes characters beyond the BMP as surrogate pairs
            code -= 0x10000
            out.append(f"\\u{0xD800 + (code >> 10):04X}\\u{0xDC00 + (code & 0x3FF):04X}")
        else:
            out.append(_ESCAPES.get(code, char))
    return '"' + "".join(out) + '"'


def _json(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = java_double_repr(value)
        return text if math.isfinite(value) else f'"{text}"'
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{_string(str(k))}:{_json(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_json(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def json_bytes(value: Any) -> bytes:
    """`value` as the UTF-8 bytes Java's JsonConverter (``schemas.enable=false``) writes for it."""
    return _json(value).encode("utf-8")


def parse_json(data: bytes) -> Any:
    """Parse a record's JSON bytes; RecordFormatError if they are not JSON."""
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RecordFormatError(f"not JSON: {exc}") from exc


def _object(data: bytes, what: str) -> dict[str, Any]:
    value = parse_json(data)
    if not isinstance(value, dict):
        raise RecordFormatError(f"{what}: expected a JSON object, got {type(value).__name__}")
    return value


# --- offsets topic ---------------------------------------------------------------------------------


def offset_key(connector: str, partition: Mapping[str, Any]) -> bytes:
    """The offsets-topic key of a source partition: ``["<connector>",{partition}]``."""
    return json_bytes([connector, partition])


def parse_offset_key(key: bytes) -> tuple[str, dict[str, Any]]:
    """Connector name and source partition of an offsets-topic key."""
    value = parse_json(key)
    if not (isinstance(value, list) and len(value) == 2 and isinstance(value[0], str)):
        raise RecordFormatError('offset key: expected ["<connector>", {partition}]')
    if not isinstance(value[1], dict):
        raise RecordFormatError("offset key: the source partition is not a JSON object")
    return value[0], value[1]


def offset_value(offset: Mapping[str, Any] | None) -> bytes | None:
    """The offsets-topic value of an offset; None (a tombstone) removes it."""
    return None if offset is None else json_bytes(offset)


def parse_offset_value(value: bytes | None) -> dict[str, Any] | None:
    """The offset a record holds; None for a tombstone."""
    return None if value is None else _object(value, "offset value")


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
    fields = _object(value, "status value")
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
