"""Connect values straight to Avro binary, compiled once per (Connect schema, writer Avro schema) pair.

`compile_binary_writer` gives the bytes fastavro's schemaless writer gives for the datum
`values.compile_encoder` makes of a value, without building the datum: Struct fields by index,
logical values through Connect's logical module, optional values as a union index then the branch,
non-string-keyed maps as arrays of ``MapEntry`` records, Confluent's Union structs as the index of
the branch named after the set field. `values` and fastavro stay the reference (a unit test compares
the bytes) and the fallback: a pair this module does not handle raises `Unsupported` at compile
time, and the format keeps fastavro's path for it. Those are writer schemas Confluent's mapping does
not produce: unions with several non-null branches for a plain field, a Connect type written to an
unrelated Avro type, record fields the Connect schema lacks that are not nullable.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kconnect.data import logical
from kconnect.data.schema import Schema, Type
from kconnect.data.struct import Struct
from kconnect.errors import DataError

from kconnect_schema_registry.avro.binary import (
    Unsupported,
    Writer,
    union_branch_check,
    write_boolean,
    write_bytes,
    write_double,
    write_float,
    write_long,
    write_string,
)
from kconnect_schema_registry.avro.binary_inline import record_payload, record_writer
from kconnect_schema_registry.avro.branches import branch_name, is_plain, underlying
from kconnect_schema_registry.avro.mapping import AvroMapping
from kconnect_schema_registry.avro.names import KEY_FIELD, VALUE_FIELD, is_union_schema, string_keyed
from kconnect_schema_registry.avro.schema import AvroSchema, parse

logger = logging.getLogger(__name__)

_INT_TYPES = frozenset({Type.INT8, Type.INT16, Type.INT32, Type.INT64})
_PRIMITIVE_WRITERS: dict[str, Writer] = {
    "int": write_long,
    "long": write_long,
    "float": write_float,
    "double": write_double,
    "boolean": write_boolean,
    "string": write_string,
}
# The Avro types each Connect primitive may be written as here (fastavro converts the value).
_PRIMITIVE_TARGETS: dict[Type, frozenset[str]] = {
    **dict.fromkeys(_INT_TYPES, frozenset({"int", "long", "float", "double"})),
    Type.FLOAT32: frozenset({"int", "long", "float", "double"}),
    Type.FLOAT64: frozenset({"int", "long", "float", "double"}),
    Type.BOOLEAN: frozenset({"boolean"}),
    Type.STRING: frozenset({"string", "enum"}),
}


def compile_binary_writer(mapping: AvroMapping, schema: Schema, avro: AvroSchema) -> Writer:
    """A writer of Connect values of `schema` as Avro binary of `avro` (raises `Unsupported`)."""
    if avro.type == "union" and not is_union_schema(schema):
        return _optional_writer(mapping, schema, avro)
    base = _field_writer(mapping, schema, avro)
    optional = schema.optional

    def write(out: bytearray, value: Any) -> None:
        if value is None:
            if optional:  # only a Union struct gets here: its writer writes the null branch
                base(out, None)
                return
            raise DataError("Found null value for non-optional schema")
        base(out, value)

    return write


def _field_writer(mapping: AvroMapping, schema: Schema, avro: AvroSchema) -> Writer:
    """A writer for a value that is not None (a struct field checks None itself)."""
    if avro.type == "union" and not is_union_schema(schema):
        return _optional_writer(mapping, schema, avro)
    if schema.optional and not is_union_schema(schema):
        underlying(mapping, schema, avro)  # raises DataError as values.compile_encoder does
    return _base_writer(mapping, schema, avro)


def _optional_writer(mapping: AvroMapping, schema: Schema, avro: AvroSchema) -> Writer:
    """``[null, X]`` (either order): the null branch for None, else X's index and X."""
    if len([b for b in avro.branches if b.type != "null"]) != 1:
        raise Unsupported("a union of several non-null branches for a plain value")
    target = underlying(mapping, schema, avro)
    if target is avro:
        raise Unsupported("no branch of the union for the value")
    index = next(i for i, b in enumerate(avro.branches) if b is target)
    nulls = [i for i, b in enumerate(avro.branches) if b.type == "null"]
    null_index = nulls[0] if nulls else None
    base = _base_writer(mapping, schema, target)
    optional = schema.optional
    datum_of = _datum_of(schema, target)
    check = None if datum_of is None else union_branch_check(target)

    def write(out: bytearray, value: Any) -> None:
        if value is None:
            if not optional:
                raise DataError("Found null value for non-optional schema")
            if null_index is None:
                raise ValueError(f"None do not match {avro.text()}")
            out.append(null_index << 1)
            return
        if check is not None and datum_of is not None and not check(datum_of(value)):
            raise ValueError(f"{value!r} (type {type(value)}) do not match {avro.text()}")
        write_long(out, index)
        base(out, value)

    return write


def _datum_of(schema: Schema, target: AvroSchema) -> Any:
    """How fastavro's datum follows from the value, for the branch check (None: not checked)."""
    if schema.name in logical.LOGICAL_TYPES:
        return None
    if schema.type is Type.BYTES:
        return bytes
    return (lambda v: v) if schema.type in _PRIMITIVE_TARGETS else None


