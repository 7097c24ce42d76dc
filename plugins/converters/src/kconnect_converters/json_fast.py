"""orjson paths for JsonConverter, taken only where orjson's bytes and reading equal Jackson's.

Writing: `compile_encoder` turns a schema into a function from a Connect value to the record's
bytes. It hands orjson "plain" data (`compile_plain`) and checks orjson's output for what orjson
writes differently from Jackson; whatever differs, or is unusual, goes to the exact path
(`JsonTextWriter`), which writes the value or raises Kafka's error. The differences:

- Control characters other than ``\\b \\t \\n \\f \\r``: orjson writes ``\\u001f``, Jackson
  ``\\u001F``. Output containing ``\\u00`` is written again exactly.
- Characters beyond U+FFFF: orjson writes their UTF-8, Jackson an escaped surrogate pair. Output
  holding a 4-byte UTF-8 sequence is written again exactly. orjson refuses lone surrogates.
- Doubles: orjson's text is Java's ``Double.toString`` only in [1e-3, 1e7) (probed at import);
  other doubles, and every float32, decimal, date, time, timestamp and map with non-string keys,
  are spliced in as `orjson.Fragment`s of the exact text.
- Values of an unexpected Python type (a str subclass, an int where a double belongs), nulls
  Kafka refuses, ints out of the schema's range: `Fallback`, and the exact path takes the record.

Reading: orjson refuses what Python's json reads leniently or differently (leading zeros, content
after the value, NaN, empty input, UTF-16/32 and byte-order marks, lone surrogate escapes, doubles
that overflow), and the caller reads those exactly. orjson reads real numbers as float rather than
Decimal, and integers beyond 64 bits as float: `JsonReader` raises `InexactNumberError` where
that changes the result, and schemaless reads check `may_hold_long_integer` first.
"""

from __future__ import annotations

import re
from binascii import b2a_base64
from collections.abc import Callable
from typing import Any

import orjson
from kconnect.codegen import build_function
from kconnect.data.java_text import jackson_double
from kconnect.data.logical import LOGICAL_TYPES
from kconnect.data.schema import Schema, Type
from kconnect.data.struct import Struct
from kconnect.errors import DataError

from kconnect_converters.json_text_writer import JsonTextWriter, Writer

Plain = Callable[[Any], Any]
Encoder = Callable[[Any], bytes]

_INT_BITS = {Type.INT8: 8, Type.INT16: 16, Type.INT32: 32, Type.INT64: 64}
_ESCAPED_CONTROL = b"\\u00"
# `int in bytes` is a memchr; `bytes in bytes` is several times slower on short inputs.
_BACKSLASH = ord("\\")
_ASTRAL_UTF8 = re.compile(rb"[\xf0-\xf4]")
# orjson reads an integer outside [-2**63, 2**64) as a float; such an integer has 19 digits or more.
_LONG_INTEGER = re.compile(rb"\d{19}")

loads = orjson.loads
JSONDecodeError = orjson.JSONDecodeError


class Fallback(Exception):
    """Raised by a plain-data function for a value only the exact path may write."""


def _orjson_writes_doubles_as_java() -> bool:
    # Shortest round-trip digits in plain notation, as Python's repr and Java agree on in this range.
    probes = (0.001, 0.0015, 0.1, 0.30000000000000004, -2.5, 1.0, 12.34, 100.0, 123456.789, 9999999.0)
    return all(orjson.dumps(x) == repr(x).encode() for x in probes)


_PLAIN_DOUBLES = _orjson_writes_doubles_as_java()


def plain_double(number: float) -> Any:
    """`number` for orjson: itself where orjson writes Java's text, else a Fragment of Java's text."""
    if _PLAIN_DOUBLES and 1e-3 <= abs(number) < 1e7:
        return number
    return orjson.Fragment(jackson_double(number))


def _b64(data: bytes) -> str:
    return b2a_base64(data, newline=False).decode("ascii")


def plain_any(v: Any) -> Any:
    """A schemaless value as plain data, choosing the JSON form from its exact Python type."""
    kind = type(v)
    if kind is str or kind is int or kind is bool or v is None:
        return v
    if kind is float:
        return plain_double(v)
    if kind is list or kind is tuple:
        return [plain_any(x) for x in v]
    if kind is dict and all(type(k) is str for k in v):
        return {k: plain_any(x) for k, x in v.items()}
    if kind is bytes:
        return _b64(v)
    raise Fallback


def compile_plain(schema: Schema | None, text: JsonTextWriter) -> Plain:
    """A function turning values of `schema` into plain data orjson writes as Jackson would.

    It accepts only values the exact writer accepts, and raises `Fallback` for the rest (and for
    nulls Kafka refuses); `text` supplies the exact text of defaults and of Fragments.
    """
    if schema is None:
        return plain_any
    exact = text.compile_writer(schema)
    body = _compile_body(schema, text, exact)
    try:
        null_text = exact(None)
    except DataError:
        return body  # a null is refused: body raises Fallback for it and the exact path raises
    null = None if null_text == "null" else orjson.Fragment(null_text)
    return lambda v: null if v is None else body(v)


