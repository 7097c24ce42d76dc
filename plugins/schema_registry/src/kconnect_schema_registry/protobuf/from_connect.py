"""Connect schema -> Protobuf file, by the rules of Confluent's ``ProtobufData.fromConnectSchema``.

A struct becomes a proto3 message named after ``connect.name`` (its namespace the package, its last
part the message; unnamed schemas are ``ConnectDefault1``, ``ConnectDefault2``... in depth-first
order). Fields are numbered 1, 2, ... in order unless they carry ``io.confluent.connect.protobuf.Tag``
(a union consumes a number too). Nested structs become nested messages, maps a nested
``<Name>Entry`` message with ``key = 1`` and ``value = 2`` and a repeated field of it (not a
``map<>``: Confluent builds the entry without ``map_entry``), arrays repeated fields. INT8 and INT16
are ``int32`` with ``connect.type`` in ``(confluent.field_meta)``; Decimal is
``confluent.type.Decimal`` (scale and precision in the field meta), Date ``google.type.Date``, Time
``google.type.TimeOfDay``, Timestamp ``google.protobuf.Timestamp``. A primitive at the root is the
matching ``google.protobuf.*Value`` wrapper of ``google/protobuf/wrappers.proto``.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping

from google.protobuf import descriptor_pb2
from kconnect.data.logical import Date, Decimal, Time, Timestamp
from kconnect.data.schema import Schema, Type
from kconnect.errors import DataError

from kconnect_schema_registry.protobuf import params as p
from kconnect_schema_registry.protobuf.options import ProtobufOptions
from kconnect_schema_registry.protobuf.schema import ProtobufSchema, known_file, meta_extension

FieldProto = descriptor_pb2.FieldDescriptorProto

#: The scalar type names Confluent writes, and their descriptor types.
SCALAR_TYPES: Mapping[str, int] = {
    "double": FieldProto.TYPE_DOUBLE,
    "float": FieldProto.TYPE_FLOAT,
    "int64": FieldProto.TYPE_INT64,
    "uint64": FieldProto.TYPE_UINT64,
    "int32": FieldProto.TYPE_INT32,
    "fixed64": FieldProto.TYPE_FIXED64,
    "fixed32": FieldProto.TYPE_FIXED32,
    "bool": FieldProto.TYPE_BOOL,
    "string": FieldProto.TYPE_STRING,
    "bytes": FieldProto.TYPE_BYTES,
    "uint32": FieldProto.TYPE_UINT32,
    "sfixed32": FieldProto.TYPE_SFIXED32,
    "sfixed64": FieldProto.TYPE_SFIXED64,
    "sint32": FieldProto.TYPE_SINT32,
    "sint64": FieldProto.TYPE_SINT64,
}

#: The wrapper message of a primitive written at the root.
ROOT_WRAPPERS: Mapping[Type, str] = {
    Type.INT8: p.INT32_WRAPPER,
    Type.INT16: p.INT32_WRAPPER,
    Type.INT32: p.INT32_WRAPPER,
    Type.INT64: p.INT64_WRAPPER,
    Type.FLOAT32: p.FLOAT_WRAPPER,
    Type.FLOAT64: p.DOUBLE_WRAPPER,
    Type.BOOLEAN: p.BOOL_WRAPPER,
    Type.STRING: p.STRING_WRAPPER,
    Type.BYTES: p.BYTES_WRAPPER,
}

_LOGICAL_TYPES: Mapping[str, str] = {
    Date.LOGICAL_NAME: p.DATE_TYPE,
    Time.LOGICAL_NAME: p.TIME_TYPE,
    Timestamp.LOGICAL_NAME: p.TIMESTAMP_TYPE,
}


def scrub_name(name: str) -> str:
    """Confluent's ``doScrubName``: URL-encode, then every character outside ``[A-Za-z0-9_]`` -> ``_``."""
    if not name:
        return name
    if all(c.isascii() and (c.isalnum() or c == "_") for c in name) and not (
        name[0].isdigit() or name[0] == "_"
    ):
        return name
    encoded = _url_encode(name)
    if encoded[0].isdigit() or encoded[0] == "_":
        encoded = "x" + encoded
    return "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in encoded)


