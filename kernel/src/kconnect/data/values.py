"""Values without schemas: infer a schema, render a value as text and parse it back (Kafka's `Values`).

`SimpleHeaderConverter` writes header values with `convert_to_string` and reads them with
`parse_string`, which finds the most specific type the text can hold: ``true``, ``12`` (INT8),
``3.5`` (FLOAT32), ``[1,2]``, ``{"a":1}``, ``2024-01-02`` (Date), ``12:00:00.000Z`` (Time),
``2024-01-02T12:00:00.000Z`` (Timestamp); anything else stays a string. The parser keeps Kafka's
token rules, quirks included, so headers round-trip between Java and Python workers.

`java_to_string` renders a value as Java's ``toString`` prints the equivalent Java object, its
numbers by the rules of `kconnect.data.java_text`.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import math
import re
from collections.abc import Mapping
from typing import Any

from kconnect.data.java_text import java_decimal_str, java_double_repr, java_float_repr, to_float32
from kconnect.data.logical import MILLIS_PER_DAY, Date, Decimal, Time, Timestamp, epoch_millis
from kconnect.data.schema import (
    BOOLEAN_SCHEMA,
    BYTES_SCHEMA,
    FLOAT32_SCHEMA,
    FLOAT64_SCHEMA,
    INT8_SCHEMA,
    INT16_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    STRING_SCHEMA,
    Schema,
    SchemaAndValue,
    SchemaBuilder,
    Type,
)
from kconnect.data.struct import Struct
from kconnect.errors import DataError

# --- Java's toString ------------------------------------------------------------------------------


def java_to_string(value: Any, schema: Schema | None = None) -> str:
    """`value` as Java's ``toString`` would print the equivalent Java object."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if schema is not None and schema.type is Type.FLOAT32:
            return java_float_repr(value)
        return java_double_repr(value)
    if isinstance(value, decimal.Decimal):
        return java_decimal_str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(java_to_string(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{java_to_string(k)}={java_to_string(v)}" for k, v in value.items()) + "}"
    if isinstance(value, Struct):
        shown = zip(value.schema.fields, value.values(), strict=True)
        fields = (f"{f.name}={java_to_string(v, f.schema)}" for f, v in shown if v is not None)
        return "Struct{" + ",".join(fields) + "}"
    if isinstance(value, (datetime.date, datetime.time)):
        return java_date_string(value)
    return str(value)


_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def java_date_string(value: datetime.date | datetime.time) -> str:
    """A Connect Date, Time or Timestamp value as Java's ``java.util.Date.toString`` prints it in UTC.

    Kafka's logical values are ``java.util.Date`` objects, so ``toString`` (FileStreamSink,
    StringConverter) gives ``Tue Jan 02 03:04:05 UTC 2024``: seconds, no milliseconds, English names.
    A JVM prints its own default time zone; kconnect prints UTC, the zone Connect's values are in.
    """
    if isinstance(value, datetime.datetime):
        moment = value.astimezone(datetime.timezone.utc) if value.tzinfo else value
    elif isinstance(value, datetime.date):
        moment = datetime.datetime(value.year, value.month, value.day)
    else:
        moment = datetime.datetime.combine(datetime.date(1970, 1, 1), value.replace(tzinfo=None))
    return (
        f"{_DAYS[moment.weekday()]} {_MONTHS[moment.month - 1]} {moment.day:02d} "
        f"{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d} UTC {moment.year}"
    )


# --- schema inference -----------------------------------------------------------------------------


def infer_schema(value: Any) -> Schema | None:
    """The schema Kafka would infer for a schemaless value, or None when it cannot.

    `int` infers INT64 and `float` FLOAT64 (Python's ints and floats are Java's longs and
    doubles); lists and maps need elements of one type; logical values infer nothing, as in Kafka.
    """
    if isinstance(value, str):
        return STRING_SCHEMA
    if isinstance(value, bool):
        return BOOLEAN_SCHEMA
    if isinstance(value, int):
        return INT64_SCHEMA
    if isinstance(value, float):
        return FLOAT64_SCHEMA
    if isinstance(value, (bytes, bytearray)):
        return BYTES_SCHEMA
    if isinstance(value, (list, tuple)):
        element = _detect(value)
        return None if element is None else SchemaBuilder.array(element).build()
    if isinstance(value, Mapping):
        keys, values = _detect(value.keys()), _detect(value.values())
        return None if keys is None or values is None else SchemaBuilder.map(keys, values).build()
    if isinstance(value, Struct):
        return value.schema
    return None


def _detect(items: Any) -> Schema | None:
    known: Type | None = None
    optional = False
    for item in items:
        if item is None:
            optional = True
            continue
        schema = infer_schema(item)
        if schema is None or (known is not None and schema.type is not known):
            return None
        known = schema.type
    if known is None:
        return None
    return Schema(known, optional=optional)


# --- rendering -----------------------------------------------------------------------------------


def convert_to_string(schema: Schema | None, value: Any) -> str | None:
    """`value` as Kafka renders it in a header: strings bare, containers as JSON-like text.

    Nested strings are quoted with ``\\`` and ``"`` escaped; bytes are base64; dates, times and
    timestamps use ISO 8601 (``2024-01-02``, ``12:00:00.000Z``, ``2024-01-02T12:00:00.000Z``).
    """
    if value is None:
        return None
    if schema is not None and schema.type is Type.FLOAT32 and isinstance(value, float):
        return java_float_repr(value)
    out: list[str] = []
    _append(out, value, embedded=False)
    return "".join(out)


def _append(out: list[str], value: Any, embedded: bool) -> None:
    if value is None:
        out.append("null")
    elif isinstance(value, bool):
        out.append("true" if value else "false")
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, float):
        out.append(java_double_repr(value))
    elif isinstance(value, decimal.Decimal):
        out.append(java_decimal_str(value))
    elif isinstance(value, str):
        out.append('"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"' if embedded else value)
    elif isinstance(value, (bytes, bytearray)):
        encoded = base64.b64encode(value).decode("ascii")
        out.append(f'"{encoded}"' if embedded else encoded)
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _append(out, item, True)
        out.append("]")
    elif isinstance(value, Mapping):
        out.append("{")
        for i, (key, item) in enumerate(value.items()):
            if i:
                out.append(",")
            _append(out, key, True)
            out.append(":")
            _append(out, item, True)
        out.append("}")
    elif isinstance(value, Struct):
        out.append("{")
        for i, f in enumerate(value.schema.fields):
            if i:
                out.append(",")
            _append(out, f.name, True)
            out.append(":")
            _append(out, value.get(f), True)
        out.append("}")
    elif isinstance(value, (datetime.date, datetime.time)):
        out.append(_format_temporal(value))
    else:
        raise DataError(f"Failed to serialize unexpected value type {type(value).__name__}: {value!r}")


