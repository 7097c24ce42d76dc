"""JSON -> Connect values, as Confluent's ``JsonSchemaData.toConnectData`` reads them.

`compile_decoder` builds, once per Connect schema, the function reading one parsed payload: a
missing property is the field's default or null, a JSON ``null`` is the default, or null when
optional, else an error; a ``oneOf`` struct takes the branch the value matches, as Confluent picks it.
"""

from __future__ import annotations

import base64
import binascii
import decimal
from collections.abc import Callable
from typing import Any

from kconnect.data.logical import Date, Decimal, Time, Timestamp
from kconnect.data.schema import Schema, Type
from kconnect.data.struct import Struct
from kconnect.errors import DataError
from kconnect_schema_registry.json_schema.options import (
    INTEGER_BITS,
    KEY_FIELD,
    VALUE_FIELD,
    JsonSchemaDataOptions,
    is_union,
)

Decoder = Callable[[Any], Any]

_BITS = INTEGER_BITS


def node_type(value: Any) -> str:
    """Jackson's name for the kind of a parsed JSON value (``STRING``, ``NUMBER``...)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "BOOLEAN"
    if isinstance(value, (int, float, decimal.Decimal)):
        return "NUMBER"
    if isinstance(value, str):
        return "STRING"
    return "ARRAY" if isinstance(value, list) else "OBJECT"


def _raise(error: Exception) -> Any:
    raise error


def compile_decoder(schema: Schema, options: JsonSchemaDataOptions) -> Decoder:
    """The function reading parsed JSON (`None` for JSON null or a missing property) into `schema`."""
    convert = _value_decoder(schema, options)
    default = schema.default_value
    optional = schema.optional

    def decoder(value: Any) -> Any:
        if value is None:
            if default is not None:
                return default
            if optional:
                return None
            # Confluent cannot tell a missing property from null here only for fields; see struct.
            raise DataError(f"Invalid null value for required {schema.type} field")
        return convert(value)

    return decoder


def _field_decoder(schema: Schema, options: JsonSchemaDataOptions) -> Callable[[dict[str, Any], str], Any]:
    """A struct field: a missing property is null even when required (Confluent's rule)."""
    decode = compile_decoder(schema, options)
    default = schema.default_value

    def read(node: dict[str, Any], name: str) -> Any:
        if name not in node:
            return default
        return decode(node[name])

    return read


def _value_decoder(schema: Schema, options: JsonSchemaDataOptions) -> Decoder:
    name = schema.name
    kind = schema.type
    if name == Decimal.LOGICAL_NAME:
        return lambda v: _decimal(schema, v)
    if name == Date.LOGICAL_NAME:
        return lambda v: Date.to_logical(schema, _int_node(v, "Date", "integer"))
    if name == Time.LOGICAL_NAME:
        return lambda v: Time.to_logical(schema, _int_node(v, "Time", "integer"))
    if name == Timestamp.LOGICAL_NAME:
        return lambda v: Timestamp.to_logical(schema, _integral(v))
    if kind in _BITS:
        bits = _BITS[kind]
        return lambda v: _wrap(_number_node(schema, v), bits)
    if kind is Type.FLOAT32 or kind is Type.FLOAT64:
        return lambda v: float(_number_node(schema, v))
    if kind is Type.BOOLEAN:
        return lambda v: v if isinstance(v, bool) else _raise(_wrong_node(schema, v))
    if kind is Type.STRING:
        return lambda v: v if isinstance(v, str) else _raise(_wrong_node(schema, v))
    if kind is Type.BYTES:
        return _bytes_node
    if kind is Type.ARRAY:
        assert schema.value_schema is not None
        element = compile_decoder(schema.value_schema, options)
        return lambda v: (
            [element(item) for item in v] if isinstance(v, list) else _raise(_wrong_node(schema, v))
        )
    if kind is Type.MAP:
        return _map_decoder(schema, options)
    if is_union(schema):
        return _union_decoder(schema, options)
    return _struct_decoder(schema, options)


def _wrong_node(schema: Schema, value: Any) -> DataError:
    return DataError(f"Invalid value for {schema.type} field: JSON {node_type(value)}")


def _number_node(schema: Schema, value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float, decimal.Decimal)):
        raise _wrong_node(schema, value)
    return value


def _wrap(value: Any, bits: int) -> int:
    """Java's narrowing (``shortValue``, ``intValue``...): truncate, then keep the low bits."""
    number = int(value)
    if bits == 64 and -(1 << 63) <= number < (1 << 63):
        return number
    mask = (1 << bits) - 1
    number &= mask
    return number - (1 << bits) if number >> (bits - 1) else number