def _url_encode(text: str) -> str:
    # Java's URLEncoder.encode(text, "UTF-8"): letters, digits and ".-*_" kept, space "+", the rest %XX.
    out = []
    for byte in text.encode("utf-8"):
        c = chr(byte)
        if byte < 0x80 and (c.isalnum() or c in ".-*_"):
            out.append(c)
        elif c == " ":
            out.append("+")
        else:
            out.append(f"%{byte:02X}")
    return "".join(out)


def _upper_camel(name: str) -> str:
    # Guava's LOWER_UNDERSCORE.to(UPPER_CAMEL): ASCII case only.
    return "".join(w[:1].upper() + w[1:].lower() for w in name.split("_"))


def map_entry_name(name: str) -> str:
    """Confluent's ``toMapEntry``: the entry message of a map named `name`."""
    return (_upper_camel(name) if "_" in name else name) + p.MAP_ENTRY_SUFFIX


def is_union(schema: Schema) -> bool:
    """Whether a struct schema stands for a oneof (Confluent's union naming or the generalized parameter)."""
    return (schema.name is not None and schema.name.startswith(p.TYPE_UNION)) or (
        p.GENERALIZED_TYPE_UNION in (schema.parameters or {})
    )


def _java_string_hash(text: str) -> int:
    data = text.encode("utf-16-be")
    h = 0
    for unit in struct.unpack(f">{len(data) // 2}H", data):
        h = (31 * h + unit) & 0xFFFFFFFF
    return h


def java_hash_order(keys: list[str]) -> list[str]:
    """`keys` in the order a small Java ``HashMap`` iterates them (16 buckets, insertion order within one)."""

    def bucket(key: str) -> int:
        h = _java_string_hash(key)
        return (h ^ (h >> 16)) & 15

    return sorted(keys, key=bucket)


