"""Connect values to JSON and back, as Confluent's ``JsonSchemaData`` converts them.

`compile_encoder` and `compile_decoder` build, once per Connect schema, a function for one record:
the encoder turns a Connect value into what orjson writes (numeric decimals as `orjson.Fragment`,
so their digits are ``BigDecimal.toString``'s), the decoder turns parsed JSON into Connect values.
Null and missing values follow Confluent's rules: a null with a default writes the default, a null
optional writes ``null``, and a null field of a required schema without default is left out.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import decimal
from collections.abc import Callable
from typing import Any

import orjson
from kconnect.data.logical import Date, Decimal, Time, Timestamp
from kconnect.data.schema import Schema, Type
from kconnect.data.struct import Struct
from kconnect.data.values import java_decimal_str, java_float_repr
from kconnect.errors import DataError
from kconnect_schema_registry.json_schema.options import (
    JSON_TYPE_ONE_OF,
    KEY_FIELD,
    VALUE_FIELD,
    JsonSchemaDataOptions,
)

Encoder = Callable[[Any], Any]
Decoder = Callable[[Any], Any]

#: What an encoder returns for a value Confluent leaves out (a null required field without default).
MISSING: Any = object()

_BITS = {Type.INT8: 8, Type.INT16: 16, Type.INT32: 32, Type.INT64: 64}


def is_union(schema: Schema) -> bool:
    """Whether `schema` is the struct Confluent reads a ``oneOf`` into."""
    return schema.type is Type.STRUCT and schema.name == JSON_TYPE_ONE_OF


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


def _invalid(schema: Schema, value: Any) -> DataError:
    return DataError(f"Invalid type for {schema.type}: {type(value)}")


# --- Connect -> JSON ------------------------------------------------------------------------------


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
        return lambda v: float(java_float_repr(_number(schema, v)))
    if kind is Type.FLOAT64:
        return lambda v: _number(schema, v)
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
        if type(value) is not int or not low <= value <= high:
            if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
                return int(value)
            raise _invalid(schema, value)
        return value

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


# --- JSON -> Connect ------------------------------------------------------------------------------


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
        return Struct._trusted(schema, [read(v, name) for name, read in fields])

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
        return Struct._trusted(schema, values)

    return union
