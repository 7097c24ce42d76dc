"""Protobuf message -> Connect schema, by the rules of Confluent's ``ProtobufData.toConnectSchema``.

A message is a struct named after the message (its full name with ``enhanced.protobuf.schema.support``);
its real oneofs come first, each a field ``<oneof>_<index>`` holding an optional struct named
``io.confluent.connect.protobuf.Union.<oneof>`` (``flatten.unions``: the members as plain fields),
then the other fields in declaration order, each with its number in ``io.confluent.connect.protobuf.Tag``.
Scalars map to the Connect type of their width (``uint32``/``fixed32`` and every 64-bit type to INT64,
the Protobuf type kept in ``io.confluent.connect.protobuf.Type``), ``int32`` with ``connect.type``
back to INT8/INT16, enums to STRING (``int.for.enums``: INT32) with their symbols as parameters,
Confluent's Decimal, Google's Date and TimeOfDay and Timestamp to Connect's logical types, repeated
fields to arrays, ``<Name>Entry`` key/value messages to maps, other messages to optional structs.
Without ``optional.for.nullables`` or ``wrapper.for.nullables`` every field is optional.
A top-level ``google.protobuf.*Value`` is its primitive (``wrapper.for.raw.primitives``).
"""

from __future__ import annotations

from collections.abc import Mapping

from google.protobuf import descriptor_pb2
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor, OneofDescriptor
from kconnect.data.logical import Date, Decimal, Time, Timestamp
from kconnect.data.schema import Schema, SchemaBuilder, Type
from kconnect.errors import DataError

from kconnect_schema_registry.protobuf import params as p
from kconnect_schema_registry.protobuf.options import ProtobufOptions
from kconnect_schema_registry.protobuf.schema import enum_type_of, message_type_of, meta_extension

FD = FieldDescriptor

_UNWRAPPED: Mapping[str, Type] = {
    p.DOUBLE_WRAPPER: Type.FLOAT64,
    p.FLOAT_WRAPPER: Type.FLOAT32,
    p.INT64_WRAPPER: Type.INT64,
    p.UINT64_WRAPPER: Type.INT64,
    p.INT32_WRAPPER: Type.INT32,
    p.UINT32_WRAPPER: Type.INT64,
    p.BOOL_WRAPPER: Type.BOOLEAN,
    p.STRING_WRAPPER: Type.STRING,
    p.BYTES_WRAPPER: Type.BYTES,
}
_INT32_TYPES = {FD.TYPE_INT32: "int32", FD.TYPE_SINT32: "sint32", FD.TYPE_SFIXED32: "sfixed32"}
_INT64_TYPES = {
    FD.TYPE_UINT32: "uint32",
    FD.TYPE_FIXED32: "fixed32",
    FD.TYPE_INT64: "int64",
    FD.TYPE_UINT64: "uint64",
    FD.TYPE_SINT64: "sint64",
    FD.TYPE_FIXED64: "fixed64",
    FD.TYPE_SFIXED64: "sfixed64",
}
_SIMPLE = {
    FD.TYPE_FLOAT: Type.FLOAT32,
    FD.TYPE_DOUBLE: Type.FLOAT64,
    FD.TYPE_BOOL: Type.BOOLEAN,
    FD.TYPE_STRING: Type.STRING,
    FD.TYPE_BYTES: Type.BYTES,
}


def _lower_underscore(name: str) -> str:
    # Guava's UPPER_CAMEL.to(LOWER_UNDERSCORE): a word starts at each ASCII capital after the first character.
    out = [name[:1].lower()]
    for c in name[1:]:
        out.append(f"_{c.lower()}" if "A" <= c <= "Z" else c.lower() if c.isascii() else c)
    return "".join(out)


def map_field_name(name: str) -> str:
    """Confluent's ``toMapField``: the Connect name of a map read from entry message `name`."""
    parts = name.split(".")
    if parts[-1].endswith(p.MAP_ENTRY_SUFFIX):
        parts[-1] = _lower_underscore(parts[-1][: -len(p.MAP_ENTRY_SUFFIX)])
    return ".".join(parts)


def field_meta(field: FieldDescriptor) -> Mapping[str, str]:
    """The ``(confluent.field_meta)`` params of `field` (empty when it has none)."""
    options = field.GetOptions()
    extension = meta_extension("field_meta")
    if not options.HasExtension(extension):
        return {}
    return dict(options.Extensions[extension].params)


