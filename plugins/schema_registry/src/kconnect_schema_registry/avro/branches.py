"""Which Avro schema a Connect schema's values take, and which values need no conversion.

The decisions both Avro codecs share: the fastavro path (`values`) and the compiled binary path
(`binary_writer`, `binary_reader`) compile one plan per schema pair from them, so the two agree on
every branch they pick and every value they pass through as it is.
"""

from __future__ import annotations

from kconnect.data import logical
from kconnect.data.schema import Schema, Type
from kconnect.errors import DataError

from kconnect_schema_registry.avro.mapping import AvroMapping
from kconnect_schema_registry.avro.names import DEFAULT_SCHEMA_FULL_NAME, is_union_schema, string_keyed
from kconnect_schema_registry.avro.schema import AvroSchema


def underlying(mapping: AvroMapping, schema: Schema, avro: AvroSchema) -> AvroSchema:
    """The Avro schema values of `schema` are written with: for an optional schema, the non-null
    branch of `avro`'s union (Confluent's ``avroSchemaForUnderlyingTypeIfOptional``), else `avro`.

    Raises DataError when no branch matches, as Confluent's converter does.
    """
    if not schema.optional or is_union_schema(schema):
        return avro
    if avro.type != "union":
        raise DataError(f"An optional schema should have an Avro Union type, not {schema.type}")
    if schema.type is Type.MAP and not string_keyed(schema, mapping.settings.allow_optional_map_keys):
        for branch in avro.branches:
            if branch.type == "array":
                return branch
        return avro
    full = mapping.scrub_full_name(schema.name)
    kind = _connect_kind(schema)
    for branch in avro.branches:
        if branch.type == "null":
            continue
        if (
            (branch.full_name is not None and branch.full_name == full)
            or branch.type == kind
            or (schema.name is None and (branch.full_name or "").startswith(DEFAULT_SCHEMA_FULL_NAME))
        ):
            return branch
    members = [b for b in avro.branches if b.type != "null"]
    if len(members) == 1:  # e.g. an optional INT32 or Date: the one branch there is
        return members[0]
    raise DataError(f"No branch of {avro.text()} matches the optional schema {schema}")


def _connect_kind(schema: Schema) -> str:
    # Java compares Connect's and Avro's type names: equal for the types both have.
    return {Type.BOOLEAN: "boolean", Type.STRING: "string", Type.BYTES: "bytes", Type.ARRAY: "array"}.get(
        schema.type, schema.type.value
    )


def branch_name(branch: AvroSchema) -> str:
    """The name a union branch goes by: its full name if it is a named type, else its type."""
    return branch.full_name if branch.is_named and branch.full_name else branch.type


_PLAIN_TYPES = frozenset(
    {Type.INT8, Type.INT16, Type.INT32, Type.INT64, Type.FLOAT32, Type.FLOAT64, Type.BOOLEAN}
)
_PLAIN_AVRO = frozenset({"null", "int", "long", "float", "double", "boolean", "string", "bytes"})
_LOGICAL_NAMES = frozenset(
    {
        logical.Decimal.LOGICAL_NAME,
        logical.Date.LOGICAL_NAME,
        logical.Time.LOGICAL_NAME,
        logical.Timestamp.LOGICAL_NAME,
    }
)


def is_plain(schema: Schema, avro: AvroSchema, reading: bool) -> bool:
    """Whether values of `schema` are fastavro's data as they are (no conversion either way)."""
    if schema.name in _LOGICAL_NAMES or is_union_schema(schema):
        return False
    branches = avro.branches if avro.type == "union" else [avro]
    if any(b.type not in _PLAIN_AVRO for b in branches):
        return False
    if reading:  # Java narrows an int read as INT8/INT16; strings and bytes come back as they are
        return schema.type in (_PLAIN_TYPES - {Type.INT8, Type.INT16}) | {Type.STRING, Type.BYTES}
    return schema.type in _PLAIN_TYPES or schema.type is Type.STRING


PYTHON_BRANCHES: dict[type, tuple[str, ...]] = {
    bool: ("boolean",),
    int: ("int", "long"),
    float: ("float", "double"),
    str: ("string",),
    bytes: ("bytes",),
    list: ("array",),
    dict: ("map", "record"),
}
"""The Avro types a decoded Python value of each type may have come from, to find its union branch."""
