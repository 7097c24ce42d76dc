"""Avro binary straight to Connect values, compiled once per (writer Avro schema, Connect schema) pair.

`compile_binary_reader` reads a payload with the writer's schema and gives the value
`values.compile_decoder` makes of fastavro's datum, without building the datum: records as Structs
by field index, logical types through Connect's logical module, INT8/INT16 narrowed as Java narrows,
enums as their symbol, Confluent's Union structs with the field of the branch read set. `values`
and fastavro stay the reference (a unit test compares the values) and the fallback: a pair this
module does not handle raises `Unsupported` at compile time and the format keeps fastavro's path.
Those are schemas Confluent's mapping does not produce from Avro: a Connect type read from an
unrelated Avro type, record fields the Connect schema lacks, map entry records with more fields,
a Union struct whose old decoder would put a branch's value in another branch's field.
"""

from __future__ import annotations

import logging
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kconnect.data import logical
from kconnect.data.schema import Schema, Type
from kconnect.data.struct import Struct
from kconnect.errors import DataError

from kconnect_schema_registry.avro.binary import (
    Reader,
    Unsupported,
    read_blocks,
    read_boolean,
    read_bytes,
    read_double,
    read_fixed,
    read_float,
    read_long,
    read_string,
)
from kconnect_schema_registry.avro.binary_inline import record_reader
from kconnect_schema_registry.avro.branches import PYTHON_BRANCHES, branch_name, is_plain
from kconnect_schema_registry.avro.mapping import AvroMapping
from kconnect_schema_registry.avro.names import KEY_FIELD, VALUE_FIELD, is_union_schema
from kconnect_schema_registry.avro.schema import AvroSchema

logger = logging.getLogger(__name__)

_TEMPORAL: dict[str, type[logical.Date] | type[logical.Time] | type[logical.Timestamp]] = {
    t.LOGICAL_NAME: t for t in (logical.Date, logical.Time, logical.Timestamp)
}

_PRIMITIVE_SOURCES: dict[Type, dict[str, Reader]] = {
    Type.INT32: {"int": read_long, "long": read_long},
    Type.INT64: {"int": read_long, "long": read_long},
    Type.FLOAT32: {"float": read_float, "double": read_double},
    Type.FLOAT64: {"float": read_float, "double": read_double},
    Type.BOOLEAN: {"boolean": read_boolean},
}
# The Python type of fastavro's datum per Avro type, which the old Union struct decoder matches on.
_DATUM_TYPES: dict[str, type] = {
    "boolean": bool,
    "int": int,
    "long": int,
    "float": float,
    "double": float,
    "string": str,
    "enum": str,
    "bytes": bytes,
    "fixed": bytes,
    "array": list,
    "map": dict,
    "record": dict,
}


@dataclass(frozen=True)
class Tuples:
    """Which union values the reference path reads as ``(branch name, value)`` tuples, which decides
    the field the old decoder sets in a Union struct: `branch_reads` (`reader.read`): every value
    of a union of several non-null branches; else `named_reads` (fastavro): named types."""

    named_reads: bool
    branch_reads: bool

    def tupled(self, union: AvroSchema, branch: AvroSchema) -> bool:
        """Whether a value of `branch` of `union` is read as a tuple."""
        if self.branch_reads:
            return len([b for b in union.branches if b.type != "null"]) > 1
        return self.named_reads and branch.is_named


def compile_binary_reader(mapping: AvroMapping, schema: Schema, avro: AvroSchema, named: Tuples) -> Reader:
    """A reader of Avro binary of `avro` as Connect values of `schema` (raises `Unsupported`).

    `named` says how the reference path reads union branches (`ParsedAvro.named_reads` and
    `branch_reads`), which decides how the old decoder picks a Union struct's field.
    """
    if avro.type == "union" and not is_union_schema(schema):
        members = [b for b in avro.branches if b.type != "null"]
        if len(members) != 1:
            raise DataError(f"Cannot read union {avro.text()} as {schema}")
        inner = _base_reader(mapping, schema, members[0], named)
        branches: list[Reader | None] = [None if b.type == "null" else inner for b in avro.branches]

        def optional(data: bytes, pos: int) -> tuple[Any, int]:
            index, pos = read_long(data, pos)
            branch = branches[index]
            if branch is None:
                return None, pos
            return branch(data, pos)

        return optional
    if avro.type == "null":
        raise Unsupported("a value read from Avro's null type")
    return _base_reader(mapping, schema, avro, named)