class FieldFacts:
    """What the descriptor API does not say about fields: proto3 ``optional``, proto2 syntax, map entries."""

    def __init__(self) -> None:
        self._protos: dict[str, descriptor_pb2.DescriptorProto] = {}
        self._syntax: dict[str, str] = {}

    def _proto(self, message: Descriptor) -> descriptor_pb2.DescriptorProto:
        found = self._protos.get(message.full_name)
        if found is None:
            found = descriptor_pb2.DescriptorProto()
            message.CopyToProto(found)
            self._protos[message.full_name] = found
        return found

    def is_proto3_optional(self, field: FieldDescriptor) -> bool:
        """Whether `field` is declared ``optional`` in a proto3 file."""
        return any(f.proto3_optional for f in self._proto(_container(field)).field if f.name == field.name)

    def is_proto2(self, field: FieldDescriptor) -> bool:
        """Whether `field` is declared in a proto2 file."""
        file = _container(field).file
        syntax = self._syntax.get(file.name)
        if syntax is None:
            proto = descriptor_pb2.FileDescriptorProto()
            file.CopyToProto(proto)
            syntax = self._syntax[file.name] = proto.syntax or "proto2"
        return syntax == "proto2"

    def has_optional_keyword(self, field: FieldDescriptor) -> bool:
        """Confluent's ``hasOptionalKeyword``: proto3 ``optional``, or a proto2 optional outside a oneof."""
        return self.is_proto3_optional(field) or (
            self.is_proto2(field)
            and not field.is_repeated
            and not field.is_required
            and field.containing_oneof is None
        )

    def real_oneofs(self, message: Descriptor) -> list[OneofDescriptor]:
        """The oneofs of `message` that are not the synthetic oneof of a proto3 ``optional`` field."""
        return [
            o for o in message.oneofs if not (len(o.fields) == 1 and self.is_proto3_optional(o.fields[0]))
        ]

    def real_oneof(self, field: FieldDescriptor) -> OneofDescriptor | None:
        """The real oneof `field` belongs to, or None."""
        oneof = field.containing_oneof
        if oneof is None or (len(oneof.fields) == 1 and self.is_proto3_optional(field)):
            return None
        return oneof


def _container(field: FieldDescriptor) -> Descriptor:
    if field.containing_type is None:
        raise DataError(f"Field {field.full_name} is an extension, not a message field")
    return field.containing_type


def is_map_field(field: FieldDescriptor) -> bool:
    """Confluent's ``isMapDescriptor``: a repeated ``<Name>Entry`` message with fields key and value."""
    if not field.is_repeated or field.message_type is None:
        return False
    entry = field.message_type
    fields = entry.fields
    return (
        entry.name.endswith(p.MAP_ENTRY_SUFFIX)
        and len(fields) == 2
        and fields[0].name == p.KEY_FIELD
        and fields[1].name == p.VALUE_FIELD
        and not fields[0].is_repeated
        and not fields[1].is_repeated
    )


def unwrapped_type(message: Descriptor) -> Type | None:
    """The primitive a ``google.protobuf.*Value`` wrapper stands for, or None."""
    return _UNWRAPPED.get(message.full_name)


