"""The checks every transformation makes of its input, with Kafka's texts (Kafka's ``Requirements``).

Kafka names the Java class of what it found in these messages; `java_class_name` gives the class
Kafka would hold for a kconnect value, so the texts match.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.data.schema import Schema
from kconnect.data.struct import Struct
from kconnect.errors import DataError
from kconnect.records import ConnectRecord, SinkRecord, SourceRecord

from kconnect_transforms.java_values import java_kind

_RECORD_CLASSES = {
    SinkRecord: "org.apache.kafka.connect.sink.SinkRecord",
    SourceRecord: "org.apache.kafka.connect.source.SourceRecord",
}


def java_class_name(value: Any) -> str:
    """The name of the Java class Kafka would hold for `value` (``null`` for None); see `java_kind`."""
    if value is None:
        return "null"
    for record_type, java_name in _RECORD_CLASSES.items():
        if isinstance(value, record_type):
            return java_name
    return java_kind(value).value


def require_schema(schema: Schema | None, purpose: str) -> Schema:
    """`schema`, or DataError when the record has none."""
    if schema is None:
        raise DataError(f"Schema required for [{purpose}]")
    return schema


def require_map(value: Any, purpose: str) -> Mapping[str, Any]:
    """`value` as a map, or DataError naming what was found instead."""
    if not isinstance(value, Mapping):
        raise DataError(
            f"Only Map objects supported in absence of schema for [{purpose}], "
            f"found: {java_class_name(value)}"
        )
    return value


def require_map_or_null(value: Any, purpose: str) -> Mapping[str, Any] | None:
    """None, or `value` as a map."""
    return None if value is None else require_map(value, purpose)


def require_struct(value: Any, purpose: str) -> Struct:
    """`value` as a Struct, or DataError naming what was found instead."""
    if not isinstance(value, Struct):
        raise DataError(f"Only Struct objects supported for [{purpose}], found: {java_class_name(value)}")
    return value


def require_struct_or_null(value: Any, purpose: str) -> Struct | None:
    """None, or `value` as a Struct."""
    return None if value is None else require_struct(value, purpose)


def require_sink_record(record: ConnectRecord, purpose: str) -> SinkRecord:
    """`record` as a SinkRecord, or DataError (a source record has no Kafka offset yet)."""
    if not isinstance(record, SinkRecord):
        raise DataError(f"Only SinkRecord supported for [{purpose}], found: {java_class_name(record)}")
    return record
