"""Connect values <-> the Python data fastavro writes and reads, compiled once per schema pair.

`compile_encoder(connect, avro)` returns a function turning a Connect value into fastavro's datum
(Structs to dicts by Avro field name, logical values to their primitives, non-string-keyed maps to
lists of ``{"key", "value"}`` records, union structs to ``(branch name, datum)`` tuples);
`compile_decoder(connect, avro)` the way back (named types may come as fastavro's ``(name, value)``
tuples, read with ``return_named_type``). Plain fields (primitives without a logical type) pass as
they are. The schema walk happens here once; the per-record work is the closures only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kconnect.data import logical
from kconnect.data.schema import Schema, Type
from kconnect.data.struct import Struct
from kconnect.errors import DataError

from kconnect_schema_registry.avro.branches import PYTHON_BRANCHES, branch_name, is_plain, underlying
from kconnect_schema_registry.avro.mapping import AvroMapping
from kconnect_schema_registry.avro.names import (
    KEY_FIELD,
    VALUE_FIELD,
    is_union_schema,
    string_keyed,
)
from kconnect_schema_registry.avro.schema import AvroSchema

Codec = Callable[[Any], Any]


def _identity(value: Any) -> Any:
    return value


# --- Connect -> fastavro ---------------------------------------------------------------------------


def compile_encoder(mapping: AvroMapping, schema: Schema, avro: AvroSchema) -> Codec:
    """A function from a Connect value of `schema` to fastavro's datum for `avro`."""
    target = underlying(mapping, schema, avro)
    base = _base_encoder(mapping, schema, target)
    optional = schema.optional

    def encode(value: Any) -> Any:
        if value is None:
            if optional:
                return None
            raise DataError("Found null value for non-optional schema")
        return base(value)

    return encode


def _logical_encoder(schema: Schema, target: AvroSchema) -> Codec | None:
    name = schema.name
    if name == logical.Decimal.LOGICAL_NAME:
        if target.type == "fixed":
            size = target.size

            def fixed_decimal(value: Any) -> Any:
                raw = logical.Decimal.from_logical(schema, value)
                if len(raw) > size:
                    raise DataError(
                        f"Unscaled value byte array length {len(raw)} is greater than fixed size {size}"
                    )
                return (b"\xff" if raw[0] & 0x80 else b"\x00") * (size - len(raw)) + raw

            return fixed_decimal
        return lambda value: logical.Decimal.from_logical(schema, value)
    if name == logical.Date.LOGICAL_NAME:
        return lambda value: logical.Date.from_logical(schema, value)
    if name == logical.Time.LOGICAL_NAME:
        return lambda value: logical.Time.from_logical(schema, value)
    if name == logical.Timestamp.LOGICAL_NAME:
        return lambda value: logical.Timestamp.from_logical(schema, value)
    return None


def _base_encoder(mapping: AvroMapping, schema: Schema, target: AvroSchema) -> Codec:
    kind = schema.type
    logical_encoder = _logical_encoder(schema, target)
    if logical_encoder is not None:
        return logical_encoder
    if kind is Type.BYTES:
        return bytes
    if kind.is_primitive:
        return _identity
    if kind is Type.ARRAY:
        assert schema.value_schema is not None and target.element is not None
        element = compile_encoder(mapping, schema.value_schema, target.element)
        return lambda value: [element(v) for v in value]
    if kind is Type.MAP:
        assert (
            schema.key_schema is not None and schema.value_schema is not None and target.element is not None
        )
        if string_keyed(schema, mapping.settings.allow_optional_map_keys):
            values = compile_encoder(mapping, schema.value_schema, target.element)
            return lambda value: {k: values(v) for k, v in value.items()}
        entry = target.element
        key_field, value_field = entry.field_named(KEY_FIELD), entry.field_named(VALUE_FIELD)
        assert key_field is not None and value_field is not None
        keys = compile_encoder(mapping, schema.key_schema, key_field.schema)
        values = compile_encoder(mapping, schema.value_schema, value_field.schema)
        return lambda value: [{KEY_FIELD: keys(k), VALUE_FIELD: values(v)} for k, v in value.items()]
    if is_union_schema(schema):
        return _union_encoder(mapping, schema, target)
    return _struct_encoder(mapping, schema, target)