def _format_temporal(value: datetime.date | datetime.time) -> str:
    # Kafka picks the format from the instant, not the schema: before the first day it prints a
    # time, on a day boundary a date, otherwise a timestamp.
    if isinstance(value, datetime.datetime):
        millis = epoch_millis(value)
    elif isinstance(value, datetime.date):
        millis = (value - datetime.date(1970, 1, 1)).days * MILLIS_PER_DAY
    else:
        millis = Time.from_logical(Time.SCHEMA, value)
    moment = datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=millis)
    clock = f"{moment:%H:%M:%S}.{moment.microsecond // 1000:03d}Z"
    if millis < MILLIS_PER_DAY:
        return clock
    day = f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"
    return day if millis % MILLIS_PER_DAY == 0 else f"{day}T{clock}"


# --- parsing -------------------------------------------------------------------------------------

_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_TIME = re.compile(r"(\d{2}):(\d{2}):(\d{2})\.(\d{3})Z")
_INT_WIDTHS = ((INT8_SCHEMA, 2**7), (INT16_SCHEMA, 2**15), (INT32_SCHEMA, 2**31), (INT64_SCHEMA, 2**63))


def parse_string(text: str | None) -> SchemaAndValue:
    """Parse header text into the most specific schema and value (Kafka's ``Values.parseString``).

    Raises DataError only for text that ends inside a quoted string; text that does not parse
    as a value comes back as a STRING.
    """
    if text is None:
        return SchemaAndValue.NULL
    if not text:
        return SchemaAndValue(STRING_SCHEMA, text)
    return _ValueParser(text).parse(embedded=False) or SchemaAndValue.NULL


