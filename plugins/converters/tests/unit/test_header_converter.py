"""SimpleHeaderConverter parses and renders header text as Kafka's SimpleHeaderConverter and Values do.

The expected descriptions and texts were printed by Kafka 4.3.1's SimpleHeaderConverter (JDK 25, UTC)
for the same header text: the inferred schema, then ``Values.convertToString`` of the parsed value.
"""

from __future__ import annotations

import datetime as dt
import decimal

import pytest
from kconnect.data import (
    BOOLEAN_SCHEMA,
    BYTES_SCHEMA,
    INT8_SCHEMA,
    STRING_SCHEMA,
    Date,
    Decimal,
    Schema,
    SchemaAndValue,
    SchemaBuilder,
    Struct,
    Time,
    Timestamp,
    Type,
)
from kconnect.data.values import convert_to_string, infer_schema, parse_string
from kconnect_converters.header_converter import SimpleHeaderConverter

# header text -> (schema as Kafka describes it, Values.convertToString of the parsed value)
KAFKA_PARSES = [
    ("true", "BOOLEAN", "true"),
    (" false ", "BOOLEAN", "false"),
    ("12", "INT8", "12"),
    ("-129", "INT16", "-129"),
    ("40000", "INT32", "40000"),
    ("3000000000", "INT64", "3000000000"),
    ("99999999999999999999", "BYTES:org.apache.kafka.connect.data.Decimal", "99999999999999999999"),
    ("1.5", "FLOAT32", "1.5"),
    ("1e2", "INT8", "100"),
    ("1e400", "BYTES:org.apache.kafka.connect.data.Decimal", "1E+400"),
    ("3.4e39", "FLOAT64", "3.4E39"),
    ("2024-01-02", "INT32:org.apache.kafka.connect.data.Date", "2024-01-02"),
    ("12:34:56.789Z", "INT32:org.apache.kafka.connect.data.Time", "12:34:56.789Z"),
    ("2024-01-02T12:34:56.789Z", "INT64:org.apache.kafka.connect.data.Timestamp", "2024-01-02T12:34:56.789Z"),
    ("hello world", "STRING", "hello world"),
    ("[1,2,3]", "ARRAY<INT8>", "[1,2,3]"),
    ("[1,2.5]", "ARRAY<FLOAT32>", "[1.0,2.5]"),
    ("[1,null]", "STRING", "[1,null]"),
    ('["a","b"]', "ARRAY<STRING>", '["a","b"]'),
    ('{"a":1,"b":2}', "MAP<STRING,INT8>", '{"a":1,"b":2}'),
    ('{"a":1,"b":"x"}', "MAP<STRING,null>", '{"a":1,"b":"x"}'),
    ("[1,", "STRING", "[1,"),
    ("[]", "ARRAY", "[]"),
    ("{}", "MAP", "{}"),
    ('"quoted"', "STRING", '"quoted"'),
    ('["a\\"b"]', "ARRAY<STRING>", '["a\\\\\\"b"]'),
    ("[true,false]", "ARRAY<BOOLEAN>", "[true,false]"),
    ("{1:2}", "MAP<INT8,INT8>", "{1:2}"),
    ("-", "STRING", "-"),
    ("+5", "INT8", "5"),
    ("[1,[2]]", "ARRAY", "[1,[2]]"),
    ('["2024-01-02"]', "ARRAY<INT32>", "[2024-01-02]"),
    ("a,b", "STRING", "a,b"),
    ('{"k":null}', "MAP<STRING,null>", '{"k":null}'),
    ("x: y", "STRING", "x: y"),
]


def describe(schema: Schema | None) -> str:
    if schema is None:
        return "null"
    text = schema.type.name + (":" + schema.name if schema.name else "")
    if schema.type is Type.ARRAY and schema.value_schema is not None:
        text += f"<{schema.value_schema.type.name}>"
    if schema.type is Type.MAP and schema.key_schema is not None:
        values = schema.value_schema.type.name if schema.value_schema is not None else "null"
        text += f"<{schema.key_schema.type.name},{values}>"
    return text


@pytest.mark.parametrize(("text", "described", "rendered"), KAFKA_PARSES)
def test_parses_and_renders_like_kafka(text: str, described: str, rendered: str) -> None:
    converter = SimpleHeaderConverter()
    converter.configure({})
    parsed = converter.to_connect_header("topic", "h", text.encode())
    assert describe(parsed.schema) == described
    assert convert_to_string(parsed.schema, parsed.value) == rendered
    assert converter.from_connect_header("topic", "h", parsed.schema, parsed.value) == rendered.encode()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("true", SchemaAndValue(BOOLEAN_SCHEMA, True)),
        ("12", SchemaAndValue(INT8_SCHEMA, 12)),
        ("hello", SchemaAndValue(STRING_SCHEMA, "hello")),
        ("", SchemaAndValue(STRING_SCHEMA, "")),
        ("2024-01-02", SchemaAndValue(Date.SCHEMA, dt.date(2024, 1, 2))),
        ("12:34:56.789Z", SchemaAndValue(Time.SCHEMA, dt.time(12, 34, 56, 789000))),
        (
            "2024-01-02T12:34:56.789Z",
            SchemaAndValue(
                Timestamp.SCHEMA, dt.datetime(2024, 1, 2, 12, 34, 56, 789000, tzinfo=dt.timezone.utc)
            ),
        ),
        ("[1,2]", SchemaAndValue(SchemaBuilder.array(INT8_SCHEMA).build(), [1, 2])),
        ("1e400", SchemaAndValue(Decimal.schema(-400), decimal.Decimal("1e400"))),
    ],
)
def test_parse_string_values(text: str, expected: SchemaAndValue) -> None:
    assert parse_string(text) == expected


def test_null_and_none() -> None:
    converter = SimpleHeaderConverter()
    assert converter.to_connect_header("topic", "h", None) == SchemaAndValue.NULL
    assert converter.to_connect_header("topic", "h", b"null") == SchemaAndValue.NULL
    assert converter.from_connect_header("topic", "h", STRING_SCHEMA, None) is None


def test_renders_structs_bytes_and_nested_strings() -> None:
    schema = SchemaBuilder.struct().field("a", INT8_SCHEMA).field("s", STRING_SCHEMA).build()
    assert convert_to_string(schema, Struct(schema).put("a", 1).put("s", 'x"y')) == '{"a":1,"s":"x\\"y"}'
    assert convert_to_string(BYTES_SCHEMA, b"\x01\x02") == "AQI="
    assert convert_to_string(None, {"k": [b"\x01"]}) == '{"k":["AQ=="]}'
    assert convert_to_string(None, 1e20) == "1.0E20"


def test_invalid_utf8_is_still_parsed_as_text() -> None:
    result = SimpleHeaderConverter().to_connect_header("topic", "h", b"\xff\xfe")
    assert result.schema == STRING_SCHEMA


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("x", STRING_SCHEMA),
        (True, BOOLEAN_SCHEMA),
        (5, Schema(Type.INT64)),
        (1.5, Schema(Type.FLOAT64)),
        (b"x", BYTES_SCHEMA),
        ([1, None], SchemaBuilder.array(Schema(Type.INT64, optional=True)).build()),
        ({"a": "b"}, SchemaBuilder.map(STRING_SCHEMA, STRING_SCHEMA).build()),
        ([], None),
        ([1, "x"], None),
        (decimal.Decimal("1"), None),
    ],
)
def test_infer_schema(value: object, expected: Schema | None) -> None:
    assert infer_schema(value) == expected