def _struct_encoder(mapping: AvroMapping, schema: Schema, target: AvroSchema) -> Codec:
    # Per field: slot, Avro name, default, encoder (None: the value as is), optional.
    plan: list[tuple[int, str, Any, Codec | None, bool]] = []
    for f in schema.fields:
        name = mapping.scrub(f.name)
        avro_field = target.field_named(name)
        if avro_field is None:
            raise DataError(f"Avro record {target.full_name} has no field {name}")
        default = None if mapping.settings.ignore_default_for_nullables else f.schema.default_value
        encoder = (
            None
            if is_plain(f.schema, avro_field.schema, reading=False)
            else compile_encoder(mapping, f.schema, avro_field.schema)
        )
        plan.append((f.index, name, default, encoder, f.schema.optional))

    def encode(value: Any) -> dict[str, Any]:
        if not isinstance(value, Struct):
            raise DataError(f"Invalid type for STRUCT: {type(value).__name__}")
        if value.schema is not schema and value.schema != schema:
            raise DataError("Mismatching struct schema")
        slots = value.values()
        out: dict[str, Any] = {}
        for index, name, default, encoder, optional in plan:
            item = slots[index]
            if item is None:
                item = default
                if item is None:
                    if not optional:
                        raise DataError(f"Found null value for non-optional schema (field {name})")
                    out[name] = None
                    continue
            out[name] = item if encoder is None else encoder(item)
        return out

    return encode


def _union_encoder(mapping: AvroMapping, schema: Schema, target: AvroSchema) -> Codec:
    branches = [b for b in target.branches] if target.type == "union" else [target]
    plan: list[tuple[int, str, Codec]] = []
    for f in schema.fields:
        member = f.schema
        wanted = mapping.union_member_field_name(member)
        for branch in branches:
            if branch.type != "null" and mapping.avro_union_member_field_name(branch) == wanted:
                plan.append((f.index, branch_name(branch), _base_encoder(mapping, member, branch)))
                break
        else:
            raise DataError(f"Union member {f.name} has no branch in {target.text()}")
    ignore_defaults = mapping.settings.ignore_default_for_nullables
    field_defaults = [f.schema.default_value for f in schema.fields]

    def encode(value: Any) -> Any:
        if not isinstance(value, Struct):
            raise DataError(f"Invalid type for STRUCT: {type(value).__name__}")
        slots = value.values()
        for index, branch, encoder in plan:
            item = slots[index]
            if item is None and not ignore_defaults:
                item = field_defaults[index]
            if item is not None:
                return (branch, encoder(item))
        if not schema.optional:
            raise DataError("Found null value for non-optional schema")
        return None

    return encode


# --- fastavro -> Connect ---------------------------------------------------------------------------


def compile_decoder(mapping: AvroMapping, schema: Schema, avro: AvroSchema) -> Codec:
    """A function from fastavro's datum (named types possibly as ``(name, value)``) to the Connect value."""
    if avro.type == "union" and not is_union_schema(schema):
        members = [b for b in avro.branches if b.type != "null"]
        if len(members) != 1:
            raise DataError(f"Cannot read union {avro.text()} as {schema}")
        inner = _base_decoder(mapping, schema, members[0])

        def optional(value: Any) -> Any:
            if value is None:
                return None
            if type(value) is tuple:
                value = value[1]
            return inner(value)

        return optional
    base = _base_decoder(mapping, schema, avro)

    def decode(value: Any) -> Any:
        if value is None:
            if schema.optional:
                return None
            raise DataError("Found null value for non-optional schema")
        return base(value)

    return decode