def parse_number(token: str) -> SchemaAndValue | None:
    """The narrowest integer, float or Decimal schema for a numeric token, or None if not a number."""
    if not _NUMBER.fullmatch(token):
        return None
    number = decimal.Decimal(token)
    if number == number.to_integral_value():
        integral = int(number)
        for schema, bound in _INT_WIDTHS:
            if -bound <= integral < bound:
                return SchemaAndValue(schema, integral)
    exponent = number.as_tuple().exponent
    assert isinstance(exponent, int)
    if exponent != 0:
        as_double = float(number)
        if not math.isinf(to_float32(as_double)):
            return SchemaAndValue(FLOAT32_SCHEMA, as_double)
        if not math.isinf(as_double):
            return SchemaAndValue(FLOAT64_SCHEMA, as_double)
    return SchemaAndValue(Decimal.schema(-exponent), number)


def parse_temporal(token: str) -> SchemaAndValue | None:
    """A Date, Time or Timestamp for ISO 8601 text in Kafka's three formats, else None."""
    token = token.replace("\\:", ":")
    try:
        if len(token) == 13 and (t := _TIME.fullmatch(token)):
            hour, minute, second, milli = map(int, t.groups())
            return SchemaAndValue(Time.SCHEMA, datetime.time(hour, minute, second, milli * 1000))
        if len(token) == 24 and token[10] == "T":
            d, t = _DATE.fullmatch(token[:10]), _TIME.fullmatch(token[11:])
            if d and t:
                year, month, day = map(int, d.groups())
                hour, minute, second, milli = map(int, t.groups())
                utc = datetime.timezone.utc
                moment = datetime.datetime(year, month, day, hour, minute, second, milli * 1000, tzinfo=utc)
                return SchemaAndValue(Timestamp.SCHEMA, moment)
        if len(token) == 10 and (d := _DATE.fullmatch(token)):
            return SchemaAndValue(Date.SCHEMA, datetime.date(*map(int, d.groups())))
    except ValueError:
        return None
    return None


def _is_blank(token: str | None) -> bool:
    return token is None or not token.strip("".join(map(chr, range(33))))


def _java_trim(token: str) -> str:
    return token.strip("".join(map(chr, range(33))))


_DELIMITERS = frozenset(':,{}[]"')


class _Tokens:
    """Kafka's tokenizer: delimiters are single tokens unless escaped with a backslash."""

    def __init__(self, original: str) -> None:
        self.original = original
        self.index = 0
        self.peeked: str | None = None
        self.previous: str | None = None

    def mark(self) -> int:
        return self.index - (len(self.peeked) if self.peeked is not None else 0)

    def rewind_to(self, position: int) -> None:
        self.index, self.peeked, self.previous = position, None, None

    def has_next(self) -> bool:
        return self.peeked is not None or self.index < len(self.original)

    def _consume(self) -> str:
        text, start, escaped = self.original, self.index, False
        while self.index < len(text):
            char = text[self.index]
            if char == "\\":
                escaped = not escaped
            elif char in _DELIMITERS and not escaped:
                if start < self.index:
                    return text[start : self.index]
                self.index += 1
                return text[start : start + 1]
            else:
                escaped = False
            self.index += 1
        return text[start:]

    def next(self) -> str:
        if self.peeked is not None:
            self.previous, self.peeked = self.peeked, None
        else:
            self.previous = self._consume()
        return self.previous

    def next_n(self, count: int) -> str | None:
        start = self.mark()
        for _ in range(count):
            if not self.has_next():
                self.rewind_to(start)
                return None
            self.next()
        return self.original[start : self.index]

    def can_consume(self, expected: str) -> bool:
        if self.peeked is None:
            if not self.has_next():
                return False
            self.peeked = self._consume()
        while _is_blank(self.peeked) and self.index < len(self.original):
            self.peeked = self._consume()
        if _java_trim(self.peeked) == expected:
            self.peeked = None
            return True
        return False


