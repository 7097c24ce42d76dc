"""Connect values -> Protobuf messages, by the rules of Confluent's ``ProtobufData.fromConnectData``.

`encoder` compiles, once per (message type, Connect schema), a function per field, so a record costs
one message construction and no schema lookups. Null values and empty arrays leave the field unset
(a null with a default is written as the default unless ``ignore.default.for.nullables``); a union
struct sets the first of its non-null members.
"""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Callable
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from kconnect.data.logical import (
    EPOCH_DATE,
    MILLIS_PER_DAY,
    Date,
    Decimal,
    Time,
    Timestamp,
    to_twos_complement,
)
from kconnect.data.schema import Schema, Type
from kconnect.data.struct import Struct
from kconnect.errors import DataError

from kconnect_schema_registry.protobuf import params as p
from kconnect_schema_registry.protobuf.codec_base import Convert, field_by_name, is_map_entry, message_class
from kconnect_schema_registry.protobuf.from_connect import is_union, scrub_name
from kconnect_schema_registry.protobuf.options import ProtobufOptions
from kconnect_schema_registry.protobuf.schema import message_type_of

FD = FieldDescriptor
_UINT32_TYPES = (FD.TYPE_UINT32, FD.TYPE_FIXED32)
_UINT64_TYPES = (FD.TYPE_UINT64, FD.TYPE_FIXED64)


class _Encoders:
    def __init__(self, options: ProtobufOptions) -> None:
        self.options = options

    def name(self, name: str) -> str:
        return scrub_name(name) if self.options.scrub_invalid_names else name

    def struct(self, message: Descriptor, schema: Schema) -> Callable[[Any], Message]:
        """A function Struct -> message of type `message`."""
        cls = message_class(message)
        use_defaults = not self.options.ignore_default_for_nullables
        # (index, default, field name or None for a union, convert): a union's convert names its member.
        steps: list[tuple[int, Any, str | None, Convert]] = []
        for connect_field in schema.fields:
            field_schema = connect_field.schema
            default = field_schema.default_value if use_defaults else None
            if field_schema.type is Type.STRUCT and is_union(field_schema):
                steps.append((connect_field.index, default, None, self.union(message, field_schema)))
            else:
                field = field_by_name(message, self.name(connect_field.name))
                steps.append((connect_field.index, default, field.name, self.value(field_schema, field)))

        def encode(struct: Any) -> Message:
            if not isinstance(struct, Struct):
                raise DataError(f"Invalid type for STRUCT: {type(struct).__name__}")
            if struct.schema is not schema and struct.schema != schema:
                raise DataError("Mismatching struct schema")
            values = struct.values()
            kwargs = {}
            for index, default, name, convert in steps:
                value = values[index]
                if value is None:
                    if default is None:
                        continue
                    value = default
                if name is None:
                    member, converted = convert(value)
                    kwargs[member] = converted
                    continue
                converted = convert(value)
                if converted is not None:
                    kwargs[name] = converted
            return cls(**kwargs)

        return encode

    def union(self, message: Descriptor, union: Schema) -> Callable[[Any], tuple[str, Any]]:
        members = []
        for member in union.fields:
            field = field_by_name(message, self.name(member.name))
            members.append((member.index, field.name, self.value(member.schema, field)))

        def encode(struct: Any) -> tuple[str, Any]:
            values = struct.values()
            for index, name, convert in members:
                if values[index] is not None:
                    return name, convert(values[index])
            raise DataError("Cannot find non-null field")

        return encode

    def value(self, schema: Schema, field: FieldDescriptor) -> Convert:
        """A function Connect value -> value of `field` (a list for repeated fields)."""
        if schema.type is Type.ARRAY:
            assert schema.value_schema is not None
            element = self.single(schema.value_schema, field)

            def array(values: Any) -> Any:
                if not values:
                    return None
                if any(v is None for v in values):
                    raise DataError(f"Null element in array field {field.name}")
                return [element(v) for v in values]

            return array
        if schema.type is Type.MAP:
            return self.map(schema, field)
        return self.single(schema, field)

    def map(self, schema: Schema, field: FieldDescriptor) -> Convert:
        assert schema.key_schema is not None and schema.value_schema is not None
        entry = field.message_type
        if entry is None:
            raise DataError(f"Field {field.name} is not a map")
        key = self.single(schema.key_schema, field_by_name(entry, p.KEY_FIELD))
        value = self.single(schema.value_schema, field_by_name(entry, p.VALUE_FIELD))
        if is_map_entry(field):
            return lambda m: {key(k): value(v) for k, v in m.items()}
        cls = message_class(entry)

        def entries(m: Any) -> Any:
            out = []
            for k, v in m.items():
                kwargs = {}
                if k is not None:
                    kwargs[p.KEY_FIELD] = key(k)
                if v is not None:
                    kwargs[p.VALUE_FIELD] = value(v)
                out.append(cls(**kwargs))
            return out

        return entries

    def single(self, schema: Schema, field: FieldDescriptor) -> Convert:
        """A function for one (not repeated) value of `schema` into `field`."""
        name = schema.name
        if name == Decimal.LOGICAL_NAME:
            return _decimal_to_message(message_class(message_type_of(field)))
        if name == Date.LOGICAL_NAME:
            return _date_to_message(schema, message_class(message_type_of(field)))
        if name == Time.LOGICAL_NAME:
            return _time_to_message(schema, message_class(message_type_of(field)))
        if name == Timestamp.LOGICAL_NAME:
            return _timestamp_to_message(schema, message_class(message_type_of(field)))
        if schema.type is Type.STRUCT:
            return self.struct(message_type_of(field), schema)
        scalar = self.scalar(schema, field)
        if field.type == FD.TYPE_MESSAGE:  # a google.protobuf.*Value wrapper
            wrapper = message_class(message_type_of(field))
            return lambda v: wrapper(value=scalar(v))
        return scalar

    def scalar(self, schema: Schema, field: FieldDescriptor) -> Convert:
        parameters = schema.parameters or {}
        kind = schema.type
        target = (
            message_type_of(field).fields_by_name["value"].type
            if field.type == FD.TYPE_MESSAGE
            else field.type
        )
        if kind is Type.STRING and field.type == FD.TYPE_ENUM:
            prefix = (
                p.GENERALIZED_TYPE_ENUM if self.options.generalized_sum_type_support else p.TYPE_ENUM
            ) + "."
            numbers = {k[len(prefix) :]: int(v) for k, v in parameters.items() if k.startswith(prefix)}

            def enum_symbol(v: str) -> int:
                number = numbers.get(v)
                if number is None:
                    raise DataError(f"Unknown enum symbol {v!r} for field {field.name}")
                return number

            return enum_symbol
        if kind in (Type.INT8, Type.INT16, Type.INT32, Type.INT64):
            if target in _UINT32_TYPES:
                return lambda v: int(v) & 0xFFFFFFFF
            if target in _UINT64_TYPES:
                return lambda v: int(v) & 0xFFFFFFFFFFFFFFFF
            return int
        if kind in (Type.FLOAT32, Type.FLOAT64):
            return float
        if kind is Type.BYTES:
            return bytes
        if kind is Type.BOOLEAN:
            return _checked(bool, "BOOLEAN")
        return _checked(str, "STRING")


