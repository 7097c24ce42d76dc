"""JSON for JsonConverter: text as Jackson writes it, schemas both ways, JSON read as Connect data.

Strings and numbers follow Jackson's rules (`kconnect.data.java_text`), checked against Kafka
4.3.1's JsonConverter byte for byte: compact output; characters beyond U+FFFF as escaped surrogate
pairs (``\\uD83D\\uDE00``), as Jackson's UTF-8 generator writes them; doubles as Java's
``Double.toString`` (``1.0``, ``1.0E20``), and NaN and the infinities as the strings ``"NaN"``,
``"Infinity"`` and ``"-Infinity"``.

A schema renders with its keys in JsonConverter's order: ``type``; then ``items``, or ``keys`` and
``values``, or ``fields``; then ``optional``, ``name``, ``version``, ``doc``, ``parameters``,
``default``. Each struct field is its schema's object with ``field`` appended last.
"""

from __future__ import annotations

import base64
import binascii
import decimal
import json
import re
from collections.abc import Callable
from decimal import Decimal as BigDecimal
from typing import Any

from kconnect.data.java_text import jackson_string
from kconnect.data.logical import LOGICAL_TYPES, Date, Decimal, Time, Timestamp
from kconnect.data.schema import Schema, SchemaBuilder, Type
from kconnect.data.struct import Struct
from kconnect.errors import DataError


def node_type(node: Any) -> str:
    """Jackson's name for a parsed JSON value's node type, for error messages."""
    if node is None:
        return "NULL"
    if isinstance(node, bool):
        return "BOOLEAN"
    if isinstance(node, (int, BigDecimal, float)):
        return "NUMBER"
    if isinstance(node, str):
        return "STRING"
    if isinstance(node, list):
        return "ARRAY"
    return "OBJECT"


# --- schema -> JSON ------------------------------------------------------------------------------

TYPE_NAMES: dict[Type, str] = {t: t.value for t in Type} | {Type.FLOAT32: "float", Type.FLOAT64: "double"}
_TYPES_BY_NAME: dict[str, Type] = {name: t for t, name in TYPE_NAMES.items()}


def schema_to_json(schema: Schema | None, render_default: Callable[[Schema], str]) -> str:
    """The schema's JSON text as JsonConverter writes it; `render_default` writes the default value."""
    if schema is None:
        return "null"
    parts = [f'{{"type":"{TYPE_NAMES[schema.type]}"']
    if schema.type is Type.ARRAY:
        parts.append(',"items":' + schema_to_json(schema.value_schema, render_default))
    elif schema.type is Type.MAP:
        parts.append(',"keys":' + schema_to_json(schema.key_schema, render_default))
        parts.append(',"values":' + schema_to_json(schema.value_schema, render_default))
    elif schema.type is Type.STRUCT:
        fields = [
            schema_to_json(f.schema, render_default)[:-1] + ',"field":' + jackson_string(f.name) + "}"
            for f in schema.fields
        ]
        parts.append(',"fields":[' + ",".join(fields) + "]")
    parts.append(',"optional":true' if schema.optional else ',"optional":false')
    if schema.name is not None:
        parts.append(',"name":' + jackson_string(schema.name))
    if schema.version is not None:
        parts.append(f',"version":{schema.version}')
    if schema.doc is not None:
        parts.append(',"doc":' + jackson_string(schema.doc))
    if schema.parameters is not None:
        params = ",".join(jackson_string(k) + ":" + jackson_string(v) for k, v in schema.parameters.items())
        parts.append(',"parameters":{' + params + "}")
    if schema.default_value is not None:
        parts.append(',"default":' + render_default(schema))
    parts.append("}")
    return "".join(parts)


# --- JSON -> schema ------------------------------------------------------------------------------


def schema_from_json(node: Any, read_default: Callable[[Schema, Any], Any]) -> Schema | None:
    """The Connect schema a parsed JSON schema describes (JsonConverter's ``asConnectSchema``).

    `read_default` converts the ``default`` node against the schema read so far. Raises DataError
    with Kafka's messages for malformed schemas.
    """
    if node is None:
        return None
    type_name = node.get("type") if isinstance(node, dict) else None
    if not isinstance(type_name, str):
        raise DataError("Schema must contain 'type' field")
    kind = _TYPES_BY_NAME.get(type_name)
    if kind is None:
        raise DataError(f"Unknown schema type: {type_name}")
    if kind is Type.ARRAY:
        items = node.get("items")
        if items is None:
            raise DataError("Array schema did not specify the element type")
        builder = SchemaBuilder.array(_required(schema_from_json(items, read_default)))
    elif kind is Type.MAP:
        if "keys" not in node:
            raise DataError("Map schema did not specify the key type")
        if "values" not in node:
            raise DataError("Map schema did not specify the value type")
        builder = SchemaBuilder.map(
            _required(schema_from_json(node["keys"], read_default)),
            _required(schema_from_json(node["values"], read_default)),
        )
    else:
        builder = SchemaBuilder(kind)
    if kind is Type.STRUCT:
        fields = node.get("fields")
        if not isinstance(fields, list):
            raise DataError('Struct schema\'s "fields" argument is not an array.')
        for field_node in fields:
            name = field_node.get("field") if isinstance(field_node, dict) else None
            if not isinstance(name, str):
                raise DataError("Struct schema's field name not specified properly")
            builder.field(name, _required(schema_from_json(field_node, read_default)))
    if node.get("optional") is True:
        builder.optional()
    else:
        builder.required()
    if isinstance(name := node.get("name"), str):
        builder.name(name)
    if isinstance(version := node.get("version"), int) and not isinstance(version, bool):
        builder.version(_wrap_int32(version))
    if isinstance(doc := node.get("doc"), str):
        builder.doc(doc)
    if isinstance(params := node.get("parameters"), dict):
        for key, value in params.items():
            if not isinstance(value, str):
                raise DataError("Schema parameters must have string values.")
            builder.parameter(key, value)
    if "default" in node:
        builder.default_value(read_default(builder.build(), node["default"]))
    return builder.build()


