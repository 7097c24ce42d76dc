"""Schemaless values: Confluent's ``io.confluent.connect.avro.Anything`` record.

A value without a Connect schema is written as an ``Anything`` record with one field set: the one
named after the value's type (``boolean``, ``bytes``, ``double``, ``string``, ``long``...), an array
of ``Anything``, or a map as an array of ``MapEntry`` records of two ``Anything``. A null inside an
array or map is an ``Anything`` with no field set. Reading such a record gives the value back with
no schema, as Confluent's converter does.

Python has one int type where Java has four: an int is written as ``long`` (what Java's schemaless
JSON gives) and a float as ``double``; ``int`` and ``float`` fields written by Java read as ints and
floats.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.errors import DataError

from kconnect_schema_registry.avro.schema import AvroSchema, parse

ANYTHING_TEXT = (
    '{"type":"record","name":"Anything","namespace":"io.confluent.connect.avro","fields":['
    '{"name":"boolean","type":["null","boolean"],"default":null},'
    '{"name":"bytes","type":["null","bytes"],"default":null},'
    '{"name":"double","type":["null","double"],"default":null},'
    '{"name":"float","type":["null","float"],"default":null},'
    '{"name":"int","type":["null","int"],"default":null},'
    '{"name":"long","type":["null","long"],"default":null},'
    '{"name":"string","type":["null","string"],"default":null},'
    '{"name":"array","type":["null",{"type":"array","items":"Anything"}],"default":null},'
    '{"name":"map","type":["null",{"type":"array","items":{"type":"record","name":"MapEntry","fields":'
    '[{"name":"key","type":"Anything"},{"name":"value","type":"Anything"}]}}],"default":null}]}'
)
_FIELDS = ("boolean", "bytes", "double", "float", "int", "long", "string", "array", "map")


def anything_schema() -> AvroSchema:
    """A fresh parse of Confluent's ``Anything`` schema."""
    return parse(ANYTHING_TEXT)


def is_anything(schema: AvroSchema) -> bool:
    """Whether `schema` is Confluent's ``Anything`` schema (read back as a schemaless value)."""
    return schema.full_name == "io.confluent.connect.avro.Anything" and schema.text() == ANYTHING_TEXT


def _record(field: str | None, value: Any) -> dict[str, Any]:
    record: dict[str, Any] = dict.fromkeys(_FIELDS)
    if field is not None:
        record[field] = value
    return record


def to_anything(value: Any) -> dict[str, Any]:
    """`value` (no schema) as fastavro's datum of an ``Anything`` record."""
    if value is None:
        return _record(None, None)
    if isinstance(value, bool):
        return _record("boolean", value)
    if isinstance(value, int):
        return _record("long", value)
    if isinstance(value, float):
        return _record("double", value)
    if isinstance(value, str):
        return _record("string", value)
    if isinstance(value, bytes | bytearray | memoryview):
        return _record("bytes", bytes(value))
    if isinstance(value, list | tuple):
        return _record("array", [to_anything(v) for v in value])
    if isinstance(value, Mapping):
        return _record("map", [{"key": to_anything(k), "value": to_anything(v)} for k, v in value.items()])
    raise DataError(f"Unknown Java type for schemaless data: {type(value).__name__}")


def from_anything(record: Any) -> Any:
    """The value of an ``Anything`` record read by fastavro (None when no field is set)."""
    if type(record) is tuple:
        record = record[1]
    if not isinstance(record, dict):
        raise DataError("Invalid Avro data for schemaless Connect data")
    for field in _FIELDS[:7]:
        found = record.get(field)
        if found is not None:
            return found
    items = record.get("array")
    if items is not None:
        return [from_anything(v) for v in items]
    entries = record.get("map")
    if entries is not None:
        try:
            return {from_anything(e["key"]): from_anything(e["value"]) for e in entries}
        except TypeError as e:
            raise DataError(f"Schemaless map keys cannot be Python dict keys: {e}") from e
    return None