class ToConnect:
    """One ``toConnectSchema`` conversion, with the options it follows."""

    def __init__(self, options: ProtobufOptions) -> None:
        self.options = options
        self.facts = FieldFacts()
        self._open: set[str] = set()

    def schema(self, message: Descriptor, version: int | None = None) -> Schema:
        """The Connect schema of values of `message` (the root of a registered schema)."""
        builder = None
        if self.options.wrapper_for_raw_primitives:
            primitive = unwrapped_type(message)
            if primitive is not None:
                builder = SchemaBuilder.of_type(primitive)
        if builder is None:
            builder = self.struct(message)
        if version is not None:
            builder.version(version)
        return builder.build()

    def struct(self, message: Descriptor) -> SchemaBuilder:
        """The struct builder of `message`: its real oneofs first, then its other fields."""
        if message.full_name in self._open:
            raise DataError(
                f"Recursive Protobuf message {message.full_name} has no Connect schema in kconnect"
            )
        self._open.add(message.full_name)
        builder = SchemaBuilder.struct().name(
            message.full_name if self.options.enhanced_schema_support else message.name
        )
        for oneof in self.facts.real_oneofs(message):
            if self.options.flatten_unions:
                for member in oneof.fields:
                    builder.field(member.name, self.field(member, oneof_member=True))
            else:
                builder.field(self.union_field_name(oneof), self.union(oneof))
        for field in message.fields:
            if self.facts.real_oneof(field) is None:
                builder.field(field.name, self.field(field))
        self._open.discard(message.full_name)
        return builder

    def union_field_name(self, oneof: OneofDescriptor) -> str:
        """A oneof's Connect field: its name, ``_<index>`` added with ``generate.index.for.unions``."""
        return f"{oneof.name}_{oneof.index}" if self.options.generate_index_for_unions else oneof.name

    def union(self, oneof: OneofDescriptor) -> Schema:
        """The optional struct of a oneof, one optional field per member."""
        builder = SchemaBuilder.struct()
        if self.options.generalized_sum_type_support:
            builder.name(oneof.name).parameter(p.GENERALIZED_TYPE_UNION, oneof.name)
        else:
            builder.name(
                p.TYPE_UNION_PREFIX
                + (oneof.full_name if self.options.enhanced_schema_support else oneof.name)
            )
        for member in oneof.fields:
            builder.field(member.name, self.field(member, oneof_member=True))
        return builder.optional().build()

    def field(self, field: FieldDescriptor, oneof_member: bool = False) -> Schema:
        """The Connect schema of one field."""
        kind = field.type
        builder: SchemaBuilder
        is_map = False
        if kind in _INT32_TYPES:
            connect_type = field_meta(field).get(p.CONNECT_TYPE_PROP)
            if connect_type in ("int8", "int16"):
                builder = SchemaBuilder.int8() if connect_type == "int8" else SchemaBuilder.int16()
            else:
                builder = SchemaBuilder.int32()
                if kind != FD.TYPE_INT32:
                    builder.parameter(p.TYPE_PROP, _INT32_TYPES[kind])
        elif kind in _INT64_TYPES:
            builder = SchemaBuilder.int64()
            if kind != FD.TYPE_INT64:
                builder.parameter(p.TYPE_PROP, _INT64_TYPES[kind])
        elif kind in _SIMPLE:
            builder = SchemaBuilder.of_type(_SIMPLE[kind])
        elif kind == FD.TYPE_ENUM:
            builder = self.enum(enum_type_of(field))
        elif kind == FD.TYPE_MESSAGE:
            builder, is_map = self.message_field(field)
            builder.optional()
        else:
            raise DataError(f"Unknown Connect schema type: Protobuf type {kind} of field {field.full_name}")
        if field.is_repeated and not is_map:
            builder = SchemaBuilder.array(builder.optional().build()).optional()
        if oneof_member:
            builder.optional()
            if (
                self.options.wrapper_for_nullables
                and field.message_type is not None
                and unwrapped_type(field.message_type) is not None
            ):
                builder.parameter(p.TYPE_WRAPPER, "true")
        elif self.options.optional_for_nullables:
            if self.facts.has_optional_keyword(field):
                builder.optional()
        elif not self.options.wrapper_for_nullables:
            builder.optional()
        builder.parameter(p.TYPE_TAG, str(field.number))
        return builder.build()

    def enum(self, enum: EnumDescriptor) -> SchemaBuilder:
        """An enum: STRING (INT32 with ``int.for.enums``) named after it, its symbols as parameters."""
        builder = SchemaBuilder.int32() if self.options.int_for_enums else SchemaBuilder.string()
        builder.name(enum.full_name if self.options.enhanced_schema_support else enum.name)
        parameter = p.GENERALIZED_TYPE_ENUM if self.options.generalized_sum_type_support else p.TYPE_ENUM
        builder.parameter(parameter, enum.name)
        for value in enum.values:
            builder.parameter(f"{parameter}.{value.name}", str(value.number))
        return builder.optional()

    def message_field(self, field: FieldDescriptor) -> tuple[SchemaBuilder, bool]:
        """The builder of a message-typed field, and whether it is a map."""
        message = message_type_of(field)
        name = message.full_name
        if name == p.DECIMAL_TYPE:
            meta = field_meta(field)
            scale = _int_or(meta.get(p.SCALE_PROP), 0)
            builder = Decimal.builder(scale if scale is not None else 0)
            precision = _int_or(meta.get(p.PRECISION_PROP), None)
            if precision is not None:
                builder.parameter(p.CONNECT_PRECISION_PROP, str(precision))
            return builder, False
        if name == p.DATE_TYPE:
            return Date.builder(), False
        if name == p.TIME_TYPE:
            return Time.builder(), False
        if name == p.TIMESTAMP_TYPE:
            return Timestamp.builder(), False
        if name == p.VARIANT_TYPE:
            raise DataError(f"Field {field.full_name}: confluent.type.Variant is not supported by kconnect")
        if self.options.wrapper_for_nullables:
            primitive = unwrapped_type(message)
            if primitive is not None:
                return SchemaBuilder.of_type(primitive), False
        if is_map_field(field):
            key, value = message.fields
            map_name = map_field_name(
                message.full_name if self.options.enhanced_schema_support else message.name
            )
            return SchemaBuilder.map(self.field(key), self.field(value)).name(map_name), True
        return self.struct(message), False


def _int_or(text: str | None, default: int | None) -> int | None:
    try:
        return int(text) if text is not None else default
    except ValueError:
        return default
