"""A Protobuf file as ``.proto`` text, exactly as Confluent's ``ProtobufSchema.canonicalString()`` writes it.

Confluent's registry keeps (and Confluent's converter registers) this canonical text, and Apicurio
keeps text verbatim, so the same schema must always be the same string. The layout follows
``ProtobufSchemaUtils.toString`` (not normalized): ``syntax``, ``package``, a blank line and the
imports, a blank line and the file options, a blank line and the messages then the enums; inside a
message its options, fields, oneofs and nested types, each group after a blank line, two spaces
of indent per level (blank lines of nested blocks keep the indent), option maps one entry a line.
Type names are written as the file holds them; proto3 files drop default values.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from google.protobuf import descriptor_pb2

from kconnect_schema_registry.protobuf.from_connect import java_hash_order
from kconnect_schema_registry.protobuf.schema import meta_extension

FieldProto = descriptor_pb2.FieldDescriptorProto

_TYPE_NAMES = {value: name[len("TYPE_") :].lower() for name, value in FieldProto.Type.items()}
_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    "\\": "\\\\",
    "'": "\\'",
    '"': '\\"',
}

#: File options in the order Confluent lists them, with their kind.
_FILE_OPTIONS = (
    ("java_package", "s"),
    ("java_outer_classname", "s"),
    ("java_multiple_files", "b"),
    ("java_generate_equals_and_hash", "b"),
    ("java_string_check_utf8", "b"),
    ("optimize_for", "e"),
    ("go_package", "s"),
    ("cc_generic_services", "b"),
    ("java_generic_services", "b"),
    ("py_generic_services", "b"),
    ("deprecated", "b"),
    ("cc_enable_arenas", "b"),
    ("objc_class_prefix", "s"),
    ("csharp_namespace", "s"),
    ("swift_prefix", "s"),
    ("php_class_prefix", "s"),
    ("php_namespace", "s"),
    ("php_metadata_namespace", "s"),
    ("ruby_package", "s"),
)
_MESSAGE_OPTIONS = (("no_standard_descriptor_accessor", "b"), ("deprecated", "b"), ("map_entry", "b"))
_FIELD_OPTIONS = (
    ("ctype", "e"),
    ("packed", "b"),
    ("jstype", "e"),
    ("deprecated", "b"),
    ("debug_redact", "b"),
)
_ENUM_OPTIONS = (("allow_alias", "b"), ("deprecated", "b"))
_ENUM_VALUE_OPTIONS = (("deprecated", "b"), ("debug_redact", "b"))

_MAX_TAG = 536_870_911


def escape(text: str) -> str:
    """Confluent's ``escapeChars`` for string option values."""
    return "".join(_ESCAPES.get(c, c) for c in text)


def _indent(text: str) -> str:
    # Java's String.split drops trailing empty strings but keeps inner ones, which get the indent too.
    lines = text.split("\n")
    while lines and lines[-1] == "":
        lines.pop()
    return "".join(f"  {line}\n" for line in lines)


class _Option:
    """One option: its name (parenthesized for an extension) and its value, formatted by kind."""

    def __init__(self, name: str, value: Any, kind: str, parenthesized: bool = False) -> None:
        self.name, self.value, self.kind, self.parenthesized = name, value, kind, parenthesized

    def __str__(self) -> str:
        name = f"({self.name})" if self.parenthesized else self.name
        if self.kind == "s":
            return f'{name} = "{escape(str(self.value))}"'
        if self.kind == "b":
            return f"{name} = {'true' if self.value else 'false'}"
        if self.kind in ("e", "n"):
            return f"{name} = {self.value}"
        return f"{name} = {{\n{_option_map(self.value)}}}"


def _option_value(value: Any) -> str:
    if isinstance(value, str):
        return f'"{escape(value)}"'
    if isinstance(value, dict):
        return "{\n" + _option_map(value) + "}"
    if isinstance(value, list):
        last = len(value) - 1
        return (
            "[\n"
            + "".join(_indent(_option_value(v) + ("," if i != last else "")) for i, v in enumerate(value))
            + "]"
        )
    if isinstance(value, _Option):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _option_map(values: dict[str, Any]) -> str:
    last = len(values) - 1
    return "".join(
        _indent(f"{key}: {_option_value(value)}{',' if i != last else ''}")
        for i, (key, value) in enumerate(values.items())
    )


def _options_list(options: list[_Option]) -> str:
    if len(options) == 1:
        return f"[{_option_value(options[0])}]"
    last = len(options) - 1
    return (
        "[\n"
        + "".join(_indent(_option_value(o) + ("," if i != last else "")) for i, o in enumerate(options))
        + "]"
    )


def _standard_options(options: Any, table: Iterable[tuple[str, str]]) -> list[_Option]:
    found = []
    for name, kind in table:
        if options.HasField(name):
            value = getattr(options, name)
            if kind == "e":
                value = options.DESCRIPTOR.fields_by_name[name].enum_type.values_by_number[value].name
            found.append(_Option(name, value, kind))
    return found


def _meta_option(options: Any, extension_name: str) -> list[_Option]:
    """Confluent's ``toOption`` of a ``confluent.*_meta`` extension: doc, params, tags (rules skipped)."""
    extension = meta_extension(extension_name)
    if not options.HasExtension(extension):
        return []
    meta = options.Extensions[extension]
    values: dict[str, Any] = {}
    if meta.doc:
        values["doc"] = meta.doc
    if meta.params:
        entries = []
        for key in java_hash_order(sorted(meta.params)):
            value = meta.params[key]
            # Confluent writes the value first for precision and scale, "for backward compatibility".
            entries.append(
                {"value": value, "key": key}
                if key in ("precision", "scale")
                else {"key": key, "value": value}
            )
        values["params"] = entries
    if meta.tags:
        values["tags"] = list(meta.tags)
    return [_Option(f"confluent.{extension_name}", values, "m", parenthesized=True)] if values else []


