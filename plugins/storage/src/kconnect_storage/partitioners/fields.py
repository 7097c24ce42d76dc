"""Nested record fields named with dots (``address.city``), as Confluent's ``DataUtils`` finds them.

Used by the Field partitioner (``partition.field.name``) and the RecordField timestamp extractor
(``timestamp.field``); texts are Confluent's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect import Schema, SinkRecord, Struct
from kconnect.data.schema import Field, Type
from kconnect.errors import DataError


def path_segments(field_name: str) -> list[str]:
    """The segments of a dotted name, as Java's ``split("\\\\.")`` (trailing empty ones dropped)."""
    segments = field_name.split(".")
    while len(segments) > 1 and segments[-1] == "":
        segments.pop()
    return segments


def _check(container: object, field_name: str) -> None:
    if container is None:
        raise DataError("Attempted to extract a field from a null object.")
    if not field_name.strip():
        raise DataError("The field to extract cannot be null or empty.")


def _child(container: object, name: str) -> Any:
    if isinstance(container, Struct):
        found = container.schema.field(name)
        value = None if found is None else container.get(found)
        if value is None:
            raise DataError(f"The field '{name}' does not exist.")
        return value
    if isinstance(container, Mapping):
        value = container.get(name)
        if value is None:
            raise DataError(f"Unable to find nested field '{name}'")
        return value
    raise DataError(f"Argument not a Struct or Map. Cannot get field '{name}'.")


def nested_value(container: object, field_name: str) -> Any:
    """The value at `field_name` in a Struct or map; DataError naming the field when absent or null."""
    _check(container, field_name)
    value = container
    try:
        for name in path_segments(field_name):
            value = _child(value, name)
    except DataError as e:
        raise DataError(f"The field '{field_name}' does not exist.") from e
    return value


def nested_field(schema: Schema | None, field_name: str) -> Field | None:
    """The schema field at `field_name`, None when some segment is not a field."""
    _check(schema, field_name)
    assert schema is not None
    found: Field | None = None
    current: Schema | None = schema
    for name in path_segments(field_name):
        if current is None or current.type is not Type.STRUCT:
            raise DataError(f"Unable to get field '{field_name}' from schema {schema}.")
        found = current.field(name)
        if found is None:
            return None
        current = found.schema
    return found


def describe_record(record: SinkRecord) -> str:
    """A record as Kafka's ``SinkRecord.toString`` starts, without key and value."""
    return (
        f"SinkRecord{{kafkaOffset={record.kafka_offset}, timestampType={record.timestamp_type.value}}} "
        f"ConnectRecord{{topic='{record.topic}', kafkaPartition={record.kafka_partition}, "
        f"timestamp={record.timestamp}}}"
    )