def _compile_body(schema: Schema, text: JsonTextWriter, exact: Writer) -> Plain:
    """Plain data for non-null values of `schema`, deciding in the exact writer's order."""
    kind = schema.type
    if (schema.name is not None and schema.name in LOGICAL_TYPES) or kind is Type.FLOAT32:
        return lambda v: orjson.Fragment(exact(v))
    if kind in _INT_BITS:
        high = (1 << (_INT_BITS[kind] - 1)) - 1
        low = -high - 1

        def plain_int(v: Any) -> Any:
            if type(v) is int and low <= v <= high:
                return v
            raise Fallback

        return plain_int
    if kind is Type.FLOAT64:
        return _plain_float64
    if kind is Type.BOOLEAN:
        return _plain_bool
    if kind is Type.STRING:
        return _plain_str
    if kind is Type.BYTES:
        return _plain_bytes
    if kind is Type.ARRAY:
        element = compile_plain(schema.value_schema, text)

        def plain_array(v: Any) -> Any:
            if type(v) is list or type(v) is tuple:
                return [element(x) for x in v]
            raise Fallback

        return plain_array
    if kind is Type.MAP:
        return _compile_map(schema, text, exact)
    return _compile_struct(schema, text)


def _compile_map(schema: Schema, text: JsonTextWriter, exact: Writer) -> Plain:
    key = schema.key_schema
    if key is None:
        return plain_any
    if key.type is not Type.STRING or (key.name is not None and key.name in LOGICAL_TYPES):
        return lambda v: orjson.Fragment(exact(v))  # written as an array of pairs
    item = compile_plain(schema.value_schema, text)

    def plain_object(v: Any) -> Any:
        if type(v) is not dict:
            raise Fallback
        out = {}
        for k, x in v.items():
            if type(k) is not str:
                raise Fallback
            out[k] = item(x)
        return out

    return plain_object


def _compile_struct(schema: Schema, text: JsonTextWriter) -> Plain:
    """Plain data for a Struct of `schema`: a dict of its fields, in order.

    The function is generated with one call per field, as dataclasses generates ``__init__``: a
    call site per field stays fast in CPython's specializing interpreter, while a loop calling each
    field's function in turn costs about twice as much. The source holds only generated names.
    """
    namespace: dict[str, Any] = {"Struct": Struct, "Fallback": Fallback, "schema": schema}
    items = []
    for i, f in enumerate(schema.fields):
        namespace[f"k{i}"] = f.name
        namespace[f"p{i}"] = compile_plain(f.schema, text)
        items.append(f"k{i}: p{i}(x{i})")
    unpack = "".join(f"x{i}, " for i in range(len(items)))
    source = (
        "def plain_struct(v):\n"
        "    if type(v) is not Struct or (v.schema is not schema and v.schema != schema):\n"
        "        raise Fallback\n"
        + (f"    {unpack}= v.values()\n" if items else "")
        + "    return {"
        + ", ".join(items)
        + "}\n"
    )
    plain_struct: Plain = build_function(
        source, "plain_struct", namespace, what=f"JSON plain data of {schema}"
    )
    return plain_struct


def _plain_float64(v: Any) -> Any:
    if type(v) is float:
        return plain_double(v)
    raise Fallback


def _plain_bool(v: Any) -> Any:
    if v is True or v is False:
        return v
    raise Fallback


def _plain_str(v: Any) -> Any:
    if type(v) is str:
        return v
    raise Fallback


def _plain_bytes(v: Any) -> Any:
    if type(v) is bytes:
        return _b64(v)
    raise Fallback


def compile_encoder(
    schema: Schema | None, text: JsonTextWriter, prefix: bytes, suffix: bytes, exact: Encoder
) -> Encoder:
    """A function writing a value of `schema` as `prefix` + its JSON + `suffix`, through orjson.

    `exact` writes the whole record on the exact path; the encoder calls it for every value whose
    bytes orjson would get wrong, so it returns exactly what `exact` returns, or raises what it raises.
    The record is always a new bytes object of its own size: orjson's result keeps a buffer of
    several kilobytes behind even a short JSON text, too much to hold per record in a batch.
    """
    dumps = orjson.dumps
    template = prefix.replace(b"%", b"%%") + b"%b" + suffix.replace(b"%", b"%%")
    if schema is not None and schema.type is Type.STRING and schema.name not in LOGICAL_TYPES:

        def encode_string(v: Any) -> bytes:
            if type(v) is str:
                try:
                    out = dumps(v)
                except orjson.JSONEncodeError:
                    return exact(v)
                if (_BACKSLASH not in out or out.find(_ESCAPED_CONTROL) < 0) and (
                    v.isascii() or _ASTRAL_UTF8.search(out) is None
                ):
                    return template % out
            return exact(v)

        return encode_string
    plain = compile_plain(schema, text)

    def encode(v: Any) -> bytes:
        try:
            out = dumps(plain(v))
        except Exception:  # Fallback, a refused value, orjson's refusal: the exact path decides
            return exact(v)
        if (_BACKSLASH in out and out.find(_ESCAPED_CONTROL) >= 0) or (
            not out.isascii() and _ASTRAL_UTF8.search(out) is not None
        ):
            return exact(v)
        return template % out

    return encode


def may_hold_long_integer(data: bytes) -> bool:
    """Whether `data` may hold an integer orjson reads as a float (it has a run of 19 digits)."""
    return _LONG_INTEGER.search(data) is not None
