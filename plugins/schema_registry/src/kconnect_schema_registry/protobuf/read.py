"""Protobuf messages -> Connect values, by the rules of Confluent's ``ProtobufData.toConnectData``.

`decoder` compiles, once per (message type, Connect schema), a function per field. A scalar or
repeated field is always read (proto3 has no "missing" scalar) unless it is declared ``optional``;
a message field is null when absent (``generate.struct.for.nulls``: its defaults).
"""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Callable
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from kconnect.data.logical import (
    Date,
    Decimal,
    Time,
    Timestamp,
)
from kconnect.data.schema import Schema, Type
from kconnect.data.struct import Struct
from kconnect.errors import DataError

from kconnect_schema_registry.protobuf import params as p
from kconnect_schema_registry.protobuf.codec_base import Convert, field_by_name, is_map_entry
from kconnect_schema_registry.protobuf.from_connect import is_union
from kconnect_schema_registry.protobuf.options import ProtobufOptions
from kconnect_schema_registry.protobuf.schema import enum_type_of, message_type_of
from kconnect_schema_registry.protobuf.to_connect import FieldFacts

FD = FieldDescriptor


class _Decoders:
    def __init__(self, options: ProtobufOptions) -> None:
        self.options = options
        self.facts = FieldFacts()

    def present(self, field: FieldDescriptor) -> Callable[[Message], bool]:
        """Confluent's ``setStructField`` test: is the field read, or left null?"""
        if self.options.generate_struct_for_nulls or field.is_repeated:
            return lambda m: True
        optional = self.facts.is_proto3_optional(field) or (
            self.options.optional_for_proto2 and self.facts.has_optional_keyword(field)
        )
        if field.type != FD.TYPE_MESSAGE and not optional:
            return lambda m: True
        name = field.name
        return lambda m: m.HasField(name)

    def struct(self, message: Descriptor, schema: Schema) -> Callable[[Message], Struct]:
        steps: list[Callable[[Message], Any]] = []
        for connect_field in schema.fields:
            field_schema = connect_field.schema
            if field_schema.type is Type.STRUCT and is_union(field_schema):
                steps.append(self.union(message, field_schema))
                continue
            field = field_by_name(message, connect_field.name)
            convert = self.value(field_schema, field)
            oneof = self.facts.real_oneof(field)
            if oneof is not None:  # flatten.unions: a member read only when it is the one set
                steps.append(_oneof_member(oneof.name, field.name, convert))
            else:
                steps.append(_read(field.name, self.present(field), convert))

        def decode(m: Message) -> Struct:
            return Struct.unchecked(schema, [step(m) for step in steps])

        return decode

    def union(self, message: Descriptor, union: Schema) -> Callable[[Message], Any]:
        members = {}
        oneof_name = None
        for index, member in enumerate(union.fields):
            field = field_by_name(message, member.name)
            oneof = field.containing_oneof
            if oneof is None:
                raise DataError(f"Field {field.name} of {message.full_name} is not in a oneof")
            oneof_name = oneof.name
            members[field.name] = (index, self.value(member.schema, field))
        size = len(union.fields)

        def decode(m: Message) -> Any:
            which = m.WhichOneof(oneof_name) if oneof_name else None
            if which is None or which not in members:
                return None
            index, convert = members[which]
            values: list[Any] = [None] * size
            values[index] = convert(getattr(m, which))
            return Struct.unchecked(union, values)

        return decode

    def value(self, schema: Schema, field: FieldDescriptor) -> Convert:
        if schema.type is Type.ARRAY:
            assert schema.value_schema is not None
            element = self.single(schema.value_schema, field)
            return lambda values: [element(v) for v in values]
        if schema.type is Type.MAP:
            return self.map(schema, field)
        return self.single(schema, field)

    def map(self, schema: Schema, field: FieldDescriptor) -> Convert:
        assert schema.key_schema is not None and schema.value_schema is not None
        entry = message_type_of(field)
        key = self.single(schema.key_schema, field_by_name(entry, p.KEY_FIELD))
        value = self.single(schema.value_schema, field_by_name(entry, p.VALUE_FIELD))
        if is_map_entry(field):
            return lambda m: {key(k): value(v) for k, v in m.items()}
        return lambda entries: {key(e.key): value(e.value) for e in entries}

    def single(self, schema: Schema, field: FieldDescriptor) -> Convert:
        name = schema.name
        if name == Decimal.LOGICAL_NAME:
            return _decimal_from_message
        if name == Date.LOGICAL_NAME:
            return _date_from_message
        if name == Time.LOGICAL_NAME:
            return _time_from_message
        if name == Timestamp.LOGICAL_NAME:
            return lambda m: Timestamp.to_logical(schema, m.seconds * 1000 + m.nanos // 1_000_000)
        if schema.type is Type.STRUCT:
            return self.struct(message_type_of(field), schema)
        scalar = self.scalar(schema, field)
        if field.type == FD.TYPE_MESSAGE:  # a google.protobuf.*Value wrapper
            return lambda m: scalar(m.value)
        return scalar

    def scalar(self, schema: Schema, field: FieldDescriptor) -> Convert:
        kind = schema.type
        if field.type == FD.TYPE_ENUM:
            names = {v.number: v.name for v in enum_type_of(field).values}
            if kind is Type.STRING:
                return lambda v: names.get(v, str(v))
            return int
        if kind is Type.INT8:
            return lambda v: (int(v) + 0x80 & 0xFF) - 0x80
        if kind is Type.INT16:
            return lambda v: (int(v) + 0x8000 & 0xFFFF) - 0x8000
        if kind is Type.INT64:
            return lambda v: v - (1 << 64) if v >= 1 << 63 else v
        if kind is Type.BYTES:
            return bytes
        if kind in (Type.FLOAT32, Type.FLOAT64):
            return float
        return lambda v: v


def _read(name: str, present: Callable[[Message], bool], convert: Convert) -> Callable[[Message], Any]:
    def read(m: Message) -> Any:
        return convert(getattr(m, name)) if present(m) else None

    return read


def _oneof_member(oneof: str, name: str, convert: Convert) -> Callable[[Message], Any]:
    def read(m: Message) -> Any:
        return convert(getattr(m, name)) if m.WhichOneof(oneof) == name else None

    return read


def _decimal_from_message(m: Any) -> decimal.Decimal:
    raw = bytes(m.value)
    if not raw:
        raise DataError("Invalid Decimal bytes: zero length")
    unscaled = int.from_bytes(raw, "big", signed=True)
    digits = str(abs(unscaled))
    value = decimal.Decimal((1 if unscaled < 0 else 0, tuple(int(d) for d in digits), -m.scale))
    if m.precision and len(digits) > m.precision:
        context = decimal.Context(prec=m.precision, rounding=decimal.ROUND_HALF_UP)
        value = context.plus(value)
    return value


def _date_from_message(m: Any) -> datetime.date:
    try:
        return datetime.date(m.year, m.month, m.day)
    except ValueError as e:
        raise DataError(f"Invalid google.type.Date {m.year}-{m.month}-{m.day}: {e}") from e


def _time_from_message(m: Any) -> datetime.time:
    try:
        return datetime.time(m.hours, m.minutes, m.seconds, m.nanos // 1_000_000 * 1000)
    except ValueError as e:
        raise DataError(f"Invalid google.type.TimeOfDay: {e}") from e


def decoder(message: Descriptor, schema: Schema, options: ProtobufOptions) -> Callable[[Message], Any]:
    """The function message -> Connect value of `schema`, for messages of type `message`."""
    decoders = _Decoders(options)
    if schema.type is Type.STRUCT:
        return decoders.struct(message, schema)
    scalar = decoders.scalar(schema, message.fields_by_name["value"])

    def unwrap(m: Any) -> Any:
        return scalar(m.value)

    return unwrap