def _logical_writer(schema: Schema, target: AvroSchema) -> Writer | None:
    name = schema.name
    kind = target.type
    if name == logical.Decimal.LOGICAL_NAME:
        to_bytes = logical.Decimal.from_logical
        if kind == "bytes":
            return lambda out, v: write_bytes(out, to_bytes(schema, v))
        if kind != "fixed":
            raise Unsupported(f"a Decimal written as {kind}")
        size = target.size

        def fixed_decimal(out: bytearray, value: Any) -> None:
            raw = to_bytes(schema, value)
            if len(raw) > size:
                raise DataError(
                    f"Unscaled value byte array length {len(raw)} is greater than fixed size {size}"
                )
            out += (b"\xff" if raw[0] & 0x80 else b"\x00") * (size - len(raw)) + raw

        return fixed_decimal
    for logical_type in (logical.Date, logical.Time, logical.Timestamp):
        if name == logical_type.LOGICAL_NAME:
            if kind not in ("int", "long"):
                raise Unsupported(f"{name} written as {kind}")
            convert = logical_type.from_logical
            return lambda out, v: write_long(out, convert(schema, v))  # type: ignore[arg-type]
    return None


def _base_writer(mapping: AvroMapping, schema: Schema, target: AvroSchema) -> Writer:
    """The writer of a non-null value of `schema` as the non-union `target` (Union structs aside)."""
    if target.type == "union" and not is_union_schema(schema):
        raise Unsupported("a required value written as a union")
    found = _logical_writer(schema, target)
    if found is not None:
        return found
    kind = schema.type
    if kind is Type.BYTES:
        return _bytes_writer(target)
    if kind.is_primitive:
        if target.type not in _PRIMITIVE_TARGETS.get(kind, frozenset()):
            raise Unsupported(f"{kind} written as {target.type}")
        if target.type == "enum":
            return _enum_writer(target)
        return _PRIMITIVE_WRITERS[target.type]
    if kind is Type.ARRAY:
        return _array_writer(mapping, schema, target)
    if kind is Type.MAP:
        return _map_writer(mapping, schema, target)
    if is_union_schema(schema):
        return _union_writer(mapping, schema, target)
    return _struct_writer(mapping, schema, target)


def _bytes_writer(target: AvroSchema) -> Writer:
    if target.type == "bytes":
        return lambda out, v: write_bytes(out, bytes(v))
    if target.type != "fixed":
        raise Unsupported(f"BYTES written as {target.type}")
    size = target.size

    def fixed(out: bytearray, value: Any) -> None:
        data = bytes(value)
        if len(data) != size:
            raise ValueError(f"data of length {len(data)} does not match schema size: {target.text()}")
        out += data

    return fixed


def _enum_writer(target: AvroSchema) -> Writer:
    indexes = {symbol: i for i, symbol in enumerate(target.symbols)}

    def enum(out: bytearray, value: Any) -> None:
        index = indexes.get(value) if isinstance(value, str) else None
        if index is None:
            raise ValueError(f"{value!r} is not in list")
        write_long(out, index)

    return enum


def _items(value: Any) -> Sequence[Any]:
    return value if type(value) is list or type(value) is tuple else list(value)


def _array_writer(mapping: AvroMapping, schema: Schema, target: AvroSchema) -> Writer:
    assert schema.value_schema is not None
    if target.type != "array" or target.element is None:
        raise Unsupported(f"ARRAY written as {target.type}")
    element = compile_binary_writer(mapping, schema.value_schema, target.element)

    def array(out: bytearray, value: Any) -> None:
        items = _items(value)
        if items:
            write_long(out, len(items))
            for item in items:
                element(out, item)
        out.append(0)

    return array


def _map_writer(mapping: AvroMapping, schema: Schema, target: AvroSchema) -> Writer:
    assert schema.key_schema is not None and schema.value_schema is not None
    if string_keyed(schema, mapping.settings.allow_optional_map_keys):
        if target.type != "map" or target.element is None:
            raise Unsupported(f"a string-keyed MAP written as {target.type}")
        values = compile_binary_writer(mapping, schema.value_schema, target.element)

        def string_map(out: bytearray, value: Mapping[Any, Any]) -> None:
            if value:
                write_long(out, len(value))
                for k, v in value.items():
                    write_string(out, k)
                    values(out, v)
            out.append(0)

        return string_map
    entry = target.element
    if target.type != "array" or entry is None or entry.type != "record":
        raise Unsupported(f"a MAP written as {target.type}")
    if sorted(f.name for f in entry.fields) != sorted((KEY_FIELD, VALUE_FIELD)):
        raise Unsupported(f"map entries {entry.full_name} with fields other than key and value")
    writers = {
        f.name: compile_binary_writer(
            mapping, schema.key_schema if f.name == KEY_FIELD else schema.value_schema, f.schema
        )
        for f in entry.fields
    }
    key_first = entry.fields[0].name == KEY_FIELD
    keys, values = writers[KEY_FIELD], writers[VALUE_FIELD]

    def entries(out: bytearray, value: Mapping[Any, Any]) -> None:
        if value:
            write_long(out, len(value))
            for k, v in value.items():
                if key_first:
                    keys(out, k)
                    values(out, v)
                else:
                    values(out, v)
                    keys(out, k)
        out.append(0)

    return entries


