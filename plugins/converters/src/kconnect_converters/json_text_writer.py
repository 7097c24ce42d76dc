"""JsonTextWriter: Connect values as JSON text, exactly as Kafka's JsonConverter writes them.

This is the exact path, the oracle for every faster one: a schema is compiled once into a function
that walks a value and returns its JSON text, checking the value against the schema as Kafka's
``convertToJson`` does (same DataError messages). The text follows Jackson's rules
(`kconnect.data.java_text`): its escapes, Java's float forms; decimals as base64 or numbers.
"""

from __future__ import annotations

import base64
import datetime
import decimal
from collections.abc import Callable, Mapping
from typing import Any

from kconnect.data.java_text import jackson_double, jackson_float, jackson_string, java_decimal_str
from kconnect.data.logical import LOGICAL_TYPES, Date, Decimal, Time, Timestamp, epoch_millis
from kconnect.data.schema import Schema, Type
from kconnect.data.struct import Struct
from kconnect.errors import DataError

Writer = Callable[[Any], str]

_INT_RANGES = {Type.INT8: 8, Type.INT16: 16, Type.INT32: 32, Type.INT64: 64}
_REQUIRED_NULL = "Conversion error: null value for field that is required and has no default value"


def _b64(data: bytes | bytearray | memoryview) -> str:
    return '"' + base64.b64encode(data).decode("ascii") + '"'


