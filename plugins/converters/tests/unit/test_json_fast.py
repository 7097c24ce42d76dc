"""The orjson paths of JsonConverter give exactly what the exact path gives, which matches Kafka.

The oracle is the exact path itself (`JsonTextWriter`, `schema_to_json`, `parse_json` and
`JsonReader`), already checked byte for byte against Kafka in test_json_converter.py.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import math
import random
import tracemalloc
from typing import Any

import orjson
import pytest
from kconnect.data import (
    BOOLEAN_SCHEMA,
    BYTES_SCHEMA,
    FLOAT32_SCHEMA,
    FLOAT64_SCHEMA,
    INT8_SCHEMA,
    INT16_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_FLOAT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    Date,
    Decimal,
    Schema,
    SchemaAndValue,
    SchemaBuilder,
    Struct,
    Timestamp,
)
from kconnect.errors import DataError
from kconnect_converters.json_converter import JsonConverter
from kconnect_converters.json_fast import Fallback, compile_plain
from kconnect_converters.json_schema_codec import JsonReader, parse_json, schema_from_json, schema_to_json
from kconnect_converters.json_text_writer import JsonTextWriter

D = decimal.Decimal


def converter(**config: Any) -> JsonConverter:
    c = JsonConverter()
    c.configure({k.replace("_", "."): v for k, v in config.items()}, False)
    return c


def exact_bytes(schema: Schema | None, value: Any, envelope: bool = True, **config: Any) -> bytes:
    """What the exact path writes (or raises) for `value`, built from its parts."""
    text = JsonTextWriter(config.get("numeric", False), config.get("replace", True))
    payload = text.compile_writer(schema)(value)
    if envelope:
        payload = '{"schema":' + schema_to_json(schema, text.render_default) + ',"payload":' + payload + "}"
    return payload.encode("utf-8")


def outcome(write: Any) -> Any:
    try:
        return write()
    except (DataError, UnicodeEncodeError) as e:
        return type(e)


def assert_same_bytes(schema: Schema | None, value: Any) -> None:
    for envelope in (True, False):
        c = converter(schemas_enable=str(envelope).lower())
        expected = outcome(lambda e=envelope: exact_bytes(schema, value, e))
        if expected is UnicodeEncodeError:
            expected = DataError  # the converter reports it as Kafka's serialization error
        # twice: the second call takes the cached encoder
        for _ in range(2):
            assert outcome(lambda c=c: c.from_connect_data("t", schema, value)) == expected, (schema, value)


STRINGS = [
    "",
    "plain ascii text, the FileStreamSource case",
    'quote " and backslash \\ and slash /',
    "tab\tnewline\ncr\rbackspace\bformfeed\f",
    "\x00nul \x01 \x0b \x0e \x1f unit separator",
    "del \x7f and C1 \x80 \x9f",
    "caf\u00e9 \u20ac \u2028 \u2029 \ufeff \uffff",
    "astral \U0001f600 \U00010000 \U0010ffff",
    "mixed \x1f and \U0001f600 and \u00e9",
    "text that looks escaped: \\u001f \\u00e9",
    "lone surrogate \ud800",
    "x" * 5000,
]

DOUBLES = [
    0.0,
    -0.0,
    1.0,
    0.001,
    0.0009999999999999998,
    1e-3,
    1e-5,
    9999999.0,
    9999999.999999998,
    1e7,
    -1e7,
    12.34,
    0.1 + 0.2,
    1e20,
    1e21,
    1e22,
    123456789012345680.0,
    1.7976931348623157e308,
    5e-324,
    2.2250738585072014e-308,
    math.nan,
    math.inf,
    -math.inf,
]

INTS = [
    (INT8_SCHEMA, [0, -128, 127, 128, -129]),
    (INT16_SCHEMA, [-(2**15), 2**15 - 1, 2**15]),
    (INT32_SCHEMA, [-(2**31), 2**31 - 1, 2**31, -(2**31) - 1]),
    (INT64_SCHEMA, [-(2**63), 2**63 - 1, 2**63, 2**64, -(2**63) - 1, True, 1.0]),
]


@pytest.mark.parametrize("text", STRINGS)
def test_strings(text: str) -> None:
    assert_same_bytes(STRING_SCHEMA, text)
    assert_same_bytes(OPTIONAL_STRING_SCHEMA, text)
    assert_same_bytes(None, text)
    assert_same_bytes(SchemaBuilder.array(STRING_SCHEMA).build(), [text, "ok"])
    assert_same_bytes(SchemaBuilder.map(STRING_SCHEMA, STRING_SCHEMA).build(), {text: text})


def test_jackson_escapes_are_kept() -> None:
    data = converter(schemas_enable="false").from_connect_data("t", STRING_SCHEMA, "\x1f\U0001f600")
    assert data == b'"\\u001F\\uD83D\\uDE00"'


@pytest.mark.parametrize("number", DOUBLES, ids=repr)
def test_doubles(number: float) -> None:
    assert_same_bytes(FLOAT64_SCHEMA, number)
    assert_same_bytes(FLOAT32_SCHEMA, number)
    assert_same_bytes(None, number)
    assert_same_bytes(None, [number, {"x": number}])


def test_random_doubles() -> None:
    rng = random.Random(20240501)
    numbers = [rng.uniform(-1, 1) * 10 ** rng.uniform(-12, 12) for _ in range(3000)]
    numbers += [float(f"{x:.{rng.randint(1, 17)}g}") for x in numbers[:1000]]
    schema = SchemaBuilder.array(FLOAT64_SCHEMA).build()
    c = converter()
    assert c.from_connect_data("t", schema, numbers) == exact_bytes(schema, numbers)


@pytest.mark.parametrize(("schema", "numbers"), INTS, ids=lambda x: str(x))
def test_integers(schema: Schema, numbers: list[Any]) -> None:
    for number in numbers:
        assert_same_bytes(schema, number)
    assert_same_bytes(None, 2**70)
    assert_same_bytes(None, [2**64 - 1, -(2**63), -(2**63) - 1])


def test_bytes_as_base64() -> None:
    for data in [b"", b"\x00", b"\xff\xfe\xfd", bytes(range(256)), bytearray(b"ab"), memoryview(b"cd")]:
        assert_same_bytes(BYTES_SCHEMA, data)
        assert_same_bytes(None, data)


def test_wrong_types_and_nulls_raise_kafkas_errors() -> None:
    class Text(str):
        pass

    assert_same_bytes(STRING_SCHEMA, Text("subclass"))
    assert_same_bytes(STRING_SCHEMA, 5)
    assert_same_bytes(STRING_SCHEMA, None)
    assert_same_bytes(BOOLEAN_SCHEMA, 1)
    assert_same_bytes(FLOAT64_SCHEMA, 3)
    assert_same_bytes(FLOAT64_SCHEMA, "3")
    assert_same_bytes(BYTES_SCHEMA, "not bytes")
    assert_same_bytes(SchemaBuilder.array(INT8_SCHEMA).build(), [1, None])
    assert_same_bytes(SchemaBuilder.map(STRING_SCHEMA, INT8_SCHEMA).build(), {1: 1})
    assert_same_bytes(None, {1: "one", "two": 2})
    assert_same_bytes(None, object())


INNER = (
    SchemaBuilder.struct().name("inner").field("x", FLOAT64_SCHEMA).field("s", OPTIONAL_STRING_SCHEMA).build()
)
OUTER = (
    SchemaBuilder.struct()
    .name("outer")
    .field("id", INT64_SCHEMA)
    .field("name", STRING_SCHEMA)
    .field("ok", BOOLEAN_SCHEMA)
    .field("small", INT8_SCHEMA)
    .field("ratio", OPTIONAL_FLOAT64_SCHEMA)
    .field("blob", BYTES_SCHEMA)
    .field("in", INNER)
    .field("list", SchemaBuilder.array(INNER).optional().build())
    .field("tags", SchemaBuilder.map(STRING_SCHEMA, SchemaBuilder.int32().optional().build()).build())
    .field("pairs", SchemaBuilder.map(INT32_SCHEMA, STRING_SCHEMA).optional().build())
    .field("f32", SchemaBuilder.float32().optional().build())
    .field("price", Decimal.builder(2).optional().build())
    .field("day", Date.builder().optional().build())
    .field("at", Timestamp.builder().optional().build())
    .field("dflt", SchemaBuilder.string().optional().default_value("fallback \x01").build())
    .field("ctl\x02field", OPTIONAL_STRING_SCHEMA)
    .build()
)


def outer(**changes: Any) -> Struct:
    values: dict[str, Any] = {
        "id": 2**62,
        "name": "n\u00e9",
        "ok": True,
        "small": -5,
        "ratio": 1e-5,
        "blob": b"\x00\x01\xff",
        "in": Struct(INNER).put("x", 2.5),
        "list": [Struct(INNER).put("x", 1e7).put("s", "s"), Struct(INNER).put("x", -0.0)],
        "tags": {"a": 1, "b": None, "": 3},
        "pairs": {1: "one", 2: "two"},
        "f32": 1.1,
        "price": D("12.30"),
        "day": dt.date(2024, 5, 1),
        "at": dt.datetime(2024, 5, 1, 12, 0, tzinfo=dt.timezone.utc),
    }
    values.update(changes)
    struct = Struct(OUTER)
    for name, value in values.items():
        struct.put(name, value)
    return struct


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"name": "\x1f"},
        {"name": "\U0001f600"},
        {"tags": {"k\x00": 1}},
        {"ratio": None, "list": None, "pairs": None, "f32": None, "price": None, "day": None, "at": None},
        {"dflt": "set", "ctl\x02field": "x"},
        {"ratio": math.nan},
    ],
    ids=lambda x: ",".join(x) or "plain",
)
def test_nested_structs(changes: dict[str, Any]) -> None:
    value = outer(**changes)
    assert_same_bytes(OUTER, value)
    assert outcome(
        lambda: converter(decimal_format="numeric").from_connect_data("t", OUTER, value)
    ) == outcome(lambda: exact_bytes(OUTER, value, numeric=True))
    assert outcome(
        lambda: converter(replace_null_with_default="false").from_connect_data("t", OUTER, value)
    ) == outcome(lambda: exact_bytes(OUTER, value, replace=False))


def test_empty_and_mismatched_structs() -> None:
    empty = SchemaBuilder.struct().build()
    assert_same_bytes(empty, Struct(empty))
    assert_same_bytes(OUTER, Struct(INNER).put("x", 1.0))
    twin = (
        SchemaBuilder.struct()
        .name("twin")
        .field("x", FLOAT64_SCHEMA)
        .field("s", OPTIONAL_STRING_SCHEMA)
        .build()
    )
    assert_same_bytes(INNER, Struct(twin).put("x", 1.0))
    assert_same_bytes(SchemaBuilder.array(INNER).build(), [Struct(empty)])


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        (STRING_SCHEMA, "text"),
        (INT64_SCHEMA, 2**63 - 1),
        (FLOAT64_SCHEMA, 12.5),
        (BYTES_SCHEMA, b"abc"),
        (OPTIONAL_STRING_SCHEMA, None),
        (None, {"a": [1, 2.5, "x", None, True, b"\x01"]}),
        (OUTER, outer()),
    ],
    ids=repr,
)
def test_common_values_take_the_fast_path(schema: Schema | None, value: Any) -> None:
    plain = compile_plain(schema, JsonTextWriter())(value)
    assert orjson.dumps(plain) == exact_bytes(schema, value, envelope=False)


def test_refused_values_fall_back() -> None:
    with pytest.raises(Fallback):
        compile_plain(STRING_SCHEMA, JsonTextWriter())(None)
    with pytest.raises(Fallback):
        compile_plain(INT8_SCHEMA, JsonTextWriter())(300)


def test_records_do_not_keep_orjsons_buffer() -> None:
    c = converter(schemas_enable="false")
    c.from_connect_data("t", STRING_SCHEMA, "warm up")
    tracemalloc.start()
    try:
        kept = [c.from_connect_data("t", STRING_SCHEMA, f"line {i}") for i in range(1000)]
        size, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(kept) == 1000 and size < 200_000


# --- reading ------------------------------------------------------------------------------------


def typed(value: Any) -> Any:
    """`value` with every leaf's type, so 1, 1.0, True and Decimal("1") stay apart."""
    if isinstance(value, Struct):
        return ("Struct", [typed(x) for x in value.values()])
    if isinstance(value, list):
        return [typed(x) for x in value]
    if isinstance(value, dict):
        return {k: typed(x) for k, x in value.items()}
    return (type(value).__name__, repr(value))