class _Builder:
    """One ``fromConnectSchema`` run: the default-name counter and the nested types of each message."""

    def __init__(self, options: ProtobufOptions) -> None:
        self.options = options
        self.default_index = 0
        self.children: dict[int, set[str]] = {}

    def scrub(self, name: str) -> str:
        return scrub_name(name) if self.options.scrub_invalid_names else name

    def name_or_default(self, name: str | None) -> str:
        if name:
            return name
        self.default_index += 1
        return f"{p.DEFAULT_SCHEMA_NAME}{self.default_index}"

    def split(self, full_name: str) -> tuple[str | None, str]:
        parts = [self.scrub(part) for part in full_name.split(".")]
        while len(parts) > 1 and not parts[-1]:
            parts.pop()  # Java's split drops trailing empty strings
        if len(parts) <= 1:
            return None, parts[0]
        return ".".join(parts[:-1]), parts[-1]

    def unqualified(self, name: str | None) -> str:
        return self.scrub(self.name_or_default(name).rsplit(".", 1)[-1])

    def contains(self, parent: descriptor_pb2.DescriptorProto, child: str) -> bool:
        return parent.name == child or child in self.children.get(id(parent), ())

    def message(
        self, file: descriptor_pb2.FileDescriptorProto, name: str, struct: Schema
    ) -> descriptor_pb2.DescriptorProto:
        message = descriptor_pb2.DescriptorProto(name=name)
        index = 1
        for connect_field in struct.fields:
            schema = connect_field.schema
            tag_text = (schema.parameters or {}).get(p.TYPE_TAG)
            if tag_text is not None:
                tag = int(tag_text)
            else:
                tag = index
                index += 1
            field = self.field(file, message, schema, self.scrub(connect_field.name), tag, oneof_member=False)
            if field is None:
                continue
            if self.label(schema) == "optional":
                field.proto3_optional = True
                field.oneof_index = len(message.oneof_decl)
                message.oneof_decl.add(name="_" + field.name)
            message.field.append(field)
        self.children.pop(id(message), None)
        return message

    def label(self, schema: Schema) -> str | None:
        if schema.type in (Type.ARRAY, Type.MAP):
            return "repeated"
        if self.options.optional_for_nullables and schema.optional:
            return "optional"
        return None

    def field(
        self,
        file: descriptor_pb2.FileDescriptorProto,
        message: descriptor_pb2.DescriptorProto,
        schema: Schema,
        name: str,
        tag: int,
        oneof_member: bool,
    ) -> FieldProto | None:
        label = self.label(schema)
        if schema.type is Type.ARRAY:
            assert schema.value_schema is not None
            schema = schema.value_schema
        meta: dict[str, str] = {}
        type_name = self.data_type(schema, name, meta, oneof_member)
        parameters = schema.parameters or {}
        if schema.type is Type.STRUCT:
            if is_union(schema):
                if self.options.generalized_sum_type_support:
                    union_name = parameters[p.GENERALIZED_TYPE_UNION]
                else:
                    union_name = self.unqualified((schema.name or "")[len(p.TYPE_UNION_PREFIX) :])
                self.oneof(file, message, schema, union_name)
                return None
            if not self.contains(message, type_name):
                self.children.setdefault(id(message), set()).add(type_name)
                message.nested_type.append(self.message(file, type_name, schema))
        elif schema.type is Type.MAP:
            message.nested_type.append(self.map_entry(file, type_name, schema))
        elif p.GENERALIZED_TYPE_ENUM in parameters or p.TYPE_ENUM in parameters:
            enum_name = self.unqualified(schema.name)
            if all(e.name != enum_name for e in message.enum_type):
                message.enum_type.append(self.enum(schema, enum_name))
        else:
            location = p.TYPE_LOCATIONS.get(type_name)
            if location is not None and location not in file.dependency:
                file.dependency.append(location)
        field = FieldProto(name=name, number=tag)
        field.label = FieldProto.LABEL_REPEATED if label == "repeated" else FieldProto.LABEL_OPTIONAL
        scalar = SCALAR_TYPES.get(type_name)
        if scalar is not None:
            field.type = scalar  # type: ignore[assignment]
        else:
            field.type_name = type_name
        if meta:
            set_field_meta(field, meta)
        return field

    def oneof(
        self,
        file: descriptor_pb2.FileDescriptorProto,
        message: descriptor_pb2.DescriptorProto,
        union: Schema,
        union_name: str,
    ) -> None:
        oneof_index = len(message.oneof_decl)
        message.oneof_decl.add(name=union_name)
        for member in union.fields:
            tag_text = (member.schema.parameters or {}).get(p.TYPE_TAG)
            tag = int(tag_text) if tag_text is not None else 0
            field = self.field(file, message, member.schema, self.scrub(member.name), tag, oneof_member=True)
            if field is not None:
                field.oneof_index = oneof_index
                message.field.append(field)

    def map_entry(
        self, file: descriptor_pb2.FileDescriptorProto, name: str, schema: Schema
    ) -> descriptor_pb2.DescriptorProto:
        assert schema.key_schema is not None and schema.value_schema is not None
        entry = descriptor_pb2.DescriptorProto(name=name)
        for field_name, number, field_schema in (
            (p.KEY_FIELD, 1, schema.key_schema),
            (p.VALUE_FIELD, 2, schema.value_schema),
        ):
            field = self.field(file, entry, field_schema, field_name, number, oneof_member=False)
            if field is None:
                raise DataError(f"A union cannot be the {field_name} of map {schema.name or '(unnamed)'}")
            entry.field.append(field)
        self.children.pop(id(entry), None)
        return entry

    def enum(self, schema: Schema, name: str) -> descriptor_pb2.EnumDescriptorProto:
        prefix = (p.GENERALIZED_TYPE_ENUM if self.options.generalized_sum_type_support else p.TYPE_ENUM) + "."
        enum = descriptor_pb2.EnumDescriptorProto(name=name)
        for key, value in (schema.parameters or {}).items():
            if key.startswith(prefix):
                enum.value.add(name=key[len(prefix) :], number=int(value))
        return enum

    def data_type(self, schema: Schema, field_name: str, meta: dict[str, str], oneof_member: bool) -> str:
        parameters = schema.parameters or {}
        if schema.name == Decimal.LOGICAL_NAME:
            if p.CONNECT_PRECISION_PROP in parameters:
                meta[p.PRECISION_PROP] = parameters[p.CONNECT_PRECISION_PROP]
            if p.CONNECT_SCALE_PROP in parameters:
                meta[p.SCALE_PROP] = parameters[p.CONNECT_SCALE_PROP]
            return p.DECIMAL_TYPE
        logical = _LOGICAL_TYPES.get(schema.name or "")
        if logical is not None:
            return logical
        wrap = (
            self.options.wrapper_for_nullables
            and schema.optional
            and (not oneof_member or parameters.get(p.TYPE_WRAPPER, "").lower() == "true")
        )
        kind = schema.type
        if kind in (Type.INT8, Type.INT16):
            meta[p.CONNECT_TYPE_PROP] = kind.value
            return p.INT32_WRAPPER if wrap else "int32"
        if kind is Type.INT32:
            if p.TYPE_ENUM in parameters:
                return parameters[p.TYPE_ENUM]
            return p.INT32_WRAPPER if wrap else parameters.get(p.TYPE_PROP, "int32")
        if kind is Type.INT64:
            declared = parameters.get(p.TYPE_PROP, "int64")
            if not wrap:
                return declared
            if declared in ("uint32", "fixed32"):
                return p.UINT32_WRAPPER
            return p.UINT64_WRAPPER if declared in ("uint64", "fixed64") else p.INT64_WRAPPER
        if kind is Type.STRING:
            if p.GENERALIZED_TYPE_ENUM in parameters:
                return parameters[p.GENERALIZED_TYPE_ENUM]
            if p.TYPE_ENUM in parameters:
                return parameters[p.TYPE_ENUM]
            return p.STRING_WRAPPER if wrap else "string"
        simple = {
            Type.FLOAT32: (p.FLOAT_WRAPPER, "float"),
            Type.FLOAT64: (p.DOUBLE_WRAPPER, "double"),
            Type.BOOLEAN: (p.BOOL_WRAPPER, "bool"),
            Type.BYTES: (p.BYTES_WRAPPER, "bytes"),
        }.get(kind)
        if simple is not None:
            return simple[0] if wrap else simple[1]
        if kind is Type.ARRAY:
            raise DataError("Array cannot be nested")
        if kind is Type.MAP:
            return map_entry_name(self.unqualified(schema.name))
        name = self.unqualified(schema.name)
        # A message type cannot share its field's name.
        return name + "Message" if name == field_name else name