def _required(schema: Schema | None) -> Schema:
    # A JSON null where a nested schema belongs: the builder's own check gives Kafka's message.
    return schema  # type: ignore[return-value]


def _wrap_int32(number: int) -> int:
    return _wrap(number, 32)


def _wrap(number: int, bits: int) -> int:
    """`number` cut to `bits` as a two's complement integer, as Java's narrowing casts do."""
    number &= (1 << bits) - 1
    return number - (1 << bits) if number >= 1 << (bits - 1) else number


_BOOL = object()


def freeze(node: Any) -> Any:
    """A hashable twin of a parsed JSON value, used as a schema cache key (true and 1 stay apart)."""
    if isinstance(node, dict):
        return tuple((k, freeze(v)) for k, v in node.items())
    if isinstance(node, list):
        return (list, *(freeze(v) for v in node))
    if node is True or node is False:
        return (_BOOL, node)
    if isinstance(node, BigDecimal):
        return (BigDecimal, str(node))
    return node


# --- JSON -> Connect values ---------------------------------------------------------------------

_INT_BITS = {Type.INT8: 8, Type.INT16: 16, Type.INT32: 32, Type.INT64: 64}
_ENVELOPE_START = '{"schema":'
_PAYLOAD_KEY = ',"payload":'


def _reject_constant(name: str) -> Any:
    raise ValueError(f"Non-standard token '{name}'")


DECODER = json.JSONDecoder(parse_float=decimal.Decimal, parse_constant=_reject_constant)


class InexactNumberError(Exception):
    """A number was parsed as a float (by orjson) where its exact text decides the value."""


class JsonReader:
    """Converts parsed JSON to Connect values as Kafka's ``convertToConnect`` does.

    Kafka's leniencies are kept: a number where a STRING belongs reads as null, a non-boolean as
    false, an out-of-range integer wraps to the type's width. Numbers come as int and Decimal from
    `DECODER`; from orjson reals come as float, accepted where a FLOAT32/FLOAT64 or schemaless
    value belongs and refused (InexactNumberError) where an integer or a logical type does.
    """

    def __init__(self, replace_null_with_default: bool = True) -> None:
        self.replace_null_with_default = replace_null_with_default

    def to_connect(self, schema: Schema | None, node: Any) -> Any:
        """Convert a parsed JSON value to the Connect value of `schema` (Kafka's ``convertToConnect``)."""
        if schema is None:
            if node is None:
                return None
            kind = _inferred_type(node)
        else:
            kind = schema.type
            if node is None:
                if schema.default_value is not None and self.replace_null_with_default:
                    return schema.default_value
                if schema.optional:
                    return None
                raise DataError(f"Invalid null value for required {kind} field")
            if schema.name is not None and schema.name in LOGICAL_TYPES:
                if type(node) is float:
                    raise InexactNumberError
                return _logical_to_connect(schema, node)
        if kind in _INT_BITS:
            if type(node) is float:
                raise InexactNumberError
            number = (
                int(node) if isinstance(node, (int, decimal.Decimal)) and not isinstance(node, bool) else 0
            )
            return _wrap(number, _INT_BITS[kind])
        if kind is Type.FLOAT64 or kind is Type.FLOAT32:
            # FLOAT32 keeps the nearest double to the JSON text; it rounds to the same 32-bit float.
            return (
                float(node)
                if isinstance(node, (int, float, decimal.Decimal)) and not isinstance(node, bool)
                else 0.0
            )
        if kind is Type.BOOLEAN:
            return node is True
        if kind is Type.STRING:
            return node if isinstance(node, str) else None
        if kind is Type.BYTES:
            return _decode_base64(node) if isinstance(node, str) else None
        if kind is Type.ARRAY:
            element = schema.value_schema if schema is not None else None
            items = node if isinstance(node, list) else list(node.values()) if isinstance(node, dict) else []
            return [self.to_connect(element, x) for x in items]
        if kind is Type.MAP:
            return self._map_to_connect(schema, node)
        assert schema is not None
        if not isinstance(node, dict):
            raise DataError(f"Structs should be encoded as JSON objects, but found {node_type(node)}")
        values = []
        for f in schema.fields:
            converted = self.to_connect(f.schema, node.get(f.name))
            if converted is None and not f.schema.optional and f.schema.default_value is None:
                raise DataError(
                    f'Invalid value: null used for required field: "{f.name}", schema type: {f.schema.type}'
                )
            values.append(converted)
        return Struct.unchecked(schema, values)

    def _map_to_connect(self, schema: Schema | None, node: Any) -> dict[Any, Any]:
        key_schema = schema.key_schema if schema is not None else None
        value_schema = schema.value_schema if schema is not None else None
        if schema is None or key_schema is None or key_schema.type is Type.STRING:
            if not isinstance(node, dict):
                raise DataError(
                    f"Maps with string fields should be encoded as JSON objects, but found {node_type(node)}"
                )
            return {k: self.to_connect(value_schema, v) for k, v in node.items()}
        if not isinstance(node, list):
            found = node_type(node)
            raise DataError(
                f"Maps with non-string fields should be encoded as JSON array of tuples, but found {found}"
            )
        result = {}
        for entry in node:
            if not isinstance(entry, list):
                raise DataError(f"Found invalid map entry instead of array tuple: {node_type(entry)}")
            if len(entry) != 2:
                raise DataError(f"Found invalid map entry, expected length 2 but found :{len(entry)}")
            result[self.to_connect(key_schema, entry[0])] = self.to_connect(value_schema, entry[1])
        return result


