"""Connect values -> JSON, as Confluent's ``JsonSchemaData.fromConnectData`` writes them.

`compile_encoder` builds, once per Connect schema, the function for one record: it turns a Connect
value into what orjson writes (numeric decimals as `orjson.Fragment`, so their digits are
``BigDecimal.toString``'s). Nulls follow Confluent's rules: a null with a default writes the
default (unless ``ignore.default.for.nullables``), a null optional writes ``null``, and a null of a
required schema without default is left out (`MISSING`).
"""

from __future__ import annotations

import base64
import datetime
import decimal
from collections.abc import Callable
from typing import Any

import orjson
from kconnect.data.java_text import java_decimal_str, java_double_repr, java_float_repr
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

Encoder = Callable[[Any], Any]

#: What an encoder returns for a value Confluent leaves out (a null required field without default).
MISSING: Any = object()

_BITS = INTEGER_BITS


def _invalid(schema: Schema, value: Any) -> DataError:
    return DataError(f"Invalid type for {schema.type}: {type(value)}")


def compile_encoder(schema: Schema, options: JsonSchemaDataOptions) -> Encoder:
    """The function writing values of `schema` as JSON-ready Python values (MISSING: left out)."""
    encode = _value_encoder(schema, options)
    default = schema.default_value
    use_default = default is not None and not options.ignore_default_for_nullables
    on_null = encode(default) if use_default else (None if schema.optional else MISSING)

    def encoder(value: Any) -> Any:
        return on_null if value is None else encode(value)

    return encoder


def _value_encoder(schema: Schema, options: JsonSchemaDataOptions) -> Encoder:
    name = schema.name
    kind = schema.type
    if name == Decimal.LOGICAL_NAME and kind is Type.BYTES:
        return _decimal_encoder(schema, options)
    if name == Date.LOGICAL_NAME:
        return _logical_encoder(schema, Date.from_logical, datetime.date, "Date", "Date")
    if name == Time.LOGICAL_NAME:
        return _logical_encoder(schema, Time.from_logical, datetime.time, "Time", "Date")
    if name == Timestamp.LOGICAL_NAME:
        return _logical_encoder(schema, Timestamp.from_logical, datetime.datetime, "Timestamp", "Date")
    if kind in _BITS:
        return _integer_encoder(schema)
    if kind is Type.FLOAT32:
        return lambda v: _java_number(java_float_repr(_number(schema, v)))
    if kind is Type.FLOAT64:
        return lambda v: _double(_number(schema, v))
    if kind is Type.BOOLEAN:
        return lambda v: v if isinstance(v, bool) else _raise(_invalid(schema, v))
    if kind is Type.STRING:
        return lambda v: v if isinstance(v, str) else _raise(_invalid(schema, v))
    if kind is Type.BYTES:
        return lambda v: _bytes(schema, v)
    if kind is Type.ARRAY:
        assert schema.value_schema is not None
        element = _nested(compile_encoder(schema.value_schema, options))
        return lambda v: (
            [element(item) for item in v] if isinstance(v, (list, tuple)) else _raise(_invalid(schema, v))
        )
    if kind is Type.MAP:
        return _map_encoder(schema, options)
    return _struct_encoder(schema, options)


def _raise(error: Exception) -> Any:
    raise error


def _nested(encode: Encoder) -> Encoder:
    """Inside arrays and maps Jackson stores a left-out value as ``null``."""

    def encoder(value: Any) -> Any:
        result = encode(value)
        return None if result is MISSING else result

    return encoder


def _double(number: float) -> Any:
    """A double as Jackson writes it (``Double.toString``): orjson's digits agree in [1e-3, 1e7)."""
    if 1e-3 <= abs(number) < 1e7 or number == 0.0:
        return number
    return _java_number(java_double_repr(number))