def _int_node(value: Any, name: str, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not -(1 << 31) <= value < (1 << 31):
        raise DataError(
            f"Invalid type for {name}, underlying representation should be {what} but was {node_type(value)}"
        )
    return value


def _integral(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise DataError(
            "Invalid type for Timestamp, underlying representation should be integral but was "
            f"{node_type(value)}"
        )
    return value


def _bytes_node(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError) as e:
            raise DataError(f"Invalid bytes field: {e}") from e
    if isinstance(value, (int, float, decimal.Decimal)) and not isinstance(value, bool):
        return decimal.Decimal(str(value)) if isinstance(value, float) else decimal.Decimal(value)
    raise DataError(f"Invalid bytes field: JSON {node_type(value)}")


def _decimal(schema: Schema, value: Any) -> decimal.Decimal:
    if isinstance(value, (int, float, decimal.Decimal)) and not isinstance(value, bool):
        return decimal.Decimal(str(value)) if isinstance(value, float) else decimal.Decimal(value)
    if isinstance(value, str):
        try:
            return Decimal.to_logical(schema, base64.b64decode(value, validate=True))
        except (binascii.Error, ValueError, DataError) as e:
            raise DataError(f"Invalid bytes for Decimal field: {e}") from e
    raise DataError(
        "Invalid type for Decimal, underlying representation should be numeric or bytes but was "
        f"{node_type(value)}"
    )


def _map_decoder(schema: Schema, options: JsonSchemaDataOptions) -> Decoder:
    assert schema.key_schema is not None and schema.value_schema is not None
    key = compile_decoder(schema.key_schema, options)
    value = compile_decoder(schema.value_schema, options)
    if schema.key_schema.type is Type.STRING and not schema.key_schema.optional:

        def from_object(v: Any) -> Any:
            if not isinstance(v, dict):
                raise DataError(
                    f"Maps with string fields should be encoded as JSON objects, but found {node_type(v)}"
                )
            return {k: value(item) for k, item in v.items()}

        return from_object

    def from_entries(v: Any) -> Any:
        if not isinstance(v, list):
            raise DataError(
                "Maps with non-string fields should be encoded as JSON array of objects, but found "
                f"{node_type(v)}"
            )
        result = {}
        for entry in v:
            if not isinstance(entry, dict):
                raise DataError(f"Found invalid map entry instead of object: {node_type(entry)}")
            if len(entry) != 2:
                raise DataError(f"Found invalid map entry, expected length 2 but found :{len(entry)}")
            result[key(entry.get(KEY_FIELD))] = value(entry.get(VALUE_FIELD))
        return result

    return from_entries


def _struct_decoder(schema: Schema, options: JsonSchemaDataOptions) -> Decoder:
    fields = [(f.name, _field_decoder(f.schema, options)) for f in schema.fields]

    def struct(v: Any) -> Any:
        if not isinstance(v, dict):
            raise DataError(f"Structs should be encoded as JSON objects, but found {node_type(v)}")
        return Struct.unchecked(schema, [read(v, name) for name, read in fields])

    return struct


def _simple_match(schema: Schema, value: Any) -> bool:
    """Confluent's ``isInstanceOfSchemaTypeForSimpleSchema``."""
    kind = schema.type
    if kind in _BITS:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is Type.FLOAT32 or kind is Type.FLOAT64:
        return isinstance(value, (int, float, decimal.Decimal)) and not isinstance(value, bool)
    if kind is Type.BOOLEAN:
        return isinstance(value, bool)
    if kind is Type.STRING:
        return isinstance(value, str)
    if kind is Type.BYTES:
        return isinstance(value, decimal.Decimal)
    if kind is Type.ARRAY:
        return isinstance(value, list)
    if kind is Type.MAP:
        return isinstance(value, (dict, list))
    return False


def _struct_match(schema: Schema, value: Any) -> int:
    """Confluent's ``matchStructSchema``: how many property names (nested too) the struct shares."""
    if schema.type is not Type.STRUCT or not isinstance(value, dict):
        return 0
    shared = [f for f in schema.fields if f.name in value]
    return len(shared) + sum(_struct_match(f.schema, value[f.name]) for f in shared)


def _union_decoder(schema: Schema, options: JsonSchemaDataOptions) -> Decoder:
    branches = [(f, compile_decoder(f.schema, options)) for f in schema.fields]

    def union(v: Any) -> Any:
        best: tuple[int, int] | None = None
        for position, (f, _) in enumerate(branches):
            if _simple_match(f.schema, v):
                best = (1 << 30, position)
                break
            matching = _struct_match(f.schema, v)
            if matching > (best[0] if best else 0):
                best = (matching, position)
        if best is None:
            raise DataError("Did not find matching oneof field for data")
        f, decode = branches[best[1]]
        values: list[Any] = [None] * len(branches)
        values[f.index] = decode(v)
        return Struct.unchecked(schema, values)

    return union