def set_field_meta(field: FieldProto, meta: Mapping[str, str]) -> None:
    """Put `meta` into the field's ``(confluent.field_meta)`` params."""
    extension = field.options.Extensions[meta_extension("field_meta")]
    for key, value in meta.items():
        extension.params[key] = value


def from_connect_schema(schema: Schema, options: ProtobufOptions) -> ProtobufSchema:
    """The Protobuf schema Confluent's ProtobufConverter registers for the Connect schema `schema`."""
    builder = _Builder(options)
    namespace, name = builder.split(builder.name_or_default(schema.name))
    if schema.type.is_primitive:
        if schema.name == Decimal.LOGICAL_NAME or schema.name in _LOGICAL_TYPES:
            raise DataError(
                f"A {schema.name} value at the root cannot be written as Protobuf: Confluent's converter "
                "would write it under a wrapper schema it does not match; put it in a struct"
            )
        wrappers = known_file(p.WRAPPERS_LOCATION)
        # Python's generated descriptors carry json_name; Java's (which Confluent renders) do not.
        for message in wrappers.message_type:
            for field in message.field:
                field.ClearField("json_name")
        return ProtobufSchema(wrappers, ROOT_WRAPPERS[schema.type])
    if schema.type is not Type.STRUCT:
        raise DataError(f"Unsupported root schema of type {schema.type}")
    file = descriptor_pb2.FileDescriptorProto(syntax="proto3")
    if namespace is not None:
        file.package = namespace
    file.message_type.append(builder.message(file, name, schema))
    return ProtobufSchema(file, f"{namespace}.{name}" if namespace else name)