class _ValueParser:
    """Kafka's ``Values.ValueParser`` over `_Tokens`."""

    def __init__(self, text: str) -> None:
        self.tokens = _Tokens(text)

    def _literal(self, embedded: bool, literal: str) -> bool:
        start = self.tokens.mark()
        if self.tokens.can_consume(literal) and (embedded or not self.tokens.has_next()):
            return True
        self.tokens.rewind_to(start)
        return False

    def parse(self, embedded: bool) -> SchemaAndValue | None:
        tokens = self.tokens
        if not tokens.has_next():
            return None
        if embedded and tokens.can_consume('"'):
            return self._quoted()
        if self._literal(embedded, "null"):
            return None
        if self._literal(embedded, "true"):
            return SchemaAndValue(BOOLEAN_SCHEMA, True)
        if self._literal(embedded, "false"):
            return SchemaAndValue(BOOLEAN_SCHEMA, False)
        start = tokens.mark()
        try:
            if tokens.can_consume("["):
                return self._array()
            if tokens.can_consume("{"):
                return self._map()
        except DataError:
            tokens.rewind_to(start)
        token = tokens.next()
        if _is_blank(token):
            return SchemaAndValue(STRING_SCHEMA, token)
        token = _java_trim(token)
        if token[0].isdecimal():
            position = tokens.mark()
            rest = tokens.next_n(4)
            temporal = parse_temporal(token + rest) if rest is not None else None
            if temporal is not None:
                return temporal
            tokens.rewind_to(position)
            temporal = parse_temporal(token)
            if temporal is not None:
                return temporal
        if token[0].isdecimal() or token[0] in "+-":
            number = parse_number(token)
            if number is not None:
                return number
        if embedded:
            raise DataError("Failed to parse embedded value")
        return SchemaAndValue(STRING_SCHEMA, tokens.original)

    def _quoted(self) -> SchemaAndValue:
        parts: list[str] = []
        while self.tokens.has_next() and not self.tokens.can_consume('"'):
            parts.append(self.tokens.next())
        content = "".join(parts)
        return parse_temporal(content) or SchemaAndValue(STRING_SCHEMA, content)

    def _array(self) -> SchemaAndValue:
        tokens, original = self.tokens, self.tokens.original
        result: list[Any] = []
        merger = _SchemaMerger()
        while tokens.has_next():
            if tokens.can_consume("]"):
                if merger.common is None:
                    return SchemaAndValue(Schema(Type.ARRAY), result)
                return SchemaAndValue(
                    SchemaBuilder.array(merger.common).build(), [convert_to(merger.common, v) for v in result]
                )
            if tokens.can_consume(","):
                raise DataError(f"Unable to parse an empty array element: {original}")
            element = self.parse(True)
            merger.merge(element)
            result.append(element.value if element is not None else None)
            position = tokens.mark()
            if tokens.can_consume("]"):
                tokens.rewind_to(position)
            elif not tokens.can_consume(","):
                raise DataError("Array elements missing ',' delimiter")
        if tokens.previous == ",":
            raise DataError(f"Array is missing element after ',': {original}")
        raise DataError(f"Array is missing terminating ']': {original}")

    def _map(self) -> SchemaAndValue:
        tokens, original = self.tokens, self.tokens.original
        result: dict[Any, Any] = {}
        keys, values = _SchemaMerger(), _SchemaMerger()
        while tokens.has_next():
            if tokens.can_consume("}"):
                if keys.common is not None and values.common is not None:
                    k, v = keys.common, values.common
                    aligned = {convert_to(k, key): convert_to(v, item) for key, item in result.items()}
                    return SchemaAndValue(SchemaBuilder.map(k, v).build(), aligned)
                if keys.common is not None:
                    k = keys.common
                    aligned = {convert_to(k, key): item for key, item in result.items()}
                    return SchemaAndValue(Schema(Type.MAP, key_schema=k), aligned)
                return SchemaAndValue(Schema(Type.MAP), result)
            if tokens.can_consume(","):
                raise DataError(f"Unable to parse a map entry with no key or value: {original}")
            key = self.parse(True)
            if key is None or key.value is None:
                raise DataError(f"Map entry may not have a null key: {original}")
            if not tokens.can_consume(":"):
                raise DataError(f"Map entry is missing ':' at {tokens.index} in {original}")
            item = self.parse(True)
            try:
                result[key.value] = item.value if item is not None else None
            except TypeError as e:
                raise DataError(f"Map key is not hashable: {original}") from e
            tokens.can_consume(",")
            keys.merge(key)
            values.merge(item)
        if tokens.previous == ",":
            raise DataError(f"Map is missing element after ',': {original}")
        raise DataError(f"Map is missing terminating '}}': {original}")