def _java_number(text: str) -> Any:
    """Java's text of a float or double as JSON: plain digits as a float, others verbatim.

    Jackson writes ``1.0E20`` where orjson would write ``1e20``, and NaN and infinities as strings.
    """
    if "E" in text:
        return orjson.Fragment(text)
    if text in ("NaN", "Infinity", "-Infinity"):
        return text
    return float(text)


def _number(schema: Schema, value: Any) -> float:
    if isinstance(value, float):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    raise _invalid(schema, value)


def _integer_encoder(schema: Schema) -> Encoder:
    bits = _BITS[schema.type]
    low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1

    def encoder(value: Any) -> Any:
        if type(value) is int and low <= value <= high:
            return value
        if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
            return int(value)  # an int subclass (an IntEnum) is written as its number
        raise _invalid(schema, value)

    return encoder


def _bytes(schema: Schema, value: Any) -> Any:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, decimal.Decimal):
        return orjson.Fragment(java_decimal_str(value))
    raise DataError(f"Invalid type for bytes type: {type(value)}")


def _decimal_encoder(schema: Schema, options: JsonSchemaDataOptions) -> Encoder:
    numeric = options.decimal_numeric

    def encoder(value: Any) -> Any:
        if not isinstance(value, decimal.Decimal):
            raise DataError(f"Invalid type for Decimal, expected BigDecimal but was {type(value)}")
        if numeric:
            return orjson.Fragment(java_decimal_str(value))
        return base64.b64encode(Decimal.from_logical(schema, value)).decode("ascii")

    return encoder


def _logical_encoder(
    schema: Schema, convert: Callable[[Schema, Any], int], kind: type, name: str, expected: str
) -> Encoder:
    def encoder(value: Any) -> Any:
        if not isinstance(value, kind):
            raise DataError(f"Invalid type for {name}, expected {expected} but was {type(value)}")
        return convert(schema, value)

    return encoder


def _map_encoder(schema: Schema, options: JsonSchemaDataOptions) -> Encoder:
    assert schema.key_schema is not None and schema.value_schema is not None
    key = _nested(compile_encoder(schema.key_schema, options))
    value = _nested(compile_encoder(schema.value_schema, options))
    if schema.key_schema.type is Type.STRING and not schema.key_schema.optional:

        def as_object(v: Any) -> Any:
            if not isinstance(v, dict):
                raise _invalid(schema, v)
            return {key(k): value(item) for k, item in v.items()}

        return as_object

    def as_entries(v: Any) -> Any:
        if not isinstance(v, dict):
            raise _invalid(schema, v)
        return [{KEY_FIELD: key(k), VALUE_FIELD: value(item)} for k, item in v.items()]

    return as_entries


def _struct_encoder(schema: Schema, options: JsonSchemaDataOptions) -> Encoder:
    fields = [(f.name, compile_encoder(f.schema, options)) for f in schema.fields]
    without_default = options.ignore_default_for_nullables
    if is_union(schema):
        branches = [encode for _, encode in fields]

        def union(v: Any) -> Any:
            _check_struct(schema, v)
            for raw, f, encode in zip(v.values(), schema.fields, branches, strict=True):
                item = raw if raw is not None or without_default else f.schema.default_value
                if item is not None:
                    return encode(item)
            return on_null()

        def on_null() -> Any:
            if schema.default_value is not None and not without_default:
                return union(schema.default_value)
            return None if schema.optional else MISSING

        return union
    defaults = [f.schema.default_value for f in schema.fields]

    def struct(v: Any) -> Any:
        _check_struct(schema, v)
        out = {}
        for raw, default, (name, encode) in zip(v.values(), defaults, fields, strict=True):
            node = encode(raw if raw is not None or without_default else default)
            if node is not MISSING:
                out[name] = node
        return out

    return struct


def _check_struct(schema: Schema, value: Any) -> None:
    if not isinstance(value, Struct):
        raise _invalid(schema, value)
    if value.schema is not schema and value.schema != schema:
        raise DataError("Mismatching schema.")