def _checked(cls: type, kind: str) -> Convert:
    def check(v: Any) -> Any:
        if not isinstance(v, cls):
            raise DataError(f"Invalid type for {kind}: {type(v).__name__}")
        return v

    return check


def _decimal_to_message(cls: type[Message]) -> Convert:
    def convert(value: Any) -> Message:
        if not isinstance(value, decimal.Decimal):
            raise DataError(f"Invalid type for Decimal, expected Decimal but was {type(value).__name__}")
        sign, digits, exponent = value.as_tuple()
        if not isinstance(exponent, int):
            raise DataError(f"Decimal value {value} is not a finite number")
        unscaled = int("".join(map(str, digits)) or "0")
        # Java's BigDecimal.precision(): the digits of the unscaled value, 1 for zero.
        precision = len(str(unscaled))
        return cls(
            value=to_twos_complement(-unscaled if sign else unscaled), precision=precision, scale=-exponent
        )

    return convert


def _date_to_message(schema: Schema, cls: type[Message]) -> Convert:
    def convert(value: Any) -> Message:
        day = EPOCH_DATE + datetime.timedelta(days=Date.from_logical(schema, value))
        return cls(year=day.year, month=day.month, day=day.day)

    return convert


def _time_to_message(schema: Schema, cls: type[Message]) -> Convert:
    def convert(value: Any) -> Message:
        millis = Time.from_logical(schema, value) % MILLIS_PER_DAY
        seconds, rest = divmod(millis, 1000)
        return cls(
            hours=seconds // 3600, minutes=seconds // 60 % 60, seconds=seconds % 60, nanos=rest * 1_000_000
        )

    return convert


def _timestamp_to_message(schema: Schema, cls: type[Message]) -> Convert:
    def convert(value: Any) -> Message:
        seconds, millis = divmod(Timestamp.from_logical(schema, value), 1000)
        return cls(seconds=seconds, nanos=millis * 1_000_000)

    return convert


def encoder(message: Descriptor, schema: Schema, options: ProtobufOptions) -> Callable[[Any], Message]:
    """The function Connect value -> message of type `message` for values of `schema`."""
    encoders = _Encoders(options)
    if schema.type is Type.STRUCT:
        return encoders.struct(message, schema)
    cls = message_class(message)
    scalar = encoders.scalar(schema, message.fields_by_name["value"])
    return lambda v: cls(value=scalar(v))