def exact_read(data: bytes, envelope: bool) -> Any:
    """What the exact path reads from `data`, or the error type it raises."""
    reader = JsonReader()
    try:
        node = parse_json(data.decode(json.detect_encoding(data)))
        if not envelope:
            return typed(reader.to_connect(None, node))
        if not isinstance(node, dict) or set(node) != {"schema", "payload"}:
            return DataError
        schema = schema_from_json(node["schema"], reader.to_connect)
        return typed(reader.to_connect(schema, node["payload"]))
    except (DataError, UnicodeDecodeError) as e:
        return type(e) if isinstance(e, DataError) else DataError


def fast_read(c: JsonConverter, data: bytes) -> Any:
    try:
        return typed(c.to_connect_data("t", data).value)
    except DataError:
        return DataError


PAYLOADS = [
    b"1",
    b"1.5",
    b"-0.0",
    b"-0",
    b"1e2",
    b"1E400",
    b"-1e-400",
    b"0012",
    b"1.9999999999999999999",
    b"99999999999999999999",
    b"18446744073709551615",
    b"18446744073709551616",
    b"-9223372036854775809",
    b"123456789012345678901234567890.5",
    b'"text"',
    b'"\\u001f \\ud83d\\ude00 \\u00e9 caf\xc3\xa9"',
    b'"\\ud800"',
    b'"\xff"',
    b"true",
    b"null",
    b"[1, 2.5, 99999999999999999999]",
    b'{"a": 1.25, "a": 2}',
    b" 7 ",
    b"NaN",
    b"",
    b"1 2",
]