def _logical_reader(schema: Schema, avro: AvroSchema) -> Reader | None:
    name = schema.name
    kind = avro.type
    if name == logical.Decimal.LOGICAL_NAME:
        raw = read_bytes if kind == "bytes" else read_fixed(avro.size) if kind == "fixed" else None
        if raw is None:
            raise Unsupported(f"a Decimal read from {kind}")
        to_decimal = logical.Decimal.to_logical

        def decimal(data: bytes, pos: int) -> tuple[Any, int]:
            value, pos = raw(data, pos)
            return to_decimal(schema, value), pos

        return decimal
    temporal_type = _TEMPORAL.get(name or "")
    if temporal_type is None:
        return None
    if kind not in ("int", "long"):
        raise Unsupported(f"{name} read from {kind}")
    convert = temporal_type.to_logical

    def temporal(data: bytes, pos: int) -> tuple[Any, int]:
        value, pos = read_long(data, pos)
        return convert(schema, value), pos  # type: ignore[arg-type]

    return temporal


def _base_reader(mapping: AvroMapping, schema: Schema, avro: AvroSchema, named: Tuples) -> Reader:
    if avro.type == "union" and not is_union_schema(schema):
        return compile_binary_reader(mapping, schema, avro, named)
    found = _logical_reader(schema, avro)
    if found is not None:
        return found
    kind = schema.type
    if kind in (Type.INT8, Type.INT16):
        if avro.type not in ("int", "long"):
            raise Unsupported(f"{kind} read from {avro.type}")
        bits = 8 if kind is Type.INT8 else 16
        half, whole = 1 << (bits - 1), 1 << bits

        def narrow(data: bytes, pos: int) -> tuple[int, int]:
            value, pos = read_long(data, pos)
            return ((value + half) % whole) - half, pos  # Java's byteValue()/shortValue()

        return narrow
    if kind is Type.STRING:
        if avro.type == "enum":
            return _enum_reader(avro)
        if avro.type != "string":
            raise Unsupported(f"STRING read from {avro.type}")
        return read_string
    if kind is Type.BYTES:
        if avro.type == "fixed":
            return read_fixed(avro.size)
        if avro.type != "bytes":
            raise Unsupported(f"BYTES read from {avro.type}")
        return read_bytes
    if kind.is_primitive:
        reader = _PRIMITIVE_SOURCES.get(kind, {}).get(avro.type)
        if reader is None:
            raise Unsupported(f"{kind} read from {avro.type}")
        return reader
    if kind is Type.ARRAY:
        return _array_reader(mapping, schema, avro, named)
    if kind is Type.MAP:
        return _map_reader(mapping, schema, avro, named)
    if is_union_schema(schema):
        return _union_reader(mapping, schema, avro, named)
    return _struct_reader(mapping, schema, avro, named)


def _enum_reader(avro: AvroSchema) -> Reader:
    symbols = list(avro.symbols)

    def enum(data: bytes, pos: int) -> tuple[str, int]:
        index, pos = read_long(data, pos)
        return symbols[index], pos

    return enum


def _array_reader(mapping: AvroMapping, schema: Schema, avro: AvroSchema, named: Tuples) -> Reader:
    assert schema.value_schema is not None
    if avro.type != "array" or avro.element is None:
        raise DataError(f"Cannot read {avro.type} as an array")
    element = compile_binary_reader(mapping, schema.value_schema, avro.element, named)

    def array(data: bytes, pos: int) -> tuple[list[Any], int]:
        items: list[Any] = []
        count, pos = read_blocks(data, pos)
        while count:
            for _ in range(count):
                item, pos = element(data, pos)
                items.append(item)
            count, pos = read_blocks(data, pos)
        return items, pos

    return array


def _map_reader(mapping: AvroMapping, schema: Schema, avro: AvroSchema, named: Tuples) -> Reader:
    assert schema.key_schema is not None and schema.value_schema is not None
    if avro.type == "map" and avro.element is not None:
        values = compile_binary_reader(mapping, schema.value_schema, avro.element, named)

        def string_map(data: bytes, pos: int) -> tuple[dict[Any, Any], int]:
            out: dict[Any, Any] = {}
            count, pos = read_blocks(data, pos)
            while count:
                for _ in range(count):
                    key, pos = read_string(data, pos)
                    out[key], pos = values(data, pos)
                count, pos = read_blocks(data, pos)
            return out, pos

        return string_map
    entry = avro.element
    if avro.type != "array" or entry is None or entry.type != "record":
        raise Unsupported(f"a MAP read from {avro.type}")
    if sorted(f.name for f in entry.fields) != sorted((KEY_FIELD, VALUE_FIELD)):
        raise Unsupported(f"map entries {entry.full_name} with fields other than key and value")
    readers = {
        f.name: compile_binary_reader(
            mapping, schema.key_schema if f.name == KEY_FIELD else schema.value_schema, f.schema, named
        )
        for f in entry.fields
    }
    key_first = entry.fields[0].name == KEY_FIELD
    keys, values = readers[KEY_FIELD], readers[VALUE_FIELD]
    key_schema = schema.key_schema

    def entries(data: bytes, pos: int) -> tuple[dict[Any, Any], int]:
        out: dict[Any, Any] = {}
        count, pos = read_blocks(data, pos)
        while count:
            for _ in range(count):
                if key_first:
                    key, pos = keys(data, pos)
                    value, pos = values(data, pos)
                else:
                    value, pos = values(data, pos)
                    key, pos = keys(data, pos)
                try:
                    out[key] = value
                except TypeError as e:
                    raise DataError(f"Map keys of {key_schema} cannot be Python dict keys: {e}") from e
            count, pos = read_blocks(data, pos)
        return out, pos

    return entries


