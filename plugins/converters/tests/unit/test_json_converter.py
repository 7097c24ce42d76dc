# ruff: noqa: E501  (expected bytes are kept whole, exactly as Kafka printed them)
"""JsonConverter writes exactly the bytes Kafka's JsonConverter writes, and reads them back.

The expected byte strings below were printed by Kafka 4.3.1's own JsonConverter (connect-json jar,
run on JDK 25 and JDK 17) for the same schemas and values, with schemas.enable true ("envelope") and
false ("bare"), decimal.format NUMERIC, and replace.null.with.default false.
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
import re
from typing import Any

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
    OPTIONAL_INT8_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    Date,
    Decimal,
    Schema,
    SchemaAndValue,
    SchemaBuilder,
    Struct,
    Time,
    Timestamp,
)
from kconnect.errors import DataError
from kconnect_converters.json_converter import JsonConverter

D = decimal.Decimal
ERROR = "error"


def cases() -> list[tuple[str, Schema | None, Any]]:
    c: list[tuple[str, Schema | None, Any]] = []

    def add(name: str, schema: Schema | None, value: Any) -> None:
        c.append((name, schema, value))

    add("bool", BOOLEAN_SCHEMA, True)
    add("int8", INT8_SCHEMA, 12)
    add("int16", INT16_SCHEMA, -12)
    add("int32", INT32_SCHEMA, 12)
    add("int64", INT64_SCHEMA, 4398046511104)
    ds = [
        12.34,
        1.0,
        1e20,
        1e-5,
        1e7,
        9999999.0,
        123456789.0,
        0.001,
        0.0009,
        -0.0,
        0.1 + 0.2,
        1.7976931348623157e308,
        4.9e-324,
        -2.5e-7,
        100.0,
        float("nan"),
        float("inf"),
        float("-inf"),
    ]
    for i, d in enumerate(ds):
        add(f"double{i}", FLOAT64_SCHEMA, d)
    fs = [12.34, 1.1, 1e10, 3.4e38, 1e-10, 0.1, 16777216.0, 1234567.9, -0.0]
    for i, f in enumerate(fs):
        add(f"float{i}", FLOAT32_SCHEMA, f)
    add("string", STRING_SCHEMA, "foo-bar-baz")
    add(
        "string_escapes",
        STRING_SCHEMA,
        "q\"b\\s/\u0001\u001f\b\t\n\f\r\u007f\u00e9\u20ac\U0001f600\u2028<>&'",
    )
    add("bytes", BYTES_SCHEMA, b"test-string")
    add("bytes_empty", BYTES_SCHEMA, b"")
    add("array", SchemaBuilder.array(INT32_SCHEMA).build(), [1, 2, 3])
    add("array_opt", SchemaBuilder.array(OPTIONAL_STRING_SCHEMA).build(), ["a", None])
    add("map_str", SchemaBuilder.map(STRING_SCHEMA, INT32_SCHEMA).build(), {"key1": 12, "key2": 15})
    add("map_int", SchemaBuilder.map(INT32_SCHEMA, INT32_SCHEMA).build(), {1: 12, 2: 15})
    st = (
        SchemaBuilder.struct()
        .field("field1", BOOLEAN_SCHEMA)
        .field("field2", STRING_SCHEMA)
        .field("field3", STRING_SCHEMA)
        .field("field4", BOOLEAN_SCHEMA)
        .build()
    )
    add(
        "struct",
        st,
        Struct(st).put("field1", True).put("field2", "string2").put("field3", "string3").put("field4", False),
    )
    named = (
        SchemaBuilder.struct().name("x").version(3).doc("a doc").field("a", INT32_SCHEMA).optional().build()
    )
    add("struct_named", named, Struct(named).put("a", 1))
    add("struct_named_null", named, None)
    meta = (
        SchemaBuilder.int32()
        .name("n")
        .version(2)
        .doc("d")
        .parameter("p", "v")
        .parameter("a", "b")
        .default_value(5)
        .optional()
        .build()
    )
    add("int_meta", meta, 7)
    add("int_meta_null", meta, None)
    dflt = (
        SchemaBuilder.struct()
        .field("o", SchemaBuilder.string().optional().default_value("dv").build())
        .field("r", OPTIONAL_INT64_SCHEMA)
        .build()
    )
    add("struct_default_null", dflt, Struct(dflt))
    inner = SchemaBuilder.struct().name("inner").field("x", FLOAT64_SCHEMA).build()
    outer = (
        SchemaBuilder.struct()
        .name("outer")
        .field("in", inner)
        .field("list", SchemaBuilder.array(inner).optional().build())
        .field("m", SchemaBuilder.map(STRING_SCHEMA, OPTIONAL_INT8_SCHEMA).build())
        .build()
    )
    add(
        "struct_nested",
        outer,
        Struct(outer)
        .put("in", Struct(inner).put("x", 1.5))
        .put("list", [Struct(inner).put("x", 2e-9)])
        .put("m", {"k": 1, "n": None}),
    )
    add("decimal", Decimal.schema(4), D("10.2345"))
    add("decimal_neg", Decimal.schema(1), D("-1.5"))
    add("decimal_zero", Decimal.schema(2), D("0.00"))
    add("decimal_big", Decimal.schema(0), D("123456789012345678901234567890"))
    add("decimal_128", Decimal.schema(0), D("128"))
    add("decimal_m128", Decimal.schema(0), D("-128"))
    add("decimal_small", Decimal.schema(9), D("0.000000001"))
    add("decimal_opt_default", Decimal.builder(2).optional().default_value(D("1.00")).build(), None)
    add("date", Date.SCHEMA, dt.date(1970, 1, 1) + dt.timedelta(days=10000))
    add("time", Time.SCHEMA, dt.time(14, 0, 0, 5000))
    add("timestamp", Timestamp.SCHEMA, dt.datetime(2023, 11, 14, 22, 13, 20, 123000, tzinfo=dt.timezone.utc))
    add("timestamp_neg", Timestamp.SCHEMA, dt.datetime(1969, 12, 31, 23, 59, 59, 999000))
    add("opt_string_null", OPTIONAL_STRING_SCHEMA, None)
    add("null_null", None, None)
    add("schemaless_int", None, 12)
    add("schemaless_double", None, 1e20)
    add("schemaless_str", None, "x")
    add("schemaless_bool", None, False)
    add("schemaless_bytes", None, bytes([1, 2, 255]))
    add("schemaless_list", None, [1, "2", None, 3.5])
    add("schemaless_map", None, {"b": 1, "a": [True, False], "c": None})
    add("schemaless_map_mixed", None, {1: "one", "two": 2})
    add("required_null", STRING_SCHEMA, None)
    add("array_default", SchemaBuilder.array(INT16_SCHEMA).default_value([1, 2]).build(), [3])
    fdef = (
        SchemaBuilder.struct()
        .field("d", SchemaBuilder.float64().default_value(2.5).build())
        .field(
            "t",
            Timestamp.builder()
            .optional()
            .default_value(dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc))
            .build(),
        )
        .build()
    )
    add("struct_defaults", fdef, Struct(fdef).put("d", 1e300))
    return c


CASES = {name: (schema, value) for name, schema, value in cases()}

# name -> (schemas.enable=true, schemas.enable=false)
EXPECTED: dict[str, tuple[Any, Any]] = {
    "bool": (
        b'{"schema":{"type":"boolean","optional":false},"payload":true}',
        b"true",
    ),
    "int8": (
        b'{"schema":{"type":"int8","optional":false},"payload":12}',
        b"12",
    ),
    "int16": (
        b'{"schema":{"type":"int16","optional":false},"payload":-12}',
        b"-12",
    ),
    "int32": (
        b'{"schema":{"type":"int32","optional":false},"payload":12}',
        b"12",
    ),
    "int64": (
        b'{"schema":{"type":"int64","optional":false},"payload":4398046511104}',
        b"4398046511104",
    ),
    "double0": (
        b'{"schema":{"type":"double","optional":false},"payload":12.34}',
        b"12.34",
    ),
    "double1": (
        b'{"schema":{"type":"double","optional":false},"payload":1.0}',
        b"1.0",
    ),
    "double2": (
        b'{"schema":{"type":"double","optional":false},"payload":1.0E20}',
        b"1.0E20",
    ),
    "double3": (
        b'{"schema":{"type":"double","optional":false},"payload":1.0E-5}',
        b"1.0E-5",
    ),
    "double4": (
        b'{"schema":{"type":"double","optional":false},"payload":1.0E7}',
        b"1.0E7",
    ),
    "double5": (
        b'{"schema":{"type":"double","optional":false},"payload":9999999.0}',
        b"9999999.0",
    ),
    "double6": (
        b'{"schema":{"type":"double","optional":false},"payload":1.23456789E8}',
        b"1.23456789E8",
    ),
    "double7": (
        b'{"schema":{"type":"double","optional":false},"payload":0.001}',
        b"0.001",
    ),
    "double8": (
        b'{"schema":{"type":"double","optional":false},"payload":9.0E-4}',
        b"9.0E-4",
    ),
    "double9": (
        b'{"schema":{"type":"double","optional":false},"payload":-0.0}',
        b"-0.0",
    ),
    "double10": (
        b'{"schema":{"type":"double","optional":false},"payload":0.30000000000000004}',
        b"0.30000000000000004",
    ),
    "double11": (
        b'{"schema":{"type":"double","optional":false},"payload":1.7976931348623157E308}',
        b"1.7976931348623157E308",
    ),
    "double12": (
        b'{"schema":{"type":"double","optional":false},"payload":4.9E-324}',
        b"4.9E-324",
    ),
    "double13": (
        b'{"schema":{"type":"double","optional":false},"payload":-2.5E-7}',
        b"-2.5E-7",
    ),
    "double14": (
        b'{"schema":{"type":"double","optional":false},"payload":100.0}',
        b"100.0",
    ),
    "double15": (
        b'{"schema":{"type":"double","optional":false},"payload":"NaN"}',
        b'"NaN"',
    ),
    "double16": (
        b'{"schema":{"type":"double","optional":false},"payload":"Infinity"}',
        b'"Infinity"',
    ),
    "double17": (
        b'{"schema":{"type":"double","optional":false},"payload":"-Infinity"}',
        b'"-Infinity"',
    ),
    "float0": (
        b'{"schema":{"type":"float","optional":false},"payload":12.34}',
        b"12.34",
    ),
    "float1": (
        b'{"schema":{"type":"float","optional":false},"payload":1.1}',
        b"1.1",
    ),
    "float2": (
        b'{"schema":{"type":"float","optional":false},"payload":1.0E10}',
        b"1.0E10",
    ),
    "float3": (
        b'{"schema":{"type":"float","optional":false},"payload":3.4E38}',
        b"3.4E38",
    ),
    "float4": (
        b'{"schema":{"type":"float","optional":false},"payload":1.0E-10}',
        b"1.0E-10",
    ),
    "float5": (
        b'{"schema":{"type":"float","optional":false},"payload":0.1}',
        b"0.1",
    ),
    "float6": (
        b'{"schema":{"type":"float","optional":false},"payload":1.6777216E7}',
        b"1.6777216E7",
    ),
    "float7": (
        b'{"schema":{"type":"float","optional":false},"payload":1234567.9}',
        b"1234567.9",
    ),
    "float8": (
        b'{"schema":{"type":"float","optional":false},"payload":-0.0}',
        b"-0.0",
    ),
    "string": (
        b'{"schema":{"type":"string","optional":false},"payload":"foo-bar-baz"}',
        b'"foo-bar-baz"',
    ),
    "string_escapes": (
        b'{"schema":{"type":"string","optional":false},"payload":"q\\"b\\\\s/\\u0001\\u001F\\b\\t\\n\\f\\r\x7f\xc3\xa9\xe2\x82\xac\\uD83D\\uDE00\xe2\x80\xa8<>&\'"}',
        b'"q\\"b\\\\s/\\u0001\\u001F\\b\\t\\n\\f\\r\x7f\xc3\xa9\xe2\x82\xac\\uD83D\\uDE00\xe2\x80\xa8<>&\'"',
    ),
    "bytes": (
        b'{"schema":{"type":"bytes","optional":false},"payload":"dGVzdC1zdHJpbmc="}',
        b'"dGVzdC1zdHJpbmc="',
    ),
    "bytes_empty": (
        b'{"schema":{"type":"bytes","optional":false},"payload":""}',
        b'""',
    ),
    "array": (
        b'{"schema":{"type":"array","items":{"type":"int32","optional":false},"optional":false},"payload":[1,2,3]}',
        b"[1,2,3]",
    ),
    "array_opt": (
        b'{"schema":{"type":"array","items":{"type":"string","optional":true},"optional":false},"payload":["a",null]}',
        b'["a",null]',
    ),
    "map_str": (
        b'{"schema":{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"int32","optional":false},"optional":false},"payload":{"key1":12,"key2":15}}',
        b'{"key1":12,"key2":15}',
    ),
    "map_int": (
        b'{"schema":{"type":"map","keys":{"type":"int32","optional":false},"values":{"type":"int32","optional":false},"optional":false},"payload":[[1,12],[2,15]]}',
        b"[[1,12],[2,15]]",
    ),
    "struct": (
        b'{"schema":{"type":"struct","fields":[{"type":"boolean","optional":false,"field":"field1"},{"type":"string","optional":false,"field":"field2"},{"type":"string","optional":false,"field":"field3"},{"type":"boolean","optional":false,"field":"field4"}],"optional":false},"payload":{"field1":true,"field2":"string2","field3":"string3","field4":false}}',
        b'{"field1":true,"field2":"string2","field3":"string3","field4":false}',
    ),
    "struct_named": (
        b'{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"a"}],"optional":true,"name":"x","version":3,"doc":"a doc"},"payload":{"a":1}}',
        b'{"a":1}',
    ),
    "struct_named_null": (
        b'{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"a"}],"optional":true,"name":"x","version":3,"doc":"a doc"},"payload":null}',
        b"null",
    ),
    "int_meta": (
        b'{"schema":{"type":"int32","optional":true,"name":"n","version":2,"doc":"d","parameters":{"p":"v","a":"b"},"default":5},"payload":7}',
        b"7",
    ),
    "int_meta_null": (
        b'{"schema":{"type":"int32","optional":true,"name":"n","version":2,"doc":"d","parameters":{"p":"v","a":"b"},"default":5},"payload":5}',
        b"5",
    ),
    "struct_default_null": (
        b'{"schema":{"type":"struct","fields":[{"type":"string","optional":true,"default":"dv","field":"o"},{"type":"int64","optional":true,"field":"r"}],"optional":false},"payload":{"o":"dv","r":null}}',
        b'{"o":"dv","r":null}',
    ),
    "struct_nested": (
        b'{"schema":{"type":"struct","fields":[{"type":"struct","fields":[{"type":"double","optional":false,"field":"x"}],"optional":false,"name":"inner","field":"in"},{"type":"array","items":{"type":"struct","fields":[{"type":"double","optional":false,"field":"x"}],"optional":false,"name":"inner"},"optional":true,"field":"list"},{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"int8","optional":true},"optional":false,"field":"m"}],"optional":false,"name":"outer"},"payload":{"in":{"x":1.5},"list":[{"x":2.0E-9}],"m":{"k":1,"n":null}}}',
        b'{"in":{"x":1.5},"list":[{"x":2.0E-9}],"m":{"k":1,"n":null}}',
    ),
    "decimal": (
        b'{"schema":{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"4"}},"payload":"AY/J"}',
        b'"AY/J"',
    ),
    "decimal_neg": (
        b'{"schema":{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"1"}},"payload":"8Q=="}',
        b'"8Q=="',
    ),
    "decimal_zero": (
        b'{"schema":{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"}},"payload":"AA=="}',
        b'"AA=="',
    ),
    "decimal_big": (
        b'{"schema":{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"0"}},"payload":"AY7pD/bDc+DuTj8K0g=="}',
        b'"AY7pD/bDc+DuTj8K0g=="',
    ),
    "decimal_128": (
        b'{"schema":{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"0"}},"payload":"AIA="}',
        b'"AIA="',
    ),
    "decimal_m128": (
        b'{"schema":{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"0"}},"payload":"gA=="}',
        b'"gA=="',
    ),
    "decimal_small": (
        b'{"schema":{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"9"}},"payload":"AQ=="}',
        b'"AQ=="',
    ),
    "decimal_opt_default": (
        b'{"schema":{"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"default":"ZA=="},"payload":"ZA=="}',
        b'"ZA=="',
    ),
    "date": (
        b'{"schema":{"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Date","version":1},"payload":10000}',
        b"10000",
    ),
    "time": (
        b'{"schema":{"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Time","version":1},"payload":50400005}',
        b"50400005",
    ),
    "timestamp": (
        b'{"schema":{"type":"int64","optional":false,"name":"org.apache.kafka.connect.data.Timestamp","version":1},"payload":1700000000123}',
        b"1700000000123",
    ),
    "timestamp_neg": (
        b'{"schema":{"type":"int64","optional":false,"name":"org.apache.kafka.connect.data.Timestamp","version":1},"payload":-1}',
        b"-1",
    ),
    "opt_string_null": (
        b'{"schema":{"type":"string","optional":true},"payload":null}',
        b"null",
    ),
    "null_null": (
        None,
        None,
    ),
    "schemaless_int": (
        b'{"schema":null,"payload":12}',
        b"12",
    ),
    "schemaless_double": (
        b'{"schema":null,"payload":1.0E20}',
        b"1.0E20",
    ),
    "schemaless_str": (
        b'{"schema":null,"payload":"x"}',
        b'"x"',
    ),
    "schemaless_bool": (
        b'{"schema":null,"payload":false}',
        b"false",
    ),
    "schemaless_bytes": (
        b'{"schema":null,"payload":"AQL/"}',
        b'"AQL/"',
    ),
    "schemaless_list": (
        b'{"schema":null,"payload":[1,"2",null,3.5]}',
        b'[1,"2",null,3.5]',
    ),
    "schemaless_map": (
        b'{"schema":null,"payload":{"b":1,"a":[true,false],"c":null}}',
        b'{"b":1,"a":[true,false],"c":null}',
    ),
    "schemaless_map_mixed": (
        b'{"schema":null,"payload":[[1,"one"],["two",2]]}',
        b'[[1,"one"],["two",2]]',
    ),
    "required_null": (
        ERROR,
        ERROR,
    ),
    "array_default": (
        b'{"schema":{"type":"array","items":{"type":"int16","optional":false},"optional":false,"default":[1,2]},"payload":[3]}',
        b"[3]",
    ),
    "struct_defaults": (
        b'{"schema":{"type":"struct","fields":[{"type":"double","optional":false,"default":2.5,"field":"d"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"default":0,"field":"t"}],"optional":false},"payload":{"d":1.0E300,"t":0}}',
        b'{"d":1.0E300,"t":0}',
    ),
}

# decimal.format=NUMERIC, where it differs from the envelope above
EXPECTED_NUMERIC: dict[str, Any] = {
    "decimal": b'{"schema":{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"4"}},"payload":10.2345}',
    "decimal_neg": b'{"schema":{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"1"}},"payload":-1.5}',
    "decimal_zero": b'{"schema":{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"}},"payload":0.00}',
    "decimal_big": b'{"schema":{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"0"}},"payload":123456789012345678901234567890}',
    "decimal_128": b'{"schema":{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"0"}},"payload":128}',
    "decimal_m128": b'{"schema":{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"0"}},"payload":-128}',
    "decimal_small": b'{"schema":{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"9"}},"payload":1E-9}',
    "decimal_opt_default": b'{"schema":{"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"default":1.00},"payload":1.00}',
}

# replace.null.with.default=false, where it differs from the envelope above
EXPECTED_KEEP_NULL: dict[str, Any] = {
    "int_meta_null": b'{"schema":{"type":"int32","optional":true,"name":"n","version":2,"doc":"d","parameters":{"p":"v","a":"b"},"default":5},"payload":null}',
    "struct_default_null": b'{"schema":{"type":"struct","fields":[{"type":"string","optional":true,"default":"dv","field":"o"},{"type":"int64","optional":true,"field":"r"}],"optional":false},"payload":{"o":null,"r":null}}',
    "decimal_opt_default": b'{"schema":{"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"default":"ZA=="},"payload":null}',
    "struct_defaults": b'{"schema":{"type":"struct","fields":[{"type":"double","optional":false,"default":2.5,"field":"d"},{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"default":0,"field":"t"}],"optional":false},"payload":{"d":1.0E300,"t":null}}',
}


def converter(**config: Any) -> JsonConverter:
    c = JsonConverter()
    c.configure({k.replace("_", "."): v for k, v in config.items()}, False)
    return c


def check(c: JsonConverter, name: str, expected: Any) -> None:
    schema, value = CASES[name]
    if expected is ERROR:
        with pytest.raises(DataError):
            c.from_connect_data("topic", schema, value)
    else:
        assert c.from_connect_data("topic", schema, value) == expected


@pytest.mark.parametrize("name", list(EXPECTED))
def test_envelope_bytes_match_kafka(name: str) -> None:
    check(converter(), name, EXPECTED[name][0])


@pytest.mark.parametrize("name", list(EXPECTED))
def test_bare_bytes_match_kafka(name: str) -> None:
    check(converter(schemas_enable="false"), name, EXPECTED[name][1])


@pytest.mark.parametrize("name", list(EXPECTED))
def test_numeric_decimal_bytes_match_kafka(name: str) -> None:
    check(converter(decimal_format="numeric"), name, EXPECTED_NUMERIC.get(name, EXPECTED[name][0]))


@pytest.mark.parametrize("name", list(EXPECTED))
def test_keep_null_bytes_match_kafka(name: str) -> None:
    check(converter(replace_null_with_default=False), name, EXPECTED_KEEP_NULL.get(name, EXPECTED[name][0]))


def test_every_case_has_an_expectation() -> None:
    assert set(CASES) == set(EXPECTED)


def test_cached_schema_gives_the_same_bytes_twice() -> None:
    c = converter()
    schema, value = CASES["struct_nested"]
    first = c.from_connect_data("topic", schema, value)
    assert c.from_connect_data("topic", schema, value) == first
    assert c.from_connect_data("topic", INT32_SCHEMA, 12) == EXPECTED["int32"][0]
    assert c.from_connect_data("topic", schema, value) == first


# --- reading -----------------------------------------------------------------------------------

ROUND_TRIP_SKIP = {"double15", "double16", "double17", "null_null", "required_null", "schemaless_map_mixed"}


@pytest.mark.parametrize("name", [n for n in EXPECTED if n not in ROUND_TRIP_SKIP])
def test_envelope_round_trip(name: str) -> None:
    c = converter()
    schema, value = CASES[name]
    back = c.to_connect_data("topic", c.from_connect_data("topic", schema, value))
    assert c.from_connect_data("topic", back.schema, back.value) == EXPECTED[name][0]
    if schema is not None and schema.default_value is None:
        assert back.schema == schema


def test_reads_envelope_values() -> None:
    c = converter()
    data = b'{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"a"}],"optional":false}'
    result = c.to_connect_data("topic", data + b',"payload":{"a":5}}')
    assert result.schema is not None and result.schema.field("a") is not None
    assert isinstance(result.value, Struct) and result.value.get("a") == 5
    # the same schema text again takes the cached path
    again = c.to_connect_data("topic", data + b',"payload":{"a":6}}')
    assert again.schema is result.schema and again.value.get("a") == 6


@pytest.mark.parametrize(
    ("data", "schema", "value"),
    [
        (b'{ "schema": { "type": "boolean" }, "payload": true }', BOOLEAN_SCHEMA, True),
        (b'{ "schema": { "type": "int8" }, "payload": 0012 }', INT8_SCHEMA, 12),
        (b'{ "schema": { "type": "int64" }, "payload": 4398046511104 }', INT64_SCHEMA, 4398046511104),
        (b'{ "schema": { "type": "float" }, "payload": 12.34 }', FLOAT32_SCHEMA, 12.34),
        (b'{ "schema": { "type": "int8" }, "payload": 300 }', INT8_SCHEMA, 44),
        (b'{ "schema": { "type": "string" }, "payload": 5 }', STRING_SCHEMA, None),
        (b'{"schema":{"type":"int32","optional":true,"default":7},"payload":null}', None, 7),
        (
            b'{"schema":{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2"}},'
            b'"payload":1.50}',
            None,
            D("1.50"),
        ),
        (b'{"schema":null,"payload":5}', None, 5),
    ],
)
def test_reads_like_kafka(data: bytes, schema: Schema | None, value: Any) -> None:
    result = converter().to_connect_data("topic", data)
    if schema is not None:
        assert result.schema == schema
    assert result.value == value


@pytest.mark.parametrize(
    ("data", "value"),
    [
        (b"", None),
        (b"null", None),
        (b"0012", 12),
        (b"{} x", {}),
        (b"12", 12),
        (b"12.5", 12.5),
        (b"1e2", 100.0),
        (b'[1, 2.0, "x", null, true]', [1, 2.0, "x", None, True]),
        (b'{"a":{"b":1}}', {"a": {"b": 1}}),
        (b"99999999999999999999", 7766279631452241919),
    ],
)
def test_schemaless_reads_infer_like_kafka(data: bytes, value: Any) -> None:
    result = converter(schemas_enable="false").to_connect_data("topic", data)
    assert result == SchemaAndValue(None, value)
    assert type(result.value) is type(value)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"12", 'JsonConverter with schemas.enable requires "schema" and "payload" fields'),
        (b'{"schema":null}', 'JsonConverter with schemas.enable requires "schema" and "payload" fields'),
        (b'{"schema":{"type":"nope"},"payload":1}', "Unknown schema type: nope"),
        (b'{"schema":{"type":"array"},"payload":[]}', "Array schema did not specify the element type"),
        (
            b'{"schema":{"type":"map","keys":{"type":"int32"},"values":{"type":"string"}},"payload":{"a":"b"}}',
            "Maps with non-string fields should be encoded as JSON array of tuples, but found OBJECT",
        ),
        (
            b'{"schema":{"type":"struct","fields":[{"type":"string","field":"a"}]},"payload":{}}',
            "Invalid null value for required STRING field",
        ),
        (
            b'{"schema":{"type":"int32","name":"org.apache.kafka.connect.data.Date"},"payload":1.5}',
            "Invalid type for Date, underlying representation should be integer but was NUMBER",
        ),
        (b'{"schema":{"type":"bytes"},"payload":"!!"}', "Invalid bytes field"),
        (b"{not json", "Converting byte[] to Kafka Connect data failed due to serialization error"),
    ],
)
def test_read_errors_carry_kafkas_messages(data: bytes, message: str) -> None:
    with pytest.raises(DataError, match=re.escape(message)):
        converter().to_connect_data("topic", data)


def test_tombstones() -> None:
    c = converter()
    assert c.from_connect_data("topic", None, None) is None
    assert c.to_connect_data("topic", None) == SchemaAndValue.NULL


def test_header_methods_delegate() -> None:
    c = JsonConverter()
    c.configure({})
    data = c.from_connect_header("topic", "h", STRING_SCHEMA, "v")
    assert data == b'{"schema":{"type":"string","optional":false},"payload":"v"}'
    assert c.to_connect_header("topic", "h", data) == SchemaAndValue(STRING_SCHEMA, "v")


def test_config_is_checked() -> None:
    from kconnect.config.configdef import ConfigException

    with pytest.raises(ConfigException, match=r"decimal\.format"):
        converter(decimal_format="HEX")


def test_schema_cache_is_bounded() -> None:
    c = converter(schemas_cache_size=2)
    for i in range(5):
        c.from_connect_data("topic", SchemaBuilder.int32().version(i + 1).build(), i)
    assert len(c._writers) == 2


def test_nan_reads_back_as_string_is_kafkas_behaviour() -> None:
    c = converter()
    data = c.from_connect_data("topic", FLOAT64_SCHEMA, math.nan)
    assert data == b'{"schema":{"type":"double","optional":false},"payload":"NaN"}'


# --- schema.content (KIP-1054): the schema in the config, payloads without envelope -----------------
# Each expectation is what Kafka 4.3.1's JsonConverter answered for the same config and bytes.


def content_converter(content: str | None, schemas_enable: bool = True) -> JsonConverter:
    c = JsonConverter()
    config: dict[str, Any] = {"schemas.enable": str(schemas_enable).lower()}
    if content is not None:
        config["schema.content"] = content
    c.configure(config, False)
    return c


def test_schema_content_is_null_or_empty_or_blank_means_envelopes() -> None:
    for content in (None, "", "   ", "null"):
        c = content_converter(content)
        assert c.to_connect_data("t", b'{"schema":{"type":"string"},"payload":"x"}') == SchemaAndValue(
            STRING_SCHEMA, "x"
        )
        with pytest.raises(DataError, match='requires "schema" and "payload" fields'):
            c.to_connect_data("t", b"12")


def test_schema_content_valid_schema_reads_bare_payloads() -> None:
    c = content_converter('{"type": "string"}')
    assert c.to_connect_data("t", b'"foo-bar-baz"') == SchemaAndValue(STRING_SCHEMA, "foo-bar-baz")
    assert c.to_connect_data("t", None) == SchemaAndValue.NULL
    assert content_converter('{"type":"int32"}').to_connect_data("t", b"12") == SchemaAndValue(
        INT32_SCHEMA, 12
    )


def test_schema_content_invalid_json_is_kafkas_error() -> None:
    with pytest.raises(
        DataError, match=r"^Failed to parse schema in converter config due to serialization error: "
    ):
        content_converter('{"string"}')


def test_schema_content_without_type_is_kafkas_error() -> None:
    with pytest.raises(DataError, match=r"^Schema must contain 'type' field$"):
        content_converter('{"typ":"int32"}')


def test_schema_content_looks_like_schema_reads_an_envelope_as_the_payload() -> None:
    content = (
        '{"type": "struct", "fields": [{"field": "schema", "type": "struct","fields": '
        '[{"field": "type", "type": "string"}]}, {"field": "payload", "type": "string"}]}'
    )
    read = content_converter(content).to_connect_data(
        "t", b'{"schema": {"type": "struct"}, "payload": "foo-bar-baz"}'
    )
    assert read.schema is not None and read.schema.type.value == "struct"
    assert read.value.get("payload") == "foo-bar-baz"
    assert read.value.get("schema").get("type") == "struct"
    # An envelope read as an INT32 payload is Kafka's lenient 0.
    assert content_converter('{"type":"int32"}').to_connect_data(
        "t", b'{"schema":{"type":"int32"},"payload":5}'
    ) == SchemaAndValue(INT32_SCHEMA, 0)


def test_schema_content_is_ignored_when_schemas_are_disabled_and_when_writing() -> None:
    c = content_converter('{"type":"string"}', schemas_enable=False)
    assert c.to_connect_data("t", b'"x"') == SchemaAndValue(None, "x")
    written = content_converter('{"type":"string"}').from_connect_data("t", STRING_SCHEMA, "x")
    assert written == b'{"schema":{"type":"string","optional":false},"payload":"x"}'


def test_schema_content_is_a_documented_key() -> None:
    key = JsonConverter.config_def.config_keys["schema.content"]  # type: ignore[union-attr]
    assert key.default is None and key.group == "Schemas" and key.order_in_group == 2
    assert key.type.name == "STRING" and key.importance.name == "HIGH" and key.width.name == "MEDIUM"
    assert key.display_name == "Schema Content"