def _inferred_type(node: Any) -> Type:
    if isinstance(node, bool):
        return Type.BOOLEAN
    if isinstance(node, int):
        return Type.INT64
    if isinstance(node, (decimal.Decimal, float)):
        return Type.FLOAT64
    if isinstance(node, str):
        return Type.STRING
    if isinstance(node, list):
        return Type.ARRAY
    return Type.MAP


def _decode_base64(text: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as e:
        raise DataError("Invalid bytes field") from e


def _logical_to_connect(schema: Schema, node: Any) -> Any:
    name = schema.name
    if name == Decimal.LOGICAL_NAME:
        if isinstance(node, decimal.Decimal):
            return node
        if isinstance(node, int) and not isinstance(node, bool):
            return decimal.Decimal(node)
        if isinstance(node, str):
            try:
                return Decimal.to_logical(schema, base64.b64decode(node, validate=True))
            except (binascii.Error, ValueError, DataError) as e:
                raise DataError("Invalid bytes for Decimal field") from e
        found = node_type(node)
        raise DataError(
            f"Invalid type for Decimal, underlying representation should be numeric or bytes but was {found}"
        )
    is_int = isinstance(node, int) and not isinstance(node, bool)
    if name == Timestamp.LOGICAL_NAME:
        if not is_int:
            found = node_type(node)
            raise DataError(
                f"Invalid type for Timestamp, underlying representation should be integral but was {found}"
            )
        return Timestamp.to_logical(schema, _wrap(node, 64))
    logical = Date if name == Date.LOGICAL_NAME else Time
    if not is_int or not -(2**31) <= node < 2**31:
        raise DataError(
            f"Invalid type for {logical.__name__}, underlying representation should be integer but was "
            f"{node_type(node)}"
        )
    return logical.to_logical(schema, node)


def parse_json(text: str) -> Any:
    """Parse the first JSON value of `text` as Jackson reads it (leading zeros allowed, rest ignored)."""
    start = len(text) - len(text.lstrip(" \t\n\r"))
    if start == len(text):
        return None  # Jackson reads empty input as a missing node
    error: ValueError | None
    try:
        node, stop = DECODER.raw_decode(text, start)
    except ValueError as e:
        node, stop, error = None, -1, e
    else:
        if not text[stop:].strip():
            return node
        error = None
    # Jackson also reads numbers with leading zeros ("0012"), which Python stops at.
    relaxed = _strip_leading_zeros(text)
    if relaxed != text:
        try:
            return DECODER.raw_decode(relaxed, start)[0]
        except ValueError:
            pass
    if error is None:
        return node  # Jackson ignores what follows the first value
    raise DataError(
        f"Converting byte[] to Kafka Connect data failed due to serialization error: {error}"
    ) from error


_STRING_OR_LEADING_ZEROS = re.compile(r'"(?:[^"\\]|\\.)*"|(?<![\w.])(-?)0+(?=\d)')


def _strip_leading_zeros(text: str) -> str:
    # Strings pass through unchanged; a number's leading zeros are dropped ("0012" -> "12").
    return _STRING_OR_LEADING_ZEROS.sub(lambda m: m.group(0) if m.group(0)[0] == '"' else m.group(1), text)


def compact_schema_text(text: str) -> str | None:
    """The schema's text in an envelope written compactly (``{"schema":S,"payload":...``), else None."""
    if not text.startswith(_ENVELOPE_START):
        return None
    try:
        _, stop = DECODER.raw_decode(text, len(_ENVELOPE_START))
    except ValueError:
        return None
    return text[len(_ENVELOPE_START) : stop] if text.startswith(_PAYLOAD_KEY, stop) else None