def _option_lines(options: list[_Option]) -> str:
    return "".join(f"option {o};\n" for o in options)


def render_file(file: descriptor_pb2.FileDescriptorProto) -> str:
    """The canonical ``.proto`` text of `file`."""
    out = []
    syntax = file.syntax
    if syntax in ("proto2", "proto3"):
        out.append(f'syntax = "{syntax}";\n')
    if file.package:
        out.append(f"package {file.package};\n")
    public = set(file.public_dependency)
    weak = set(file.weak_dependency)
    imports = [d for i, d in enumerate(file.dependency) if i not in public and i not in weak]
    public_imports = [d for i, d in enumerate(file.dependency) if i in public]
    if imports or public_imports:
        out.append("\n")
        out.extend(f'import "{name}";\n' for name in imports)
        out.extend(f'import public "{name}";\n' for name in public_imports)
    options = _standard_options(file.options, _FILE_OPTIONS) + _meta_option(file.options, "file_meta")
    if options:
        out.append("\n" + _option_lines(options))
    proto3 = syntax == "proto3"
    if file.message_type or file.enum_type:
        out.append("\n")
        out.extend(_message(m, proto3) for m in file.message_type)
        out.extend(_enum(e) for e in file.enum_type)
    return "".join(out)


def _message(message: descriptor_pb2.DescriptorProto, proto3: bool) -> str:
    out = [f"message {message.name} {{"]
    reserved = [_reserved_range(r.start, r.end - 1) for r in message.reserved_range]
    reserved += [f'reserved "{name}";\n' for name in message.reserved_name]
    if reserved:
        out.append("\n" + "".join(_indent(r) for r in reserved))
    options = _standard_options(message.options, _MESSAGE_OPTIONS) + _meta_option(
        message.options, "message_meta"
    )
    if options:
        out.append("\n" + "".join(_indent(f"option {o};\n") for o in options))
    in_oneof: dict[int, list[FieldProto]] = {}
    plain = []
    for field in message.field:
        if field.HasField("oneof_index") and not field.proto3_optional:
            in_oneof.setdefault(field.oneof_index, []).append(field)
        else:
            plain.append(field)
    if plain:
        out.append("\n" + "".join(_indent(_field(f, proto3, in_oneof=False)) for f in plain))
    oneofs = [(decl.name, in_oneof[i]) for i, decl in enumerate(message.oneof_decl) if in_oneof.get(i)]
    if oneofs:
        out.append("\n")
        for name, fields in oneofs:
            body = "".join(_indent(_field(f, proto3, in_oneof=True)) for f in fields)
            out.append(_indent(f"oneof {name} {{\n{body}}}\n"))
    if message.extension_range:
        out.append("\n" + "".join(_indent(_extensions(r.start, r.end - 1)) for r in message.extension_range))
    if message.nested_type or message.enum_type:
        out.append("\n")
        out.extend(_indent(_message(m, proto3)) for m in message.nested_type)
        out.extend(_indent(_enum(e)) for e in message.enum_type)
    out.append("}\n")
    return "".join(out)


def _range(start: int, end: int) -> str:
    if start == end:
        return str(start)
    return f"{start} to {end if end < _MAX_TAG else 'max'}"


def _reserved_range(start: int, end: int) -> str:
    return f"reserved {_range(start, end)};\n"


def _extensions(start: int, end: int) -> str:
    return f"extensions {_range(start, end)};\n"


def _field(field: FieldProto, proto3: bool, in_oneof: bool) -> str:
    label = None
    if not in_oneof:
        if field.proto3_optional:
            label = "optional"
        elif field.label == FieldProto.LABEL_REPEATED:
            label = "repeated"
        elif not proto3:
            label = "required" if field.label == FieldProto.LABEL_REQUIRED else "optional"
    kind = field.type_name if field.type_name else _TYPE_NAMES[field.type]
    text = f"{label} " if label else ""
    text += f"{kind} {field.name} = {field.number}"
    options = _standard_options(field.options, _FIELD_OPTIONS) + _meta_option(field.options, "field_meta")
    if not proto3 and field.HasField("default_value"):
        value_kind = {"bool": "b", "string": "s"}.get(kind, "n" if kind in _TYPE_NAMES.values() else "e")
        options.append(_Option("default", field.default_value, value_kind))
    if field.HasField("json_name"):
        options.append(_Option("json_name", field.json_name, "s"))
    if options:
        text += " " + _options_list(options)
    return text + ";\n"


def _enum(enum: descriptor_pb2.EnumDescriptorProto) -> str:
    out = [f"enum {enum.name} {{"]
    reserved = [_reserved_range(r.start, r.end) for r in enum.reserved_range]
    reserved += [f'reserved "{name}";\n' for name in enum.reserved_name]
    if reserved:
        out.append("\n" + "".join(_indent(r) for r in reserved))
    options = _standard_options(enum.options, _ENUM_OPTIONS) + _meta_option(enum.options, "enum_meta")
    if not reserved and (options or enum.value):
        out.append("\n")
    out.extend(_indent(f"option {o};\n") for o in options)
    for value in enum.value:
        value_options = _standard_options(value.options, _ENUM_VALUE_OPTIONS)
        value_options += _meta_option(value.options, "enum_value_meta")
        suffix = " " + _options_list(value_options) if value_options else ""
        out.append(_indent(f"{value.name} = {value.number}{suffix};\n"))
    out.append("}\n")
    return "".join(out)