@pytest.mark.parametrize("payload", PAYLOADS, ids=repr)
@pytest.mark.parametrize(
    "schema",
    [
        STRING_SCHEMA,
        INT8_SCHEMA,
        INT64_SCHEMA,
        FLOAT64_SCHEMA,
        FLOAT32_SCHEMA,
        BOOLEAN_SCHEMA,
        SchemaBuilder.array(SchemaBuilder.float64().optional().build()).build(),
        SchemaBuilder.map(STRING_SCHEMA, INT64_SCHEMA).optional().build(),
        Decimal.builder(2).optional().build(),
        Timestamp.builder().optional().build(),
    ],
    ids=str,
)
def test_envelope_reads_match_the_exact_path(payload: bytes, schema: Schema) -> None:
    c = converter()
    prefix = ('{"schema":' + schema_to_json(schema, JsonTextWriter().render_default) + ',"payload":').encode()
    fast_read(c, prefix + b"null}")  # the first envelope is read exactly and primes the fast path
    data = prefix + payload + b"}"
    assert fast_read(c, data) == exact_read(data, envelope=True)


@pytest.mark.parametrize("ending", [b"1]", b"1", b"1} ", b"1}}", b'1,"x":2}'])
def test_envelopes_with_odd_endings_match_the_exact_path(ending: bytes) -> None:
    c = converter()
    prefix = b'{"schema":{"type":"int64","optional":false},"payload":'
    fast_read(c, prefix + b"0}")
    assert fast_read(c, prefix + ending) == exact_read(prefix + ending, envelope=True)


@pytest.mark.parametrize("payload", PAYLOADS, ids=repr)
def test_bare_reads_match_the_exact_path(payload: bytes) -> None:
    assert fast_read(converter(schemas_enable="false"), payload) == exact_read(payload, envelope=False)


@pytest.mark.parametrize(
    "data", ['"hi"'.encode("utf-16-le"), "12".encode("utf-16"), "[1]".encode("utf-32"), b"\xef\xbb\xbf12"]
)
def test_bare_reads_of_other_encodings(data: bytes) -> None:
    assert fast_read(converter(schemas_enable="false"), data) == exact_read(data, envelope=False)


def test_struct_round_trip_through_both_fast_paths() -> None:
    c = converter()
    value = outer()
    data = c.from_connect_data("t", OUTER, value)
    first = c.to_connect_data("t", data)
    again = c.to_connect_data("t", data)  # the fast path, with the schema text now known
    assert first == again == SchemaAndValue(first.schema, first.value)
    assert c.from_connect_data("t", again.schema, again.value) == data
