"""The offsets topic's records, as Java Kafka Connect writes and reads them (with the JSON they use).

Java's workers serialise internal records with JsonConverter (``schemas.enable=false``): compact
JSON written by Jackson. `json_bytes` writes the same bytes for the JSON values these records hold
(strings escaped as Jackson escapes them, doubles as Java prints them), so a key written by
kconnect and one written by Java for the same value are the same bytes, and compaction on a
shared topic keeps only the newest. Offsets keys are ``["<connector>", {source partition}]``.

Two writers share this format: the worker's offset store (`kconnect.storage.kafka_offsets`) and,
with exactly-once source support, a source task's own transactional producer
(`kconnect.runtime.exactly_once`), which writes its offsets in the transaction of its records.
`kconnect.storage.record_formats` builds the status and config records on the same JSON.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from kconnect.data.java_text import jackson_double, jackson_string


class RecordFormatError(ValueError):
    """A record of an internal topic cannot be read; readers log it and skip the record (as Kafka)."""


# --- JSON as Jackson writes it ---------------------------------------------------------------------


def _json(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return jackson_string(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return jackson_double(value)
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{jackson_string(str(k))}:{_json(v)}" for k, v in value.items()) + "}"
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


def json_object(data: bytes, what: str) -> dict[str, Any]:
    """Parse a record's JSON bytes that must hold an object; RecordFormatError naming `what` if not."""
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
    return None if value is None else json_object(value, "offset value")