def _struct_writer(mapping: AvroMapping, schema: Schema, target: AvroSchema) -> Writer:
    return record_writer(schema, _struct_plan(mapping, schema, target))


def _struct_plan(
    mapping: AvroMapping, schema: Schema, target: AvroSchema
) -> list[tuple[int, Any, bool, str, Writer]]:
    if target.type != "record":
        raise Unsupported(f"STRUCT written as {target.type}")
    by_name = {}
    for f in schema.fields:
        name = mapping.scrub(f.name)
        if target.field_named(name) is None:
            raise DataError(f"Avro record {target.full_name} has no field {name}")
        by_name[name] = f
    ignore_defaults = mapping.settings.ignore_default_for_nullables
    # Per Avro field, in Avro's order: slot, default, optional, name, writer; slot -1 is a field
    # the Connect schema lacks, written as fastavro writes a missing key: null.
    plan: list[tuple[int, Any, bool, str, Writer]] = []
    for avro_field in target.fields:
        connect_field = by_name.get(avro_field.name)
        if connect_field is None:
            nulls = [i for i, b in enumerate(avro_field.schema.branches) if b.type == "null"]
            if not nulls:
                raise Unsupported(f"record field {avro_field.name} the Connect schema lacks")
            plan.append((-1, None, True, avro_field.name, _null_writer(nulls[0])))
            continue
        try:
            writer = _field_writer(mapping, connect_field.schema, avro_field.schema)
        except DataError:
            if is_plain(connect_field.schema, avro_field.schema, reading=False):
                raise Unsupported(f"field {connect_field.name}: fastavro writes its plain value") from None
            raise
        default = None if ignore_defaults else connect_field.schema.default_value
        plan.append((connect_field.index, default, connect_field.schema.optional, avro_field.name, writer))

    return plan


def _null_writer(index: int) -> Writer:
    def null(out: bytearray, _value: Any) -> None:
        out.append(index << 1)

    return null


def _union_writer(mapping: AvroMapping, schema: Schema, target: AvroSchema) -> Writer:
    """Confluent's Union struct: the index of the branch of the first set field, then its value."""
    if target.type != "union":
        raise Unsupported("a Union struct written as a single type")
    names = [branch_name(b) for b in target.branches]
    plan: list[tuple[int, int, Writer]] = []
    for f in schema.fields:
        wanted = mapping.union_member_field_name(f.schema)
        for branch in target.branches:
            if branch.type != "null" and mapping.avro_union_member_field_name(branch) == wanted:
                writer = _base_writer(mapping, f.schema, branch)
                plan.append((f.index, names.index(branch_name(branch)), writer))
                break
        else:
            raise DataError(f"Union member {f.name} has no branch in {target.text()}")
    nulls = [i for i, b in enumerate(target.branches) if b.type == "null"]
    null_index = nulls[0] if nulls else None
    defaults = [
        None if mapping.settings.ignore_default_for_nullables else f.schema.default_value
        for f in schema.fields
    ]
    optional = schema.optional

    def union(out: bytearray, value: Any) -> None:
        if value is not None:
            if not isinstance(value, Struct):
                raise DataError(f"Invalid type for STRUCT: {type(value).__name__}")
            slots = value.values()
            for index, branch, writer in plan:
                item = slots[index]
                if item is None:
                    item = defaults[index]
                if item is not None:
                    write_long(out, branch)
                    writer(out, item)
                    return
            if not optional:
                raise DataError("Found null value for non-optional schema")
        if null_index is None:
            raise ValueError(f"None do not match {target.text()}")
        out.append(null_index << 1)

    return union


def payload_writer(
    mapping: AvroMapping, schema: Schema, avro: AvroSchema, header: bytes = b""
) -> Callable[[Any], bytes] | None:
    """The function from a Connect value to `header` + its Avro payload, or None for a pair left to
    fastavro; `avro` is the writer schema as the mapping built it (or as parsed from the registry)."""
    # The registered text defines a named type once: a second, different MapEntry (say) is a
    # reference to the first. Compile against that, as fastavro writes with it.
    registered = parse(avro.text())
    try:
        if registered.type == "record" and schema.type is Type.STRUCT and not schema.optional:
            if not is_union_schema(schema):  # the usual value, a record: one generated function
                return record_payload(schema, _struct_plan(mapping, schema, registered), header)
        if registered.type != "union" and not schema.optional:
            write = _field_writer(mapping, schema, registered)  # a required value: None checked below
        else:
            write = compile_binary_writer(mapping, schema, registered)
    except Unsupported as e:
        logger.debug("Avro values of %s written with fastavro: %s", avro.full_name or avro.type, e)
        return None

    def encode(value: Any) -> bytes:
        if value is None and not schema.optional:
            raise DataError("Found null value for non-optional schema")
        out = bytearray(header)
        write(out, value)
        return bytes(out)

    return encode
