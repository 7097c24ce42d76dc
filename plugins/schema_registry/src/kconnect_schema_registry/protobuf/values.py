"""Connect values <-> Protobuf messages, by the rules of Confluent's ``ProtobufData`` to/fromConnectData.

`encoder` and `decoder` compile, once per (message type, Connect schema), a function per field, so a
record costs one message construction (or parse) and no schema lookups. Writing, null values and
empty arrays leave the field unset; a union struct sets the first of its non-null members. Reading,
a scalar or repeated field is always set (proto3 has no "missing" scalar) unless it is declared
``optional``; a message field is null when absent (``generate.struct.for.nulls``: its defaults).
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
from kconnect_schema_registry.protobuf.from_connect import is_union, scrub_name
from kconnect_schema_registry.protobuf.options import ProtobufOptions
from kconnect_schema_registry.protobuf.schema import enum_type_of, message_type_of
from kconnect_schema_registry.protobuf.to_connect import FieldFacts

Convert = Callable[[Any], Any]
FD = FieldDescriptor
_UINT32_TYPES = (FD.TYPE_UINT32, FD.TYPE_FIXED32)
_UINT64_TYPES = (FD.TYPE_UINT64, FD.TYPE_FIXED64)


def _message_class(descriptor: Descriptor) -> type[Message]:
    from google.protobuf import message_factory

    return message_factory.GetMessageClass(descriptor)


def _is_map_entry(field: FieldDescriptor) -> bool:
    return field.message_type is not None and field.message_type.GetOptions().map_entry


def _field_by_name(message: Descriptor, name: str) -> FieldDescriptor:
    found = message.fields_by_name.get(name)
    if found is None:
        raise DataError(f"Cannot find field with name {name} in Protobuf message {message.full_name}")
    return found


# --- Connect -> Protobuf --------------------------------------------------------------------------


class _Encoders:
    def __init__(self, options: ProtobufOptions) -> None:
        self.options = options

    def name(self, name: str) -> str:
        return scrub_name(name) if self.options.scrub_invalid_names else name

    def struct(self, message: Descriptor, schema: Schema) -> Callable[[Any], Message]:
        """A function Struct -> message of type `message`."""
        cls = _message_class(message)
        steps: list[tuple[int, Schema, Callable[[Any], tuple[str, Any] | None]]] = []
        for connect_field in schema.fields:
            if connect_field.schema.type is Type.STRUCT and is_union(connect_field.schema):
                steps.append(
                    (connect_field.index, connect_field.schema, self.union(message, connect_field.schema))
                )
            else:
                field = _field_by_name(message, self.name(connect_field.name))
                convert = self.value(connect_field.schema, field)
                steps.append((connect_field.index, connect_field.schema, _named(field.name, convert)))
        use_defaults = not self.options.ignore_default_for_nullables

        def encode(struct: Any) -> Message:
            if not isinstance(struct, Struct):
                raise DataError(f"Invalid type for STRUCT: {type(struct).__name__}")
            if struct.schema is not schema and struct.schema != schema:
                raise DataError("Mismatching struct schema")
            values = struct.values()
            kwargs = {}
            for index, field_schema, step in steps:
                value = values[index]
                if value is None:
                    if not use_defaults or field_schema.default_value is None:
                        continue
                    value = field_schema.default_value
                named = step(value)
                if named is not None:
                    kwargs[named[0]] = named[1]
            return cls(**kwargs)

        return encode

    def union(self, message: Descriptor, union: Schema) -> Callable[[Any], tuple[str, Any] | None]:
        members = []
        for member in union.fields:
            field = _field_by_name(message, self.name(member.name))
            members.append((member.index, field.name, self.value(member.schema, field)))

        def encode(struct: Any) -> tuple[str, Any] | None:
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
        key = self.single(schema.key_schema, _field_by_name(entry, p.KEY_FIELD))
        value = self.single(schema.value_schema, _field_by_name(entry, p.VALUE_FIELD))
        if _is_map_entry(field):
            return lambda m: {key(k): value(v) for k, v in m.items()}
        cls = _message_class(entry)

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
            return _decimal_to_message(_message_class(message_type_of(field)))
        if name == Date.LOGICAL_NAME:
            return _date_to_message(schema, _message_class(message_type_of(field)))
        if name == Time.LOGICAL_NAME:
            return _time_to_message(schema, _message_class(message_type_of(field)))
        if name == Timestamp.LOGICAL_NAME:
            return _timestamp_to_message(schema, _message_class(message_type_of(field)))
        if schema.type is Type.STRUCT:
            return self.struct(message_type_of(field), schema)
        scalar = self.scalar(schema, field)
        if field.type == FD.TYPE_MESSAGE:  # a google.protobuf.*Value wrapper
            wrapper = _message_class(message_type_of(field))
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


def _named(name: str, convert: Convert) -> Callable[[Any], tuple[str, Any] | None]:
    def step(value: Any) -> tuple[str, Any] | None:
        converted = convert(value)
        return None if converted is None else (name, converted)

    return step


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
    cls = _message_class(message)
    scalar = encoders.scalar(schema, message.fields_by_name["value"])
    return lambda v: cls(value=scalar(v))


# --- Protobuf -> Connect --------------------------------------------------------------------------


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
            field = _field_by_name(message, connect_field.name)
            convert = self.value(field_schema, field)
            oneof = self.facts.real_oneof(field)
            if oneof is not None:  # flatten.unions: a member read only when it is the one set
                steps.append(_oneof_member(oneof.name, field.name, convert))
            else:
                steps.append(_read(field.name, self.present(field), convert))

        def decode(m: Message) -> Struct:
            return Struct._trusted(schema, [step(m) for step in steps])

        return decode

    def union(self, message: Descriptor, union: Schema) -> Callable[[Message], Any]:
        members = {}
        oneof_name = None
        for index, member in enumerate(union.fields):
            field = _field_by_name(message, member.name)
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
            return Struct._trusted(union, values)

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
        key = self.single(schema.key_schema, _field_by_name(entry, p.KEY_FIELD))
        value = self.single(schema.value_schema, _field_by_name(entry, p.VALUE_FIELD))
        if _is_map_entry(field):
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