_NUMERIC_ORDER = (Type.INT8, Type.INT16, Type.INT32, Type.INT64, Type.FLOAT32, Type.FLOAT64)


class _SchemaMerger:
    """The common schema of parsed elements, widening numbers; None once they disagree."""

    def __init__(self) -> None:
        self.common: Schema | None = None
        self.compatible = True

    def merge(self, latest: SchemaAndValue | None) -> None:
        if latest is None or latest.schema is None or not self.compatible:
            return
        self.common = latest.schema if self.common is None else _merge(self.common, latest.schema)
        self.compatible = self.common is not None


def _merge(previous: Schema, new: Schema) -> Schema | None:
    if previous.type is not new.type:
        if previous.type in _NUMERIC_ORDER and new.type in _NUMERIC_ORDER:
            wider = _NUMERIC_ORDER.index(new.type) > _NUMERIC_ORDER.index(previous.type)
            return new if wider else previous
        return None
    if previous.optional == new.optional:
        return previous if previous.optional else new
    return previous if previous == new else None


def convert_to(to_schema: Schema, value: Any) -> Any:
    """Coerce a parsed value to `to_schema`, as Kafka aligns array and map elements to a common schema."""
    if value is None:
        if to_schema.optional:
            return None
        raise DataError("Unable to convert a null value to a schema that requires a value")
    name, kind = to_schema.name, to_schema.type
    if name == Decimal.LOGICAL_NAME:
        if isinstance(value, (bytes, bytearray)):
            return Decimal.to_logical(to_schema, bytes(value))
        if isinstance(value, (int, float, str)) and not isinstance(value, bool):
            return decimal.Decimal(repr(value) if isinstance(value, float) else value)
        return value
    if name in (Date.LOGICAL_NAME, Time.LOGICAL_NAME, Timestamp.LOGICAL_NAME):
        if isinstance(value, int) and not isinstance(value, bool):
            if name == Date.LOGICAL_NAME:
                return Date.to_logical(to_schema, value)
            if name == Time.LOGICAL_NAME:
                return Time.to_logical(to_schema, value)
            return Timestamp.to_logical(to_schema, value)
        return value
    if kind in (Type.INT8, Type.INT16, Type.INT32, Type.INT64):
        if isinstance(value, bool) or not isinstance(value, (int, float, decimal.Decimal)):
            raise DataError(f"Unable to convert {value} ({type(value).__name__}) to a number")
        bits = {Type.INT8: 8, Type.INT16: 16, Type.INT32: 32, Type.INT64: 64}[kind]
        wrapped = int(value) & ((1 << bits) - 1)
        return wrapped - (1 << bits) if wrapped >= 1 << (bits - 1) else wrapped
    if kind in (Type.FLOAT32, Type.FLOAT64):
        if isinstance(value, bool) or not isinstance(value, (int, float, decimal.Decimal)):
            raise DataError(f"Unable to convert {value} ({type(value).__name__}) to a number")
        return float(value)
    if kind is Type.STRING:
        return convert_to_string(None, value)
    return value