class JsonTextWriter:
    """Compiles schemas into functions writing their values as Jackson's JSON text.

    The converter makes one per configuration (``decimal.format``, ``replace.null.with.default``)
    and caches what it compiles, per schema.
    """

    def __init__(self, decimal_numeric: bool = False, replace_null_with_default: bool = True) -> None:
        self.decimal_numeric = decimal_numeric
        self.replace_null_with_default = replace_null_with_default

    def render_default(self, schema: Schema) -> str:
        """The JSON text of `schema`'s default value, for the schema's own ``"default"`` key."""
        return self._compile_value(schema)(schema.default_value)

    def compile_writer(self, schema: Schema | None) -> Writer:
        """A function writing values of `schema` (None for schemaless) as JSON text."""
        if schema is None:
            return self.write_any
        body = self._compile_value(schema)
        default = schema.default_value
        if default is not None and self.replace_null_with_default:
            default_text = body(default)
            return lambda v: default_text if v is None else body(v)
        if schema.optional:
            return lambda v: "null" if v is None else body(v)

        def required(v: Any) -> str:
            if v is None:
                raise DataError(_REQUIRED_NULL)
            return body(v)

        return required

    def _compile_value(self, schema: Schema) -> Writer:
        """A writer for non-null values of `schema`."""
        kind = schema.type
        logical = LOGICAL_TYPES.get(schema.name) if schema.name is not None else None
        if logical is not None:
            return self._compile_logical(schema, logical)
        if kind in _INT_RANGES:
            bits = _INT_RANGES[kind]
            low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1

            def write_int(v: Any) -> str:
                if type(v) is not int and (isinstance(v, bool) or not isinstance(v, int)):
                    raise DataError(f"Invalid type for {kind}: {type(v)}")
                if not low <= v <= high:
                    raise DataError(f"Invalid value {v} for {kind}: out of range")
                return str(int(v))

            return write_int
        if kind is Type.FLOAT64 or kind is Type.FLOAT32:
            render = jackson_double if kind is Type.FLOAT64 else jackson_float

            def write_float(v: Any) -> str:
                if type(v) is float:
                    return render(v)
                if isinstance(v, bool) or not isinstance(v, (int, float)):
                    raise DataError(f"Invalid type for {kind}: {type(v)}")
                return render(float(v))

            return write_float
        if kind is Type.BOOLEAN:
            return _write_bool
        if kind is Type.STRING:
            return _write_str
        if kind is Type.BYTES:
            return _write_bytes
        if kind is Type.ARRAY:
            element = self.compile_writer(schema.value_schema)

            def write_array(v: Any) -> str:
                if not isinstance(v, (list, tuple)):
                    raise DataError(f"Invalid type for ARRAY: {type(v)}")
                return "[" + ",".join([element(x) for x in v]) + "]"

            return write_array
        if kind is Type.MAP:
            return self._compile_map(schema)
        return self._compile_struct(schema)

    def _compile_map(self, schema: Schema) -> Writer:
        if schema.key_schema is None:
            return self.write_any
        key = self.compile_writer(schema.key_schema)
        item = self.compile_writer(schema.value_schema)
        if schema.key_schema.type is Type.STRING:

            def write_object(v: Any) -> str:
                if not isinstance(v, Mapping):
                    raise DataError(f"Invalid type for MAP: {type(v)}")
                out = []
                for k, x in v.items():
                    text = key(k)
                    out.append((text if text[0] == '"' else '"' + text + '"') + ":" + item(x))
                return "{" + ",".join(out) + "}"

            return write_object

        def write_pairs(v: Any) -> str:
            if not isinstance(v, Mapping):
                raise DataError(f"Invalid type for MAP: {type(v)}")
            return "[" + ",".join(["[" + key(k) + "," + item(x) + "]" for k, x in v.items()]) + "]"

        return write_pairs

    def _compile_struct(self, schema: Schema) -> Writer:
        keys = [jackson_string(f.name) + ":" for f in schema.fields]
        writers = [self.compile_writer(f.schema) for f in schema.fields]
        pairs = list(zip(keys, writers, strict=True))

        def write_struct(v: Any) -> str:
            if type(v) is not Struct or (v.schema is not schema and v.schema != schema):
                raise DataError("Mismatching schema.")
            return "{" + ",".join([k + w(x) for (k, w), x in zip(pairs, v.values(), strict=True)]) + "}"

        return write_struct

    def _compile_logical(self, schema: Schema, logical: type) -> Writer:
        name = logical.__name__
        if logical is Decimal:
            numeric = self.decimal_numeric

            def write_decimal(v: Any) -> str:
                if not isinstance(v, decimal.Decimal):
                    raise DataError(f"Invalid type for Decimal, expected Decimal but was {type(v)}")
                if numeric:
                    if not v.is_finite():
                        raise DataError(f"Decimal value {v} is not a finite number")
                    return java_decimal_str(v)
                return _b64(Decimal.from_logical(schema, v))

            return write_decimal
        temporal_types: dict[type, type[Any]] = {
            Date: datetime.date,
            Time: datetime.time,
            Timestamp: datetime.datetime,
        }
        expected = temporal_types[logical]

        def write_temporal(v: Any) -> str:
            if not isinstance(v, expected):
                raise DataError(f"Invalid type for {name}, expected {expected.__name__} but was {type(v)}")
            if logical is Timestamp:
                return str(epoch_millis(v))
            if logical is Date:
                return str(Date.from_logical(schema, v))
            return str(Time.from_logical(schema, v))

        return write_temporal

    def write_any(self, v: Any) -> str:
        """Write a schemaless value, choosing the JSON form from its Python type."""
        if v is None:
            return "null"
        if isinstance(v, str):
            return jackson_string(v)
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            return str(int(v))
        if isinstance(v, float):
            return jackson_double(v)
        if isinstance(v, (bytes, bytearray, memoryview)):
            return _b64(v)
        if isinstance(v, (list, tuple)):
            return "[" + ",".join([self.write_any(x) for x in v]) + "]"
        if isinstance(v, Mapping):
            if all(isinstance(k, str) for k in v):
                members = [jackson_string(k) + ":" + self.write_any(x) for k, x in v.items()]
                return "{" + ",".join(members) + "}"
            return (
                "["
                + ",".join(["[" + self.write_any(k) + "," + self.write_any(x) + "]" for k, x in v.items()])
                + "]"
            )
        if isinstance(v, Struct):
            raise DataError("Mismatching schema.")
        raise DataError(f"Python class {type(v)} does not have corresponding schema type.")


def _write_bool(v: Any) -> str:
    if v is True:
        return "true"
    if v is False:
        return "false"
    raise DataError(f"Invalid type for BOOLEAN: {type(v)}")


def _write_str(v: Any) -> str:
    if isinstance(v, str):
        return jackson_string(v)
    raise DataError(f"Invalid type for STRING: {type(v)}")


def _write_bytes(v: Any) -> str:
    if isinstance(v, (bytes, bytearray, memoryview)):
        return _b64(v)
    raise DataError(f"Invalid type for bytes type: {type(v)}")