def _base_decoder(mapping: AvroMapping, schema: Schema, avro: AvroSchema) -> Codec:
    if avro.type == "union" and not is_union_schema(schema):
        return compile_decoder(mapping, schema, avro)
    kind = schema.type
    name = schema.name
    if name == logical.Decimal.LOGICAL_NAME:
        return lambda value: logical.Decimal.to_logical(schema, bytes(value))
    if name == logical.Date.LOGICAL_NAME:
        return lambda value: logical.Date.to_logical(schema, value)
    if name == logical.Time.LOGICAL_NAME:
        return lambda value: logical.Time.to_logical(schema, value)
    if name == logical.Timestamp.LOGICAL_NAME:
        return lambda value: logical.Timestamp.to_logical(schema, value)
    if kind in (Type.INT8, Type.INT16):
        bits = 8 if kind is Type.INT8 else 16
        half = 1 << (bits - 1)
        # Java's byteValue()/shortValue(): the low bits, sign-extended.
        return lambda value: ((value + half) % (1 << bits)) - half
    if kind is Type.STRING:
        return _unnamed if avro.type == "enum" else _identity
    if kind is Type.BYTES:
        return _unnamed if avro.type == "fixed" else _identity
    if kind.is_primitive:
        return _identity
    if kind is Type.ARRAY:
        assert schema.value_schema is not None and avro.element is not None
        if avro.type != "array":
            raise DataError(f"Cannot read {avro.type} as an array")
        element = compile_decoder(mapping, schema.value_schema, avro.element)
        return lambda value: [element(v) for v in value]
    if kind is Type.MAP:
        assert schema.key_schema is not None and schema.value_schema is not None and avro.element is not None
        if avro.type == "map":
            values = compile_decoder(mapping, schema.value_schema, avro.element)
            return lambda value: {k: values(v) for k, v in value.items()}
        entry = avro.element
        key_field, value_field = entry.field_named(KEY_FIELD), entry.field_named(VALUE_FIELD)
        assert key_field is not None and value_field is not None
        keys = compile_decoder(mapping, schema.key_schema, key_field.schema)
        values = compile_decoder(mapping, schema.value_schema, value_field.schema)

        def entries(value: Any) -> dict[Any, Any]:
            try:
                return {keys(e[KEY_FIELD]): values(e[VALUE_FIELD]) for e in value}
            except TypeError as e:
                raise DataError(f"Map keys of {schema.key_schema} cannot be Python dict keys: {e}") from e

        return entries
    if is_union_schema(schema):
        return _union_decoder(mapping, schema, avro)
    return _struct_decoder(mapping, schema, avro)


def _unnamed(value: Any) -> Any:
    return value[1] if type(value) is tuple else value


def _struct_decoder(mapping: AvroMapping, schema: Schema, avro: AvroSchema) -> Codec:
    plan: list[tuple[str, Codec | None]] = []
    for f in schema.fields:
        name = mapping.scrub(f.name)
        avro_field = avro.field_named(name)
        if avro_field is None:
            raise DataError(f"Avro record {avro.full_name} has no field {name}")
        plain = is_plain(f.schema, avro_field.schema, reading=True)
        plan.append((name, None if plain else compile_decoder(mapping, f.schema, avro_field.schema)))
    unchecked = Struct.unchecked

    def decode(value: Any) -> Struct:
        if type(value) is tuple:
            value = value[1]
        return unchecked(schema, [value[name] if dec is None else dec(value[name]) for name, dec in plan])

    return decode


def _union_decoder(mapping: AvroMapping, schema: Schema, avro: AvroSchema) -> Codec:
    branches = [b for b in avro.branches if b.type != "null"] if avro.type == "union" else [avro]
    by_name: dict[str, tuple[int, Codec]] = {}
    by_kind: dict[str, tuple[int, Codec]] = {}
    for branch in branches:
        field = schema.field(mapping.avro_union_member_field_name(branch))
        if field is None:
            raise DataError(f"Union struct {schema} has no field for branch {branch_name(branch)}")
        decoder = compile_decoder(mapping, field.schema, branch)
        entry = (field.index, decoder)
        by_name[branch_name(branch)] = entry  # tuples name named types, or any type (reader.py)
        by_kind.setdefault(branch.type, entry)
    width = len(schema.fields)

    def decode(value: Any) -> Struct:
        if type(value) is tuple:
            found = by_name.get(value[0])
            datum = value[1]
        else:
            found = None
            datum = value
            for kind in PYTHON_BRANCHES.get(type(value), ()):
                found = by_kind.get(kind)
                if found is not None:
                    break
        if found is None:
            raise DataError("Did not find matching union field for data")
        slots: list[Any] = [None] * width
        slots[found[0]] = found[1](datum)
        return Struct.unchecked(schema, slots)

    return decode