def _struct_reader(mapping: AvroMapping, schema: Schema, avro: AvroSchema, named: Tuples) -> Reader:
    if avro.type != "record":
        raise Unsupported(f"STRUCT read from {avro.type}")
    slots_by_name: dict[str, tuple[int, Schema]] = {}
    for f in schema.fields:
        name = mapping.scrub(f.name)
        if avro.field_named(name) is None:
            raise DataError(f"Avro record {avro.full_name} has no field {name}")
        slots_by_name[name] = (f.index, f.schema)
    plan: list[tuple[int, Reader]] = []
    for avro_field in avro.fields:
        slot = slots_by_name.get(avro_field.name)
        if slot is None:
            raise Unsupported(f"record field {avro_field.name} the Connect schema lacks")
        try:
            reader = compile_binary_reader(mapping, slot[1], avro_field.schema, named)
        except DataError:
            if is_plain(slot[1], avro_field.schema, reading=True):
                raise Unsupported(
                    f"field {avro_field.name}: the old decoder takes its value as read"
                ) from None
            raise
        plan.append((slot[0], reader))
    return record_reader(schema, plan)


def _union_reader(mapping: AvroMapping, schema: Schema, avro: AvroSchema, named: Tuples) -> Reader:
    """Confluent's Union struct: the field the old decoder would set for each branch, read directly."""
    if avro.type != "union":
        raise Unsupported("a Union struct read from a single type")
    by_name: dict[str, tuple[int, AvroSchema]] = {}
    by_kind: dict[str, tuple[int, AvroSchema]] = {}
    for branch in avro.branches:
        if branch.type == "null":
            continue
        field = schema.field(mapping.avro_union_member_field_name(branch))
        if field is None:
            raise DataError(
                f"Union struct {schema} has no field for branch {branch.full_name or branch.type}"
            )
        by_name[branch_name(branch)] = (field.index, branch)
        by_kind.setdefault(branch.type, (field.index, branch))
    # Per branch index: None for null, else the field set and its reader, or False when the old
    # decoder found no field for the branch's datum.
    table: list[tuple[int, Reader] | bool | None] = []
    for branch in avro.branches:
        if branch.type == "null":
            table.append(None)
            continue
        if named.tupled(avro, branch):
            entry = by_name.get(branch_name(branch))
        else:
            entry = None
            for kind in PYTHON_BRANCHES.get(_DATUM_TYPES[branch.type], ()):
                entry = by_kind.get(kind)
                if entry is not None:
                    break
        if entry is None:
            table.append(False)
            continue
        if entry[1] is not branch:
            raise Unsupported("a Union struct branch decoded into another branch's field")
        field_schema = schema.fields[entry[0]].schema
        table.append((entry[0], compile_binary_reader(mapping, field_schema, branch, named)))
    width = len(schema.fields)
    optional = schema.optional

    def union(data: bytes, pos: int) -> tuple[Struct | None, int]:
        index, pos = read_long(data, pos)
        found = table[index]
        if found is None:
            if optional:
                return None, pos
            raise DataError("Found null value for non-optional schema")
        if found is False:
            raise DataError("Did not find matching union field for data")
        assert not isinstance(found, bool)
        slots: list[Any] = [None] * width
        slots[found[0]], pos = found[1](data, pos)
        return Struct.unchecked(schema, slots), pos

    return union


def payload_reader(
    mapping: AvroMapping, schema: Schema, avro: AvroSchema, named: Tuples
) -> Callable[[memoryview], Any] | None:
    """The function from an Avro payload to its Connect value, or None for a pair left to fastavro."""
    try:
        read = compile_binary_reader(mapping, schema, avro, named)
    except Unsupported as e:
        logger.debug("Avro values of %s read with fastavro: %s", avro.full_name or avro.type, e)
        return None

    def decode(payload: memoryview) -> Any:
        data = bytes(payload)
        try:
            value, pos = read(data, 0)
        except struct.error as e:
            raise EOFError(f"Avro data ends before the value does: {e}") from e
        if pos != len(data):
            if pos > len(data):
                raise EOFError("Avro data ends before the value does")
            raise DataError(f"{len(data) - pos} bytes left after the Avro value")
        return value

    return decode
