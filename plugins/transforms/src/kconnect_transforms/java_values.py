"""Which Java class a kconnect value stands for, and Kafka's number conversions of replacement text.

MaskField and Cast choose what to do by the Java class of a value; with a schema the class follows
from the schema's type, without one from the Python type as Kafka's JsonConverter would read it
(whole numbers ``Long``, others ``Double``).
"""

from __future__ import annotations

import datetime
import decimal
import math
import re
from collections.abc import Mapping
from enum import Enum
from typing import Any

from kconnect.config.values import java_trim
from kconnect.data.java_text import to_float32
from kconnect.data.logical import Date, Decimal, Time, Timestamp
from kconnect.data.schema import Schema, Type
from kconnect.data.struct import Struct
from kconnect.data.values import parse_string
from kconnect.errors import DataError


class JavaKind(str, Enum):
    """The Java class of a Connect value, by its simple name."""

    BOOLEAN = "java.lang.Boolean"
    BYTE = "java.lang.Byte"
    SHORT = "java.lang.Short"
    INTEGER = "java.lang.Integer"
    LONG = "java.lang.Long"
    FLOAT = "java.lang.Float"
    DOUBLE = "java.lang.Double"
    STRING = "java.lang.String"
    BYTES = "[B"
    BIG_DECIMAL = "java.math.BigDecimal"
    DATE = "java.util.Date"
    LIST = "java.util.ArrayList"
    MAP = "java.util.HashMap"
    STRUCT = "org.apache.kafka.connect.data.Struct"
    OTHER = "java.lang.Object"

    @property
    def is_integer(self) -> bool:
        """Byte, Short, Integer or Long."""
        return self in (JavaKind.BYTE, JavaKind.SHORT, JavaKind.INTEGER, JavaKind.LONG)


_BY_TYPE = {
    Type.INT8: JavaKind.BYTE,
    Type.INT16: JavaKind.SHORT,
    Type.INT32: JavaKind.INTEGER,
    Type.INT64: JavaKind.LONG,
    Type.FLOAT32: JavaKind.FLOAT,
    Type.FLOAT64: JavaKind.DOUBLE,
    Type.BOOLEAN: JavaKind.BOOLEAN,
    Type.STRING: JavaKind.STRING,
    Type.BYTES: JavaKind.BYTES,
    Type.ARRAY: JavaKind.LIST,
    Type.MAP: JavaKind.MAP,
    Type.STRUCT: JavaKind.STRUCT,
}

_LOGICAL = {
    Decimal.LOGICAL_NAME: JavaKind.BIG_DECIMAL,
    Date.LOGICAL_NAME: JavaKind.DATE,
    Time.LOGICAL_NAME: JavaKind.DATE,
    Timestamp.LOGICAL_NAME: JavaKind.DATE,
}


def java_kind(value: Any, schema: Schema | None = None) -> JavaKind:
    """The Java class Kafka would hold for `value` of `schema` (None: schemaless)."""
    if schema is not None:
        if schema.name in _LOGICAL:
            return _LOGICAL[schema.name]
        return _BY_TYPE[schema.type]
    if isinstance(value, bool):
        return JavaKind.BOOLEAN
    if isinstance(value, int):
        return JavaKind.LONG
    if isinstance(value, float):
        return JavaKind.DOUBLE
    if isinstance(value, str):
        return JavaKind.STRING
    if isinstance(value, (bytes, bytearray)):
        return JavaKind.BYTES
    if isinstance(value, decimal.Decimal):
        return JavaKind.BIG_DECIMAL
    if isinstance(value, (datetime.date, datetime.time)):
        return JavaKind.DATE
    if isinstance(value, (list, tuple)):
        return JavaKind.LIST
    if isinstance(value, Mapping):
        return JavaKind.MAP
    if isinstance(value, Struct):
        return JavaKind.STRUCT
    return JavaKind.OTHER


_BITS = {JavaKind.BYTE: 8, JavaKind.SHORT: 16, JavaKind.INTEGER: 32, JavaKind.LONG: 64}


def wrap_integer(number: int, kind: JavaKind) -> int:
    """`number` narrowed as a Java cast to `kind` narrows it (high bits dropped)."""
    bits = _BITS[kind]
    wrapped = number & ((1 << bits) - 1)
    return wrapped - (1 << bits) if wrapped >= 1 << (bits - 1) else wrapped


def java_long_value(number: float | int | decimal.Decimal) -> int:
    """Java's ``Number.longValue()``: truncation toward zero, NaN as 0, saturating at the long range."""
    if isinstance(number, float):
        if math.isnan(number):
            return 0
        if math.isinf(number):
            return 2**63 - 1 if number > 0 else -(2**63)
    integral = int(number)
    return max(-(2**63), min(2**63 - 1, integral))


def number_from_text(text: str, kind: JavaKind) -> int | float:
    """`text` converted to a number of `kind` as Kafka's ``Values.convertTo<kind>`` converts a String."""
    parsed = parse_string(text).value
    if isinstance(parsed, bool) or not isinstance(parsed, (int, float, decimal.Decimal)):
        raise DataError(f"Unable to convert {text} (class java.lang.String) to a number")
    if kind.is_integer:
        return wrap_integer(java_long_value(parsed), kind)
    as_double = float(parsed)
    return to_float32(as_double) if kind is JavaKind.FLOAT else as_double


_INT_RANGE = {kind: (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) for kind, bits in _BITS.items()}


def _double_to_integer(number: float, bits: int) -> int:
    """Java's d2i / d2l: NaN is 0, out-of-range values saturate, others truncate toward zero."""
    if math.isnan(number):
        return 0
    high: int = 2 ** (bits - 1) - 1
    low = -high - 1
    if math.isinf(number):
        return high if number > 0 else low
    return max(low, min(high, int(number)))


def narrow_number(number: int | float | decimal.Decimal, kind: JavaKind) -> int | float:
    """Java's ``Number.<kind>Value()`` of a number: what Cast gives for a numeric input."""
    if kind is JavaKind.DOUBLE:
        return float(number)
    if kind is JavaKind.FLOAT:
        return to_float32(float(number))
    if isinstance(number, float):
        if kind is JavaKind.LONG:
            return _double_to_integer(number, 64)
        return wrap_integer(_double_to_integer(number, 32), kind)
    integral = int(number)  # BigDecimal truncates toward zero, then keeps the low bits
    if kind is JavaKind.LONG:
        return wrap_integer(integral, JavaKind.LONG)
    return wrap_integer(wrap_integer(integral, JavaKind.INTEGER), kind)


_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
_FLOAT_TEXT = re.compile(r"[+-]?(?:NaN|Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?)")


def parse_java_integer(text: str, kind: JavaKind) -> int:
    """``Byte.parseByte`` .. ``Long.parseLong``; ValueError (Java's NumberFormatException) when invalid."""
    low, high = _INT_RANGE[kind]
    if not _INTEGER_TEXT.fullmatch(text) or not low <= int(text) <= high:
        raise ValueError(f'For input string: "{text}"')
    return int(text)


def parse_java_floating(text: str, kind: JavaKind) -> float:
    """``Float.parseFloat`` / ``Double.parseDouble`` (decimal forms); ValueError when invalid."""
    trimmed = java_trim(text)
    if not _FLOAT_TEXT.fullmatch(trimmed):
        raise ValueError(f'For input string: "{text}"')
    body = trimmed[:-1] if trimmed[-1] in "fFdD" and "Infinity" not in trimmed else trimmed
    number = float(body.replace("Infinity", "inf"))
    return to_float32(number) if kind is JavaKind.FLOAT else number
