"""Confluent's JsonSchemaData rules, pure: Connect schema -> the exact text registered, and back."""

from __future__ import annotations

import datetime
import decimal
from typing import Any

import orjson
import pytest
from kconnect.config import ConfigException
from kconnect.data.logical import Date, Decimal, Time, Timestamp
from kconnect.data.schema import Schema, SchemaBuilder, Type
from kconnect.data.struct import Struct
from kconnect.errors import DataError
from kconnect_schema_registry.json_schema.config import json_schema_config_def, options_from_parsed
from kconnect_schema_registry.json_schema.decode import compile_decoder
from kconnect_schema_registry.json_schema.encode import compile_encoder
from kconnect_schema_registry.json_schema.from_connect import schema_text
from kconnect_schema_registry.json_schema.java_json import java_hashmap_order
from kconnect_schema_registry.json_schema.options import JsonSchemaDataOptions
from kconnect_schema_registry.json_schema.to_connect import to_connect_schema

B = SchemaBuilder
DEFAULTS = JsonSchemaDataOptions()


def _string() -> Schema:
    return B.string().build()


def _optional_string() -> Schema:
    return B.string().optional().build()


def debezium_envelope() -> Schema:
    """Debezium's PostgreSQL envelope, whose text Confluent 7's converter registered (quoted below)."""
    table = "dbserver1.public.timmyb32r_favourite_table"
    value = B.struct().name(f"{table}.Value").field("id", B.int32().build()).field("val", _optional_string())
    source = (
        B.struct()
        .name("io.debezium.connector.postgresql.Source")
        .field("version", _string())
        .field("connector", _string())
        .field("name", _string())
        .field("ts_ms", B.int64().build())
        .field(
            "snapshot",
            B.string()
            .optional()
            .name("io.debezium.data.Enum")
            .version(1)
            .parameter("allowed", "true,last,false,incremental")
            .default_value("false")
            .build(),
        )
        .field("db", _string())
        .field("sequence", _optional_string())
        .field("schema", _string())
        .field("table", _string())
        .field("txId", B.int64().optional().build())
        .field("lsn", B.int64().optional().build())
        .field("xmin", B.int64().optional().build())
        .build()
    )
    block = (
        B.struct()
        .name("event.block")
        .version(1)
        .field("id", _string())
        .field("total_order", B.int64().build())
        .field("data_collection_order", B.int64().build())
        .optional()
        .build()
    )
    row = value.optional().build()
    return (
        B.struct()
        .name(f"{table}.Envelope")
        .version(1)
        .field("before", row)
        .field("after", row)
        .field("source", source)
        .field("op", _string())
        .field("ts_ms", B.int64().optional().build())
        .field("transaction", block)
        .build()
    )


# The text Confluent's JsonSchemaConverter sent to a registry for `debezium_envelope()`, from a
# public bug report's log (Debezium 2.x on Confluent 7): properties in Java HashMap order.
DEBEZIUM_ENVELOPE_TEXT = (
    '{"type":"object","title":"dbserver1.public.timmyb32r_favourite_table.Envelope","connect.version":1,'
    '"properties":{"op":{"type":"string","connect.index":3},"before":{"connect.index":0,"oneOf":[{"type":"null"},'
    '{"type":"object","title":"dbserver1.public.timmyb32r_favourite_table.Value","properties":{"val":'
    '{"connect.index":1,"oneOf":[{"type":"null"},{"type":"string"}]},"id":{"type":"integer","connect.index":0,'
    '"connect.type":"int32"}}}]},"after":{"connect.index":1,"oneOf":[{"type":"null"},{"type":"object","title":'
    '"dbserver1.public.timmyb32r_favourite_table.Value","properties":{"val":{"connect.index":1,"oneOf":'
    '[{"type":"null"},{"type":"string"}]},"id":{"type":"integer","connect.index":0,"connect.type":"int32"}}}]},'
    '"source":{"type":"object","title":"io.debezium.connector.postgresql.Source","connect.index":2,"properties":'
    '{"schema":{"type":"string","connect.index":7},"sequence":{"connect.index":6,"oneOf":[{"type":"null"},'
    '{"type":"string"}]},"xmin":{"connect.index":11,"oneOf":[{"type":"null"},{"type":"integer","connect.type":'
    '"int64"}]},"connector":{"type":"string","connect.index":1},"lsn":{"connect.index":10,"oneOf":[{"type":"null"},'
    '{"type":"integer","connect.type":"int64"}]},"name":{"type":"string","connect.index":2},"txId":'
    '{"connect.index":9,"oneOf":[{"type":"null"},{"type":"integer","connect.type":"int64"}]},"version":'
    '{"type":"string","connect.index":0},"ts_ms":{"type":"integer","connect.index":3,"connect.type":"int64"},'
    '"snapshot":{"connect.index":4,"oneOf":[{"type":"null"},{"type":"string","title":"io.debezium.data.Enum",'
    '"default":"false","connect.version":1,"connect.parameters":{"allowed":"true,last,false,incremental"}}]},'
    '"db":{"type":"string","connect.index":5},"table":{"type":"string","connect.index":8}}},"ts_ms":'
    '{"connect.index":4,"oneOf":[{"type":"null"},{"type":"integer","connect.type":"int64"}]},"transaction":'
    '{"connect.index":5,"oneOf":[{"type":"null"},{"type":"object","title":"event.block","connect.version":1,'
    '"properties":{"data_collection_order":{"type":"integer","connect.index":2,"connect.type":"int64"},"id":'
    '{"type":"string","connect.index":0},"total_order":{"type":"integer","connect.index":1,"connect.type":'
    '"int64"}}}]}}}'
)


def test_the_text_is_byte_for_byte_the_one_confluent_registered_for_a_debezium_envelope() -> None:
    assert schema_text(debezium_envelope(), DEFAULTS) == DEBEZIUM_ENVELOPE_TEXT


def _struct_s() -> Schema:
    return B.struct().name("S").field("a", B.int32().build()).field("b", _string()).build()


CASES: list[tuple[str, Schema, JsonSchemaDataOptions, str]] = [
    ("int8", B.int8().build(), DEFAULTS, '{"type":"integer","connect.type":"int8"}'),
    ("int16", B.int16().build(), DEFAULTS, '{"type":"integer","connect.type":"int16"}'),
    ("int32", B.int32().build(), DEFAULTS, '{"type":"integer","connect.type":"int32"}'),
    ("int64", B.int64().build(), DEFAULTS, '{"type":"integer","connect.type":"int64"}'),
    ("float32", B.float32().build(), DEFAULTS, '{"type":"number","connect.type":"float32"}'),
    ("float64", B.float64().build(), DEFAULTS, '{"type":"number","connect.type":"float64"}'),
    ("boolean", B.bool().build(), DEFAULTS, '{"type":"boolean"}'),
    ("string", _string(), DEFAULTS, '{"type":"string"}'),
    ("bytes", B.bytes().build(), DEFAULTS, '{"type":"string","connect.type":"bytes"}'),
    (
        "optional with default",
        B.int16().optional().default_value(5).build(),
        DEFAULTS,
        '{"oneOf":[{"type":"null"},{"type":"integer","default":5,"connect.type":"int16"}]}',
    ),
    (
        "name, doc, version",
        B.string().name("n.S").doc("some doc").version(3).build(),
        DEFAULTS,
        '{"type":"string","title":"n.S","description":"some doc","connect.version":3}',
    ),
    (
        "parameters in HashMap order",
        B.string().parameter("a", "1").parameter("b", "2").parameter("zz", "3").build(),
        DEFAULTS,
        '{"type":"string","connect.parameters":{"zz":"3","a":"1","b":"2"}}',
    ),
    (
        "decimal base64",
        Decimal.schema(2),
        DEFAULTS,
        '{"type":"string","title":"org.apache.kafka.connect.data.Decimal","connect.version":1,'
        '"connect.type":"bytes","connect.parameters":{"scale":"2"}}',
    ),
    (
        "decimal numeric",
        Decimal.builder(3).parameter("connect.decimal.precision", "10").build(),
        JsonSchemaDataOptions(decimal_numeric=True),
        '{"type":"number","title":"org.apache.kafka.connect.data.Decimal","connect.version":1,'
        '"connect.type":"bytes","connect.parameters":{"scale":"3","connect.decimal.precision":"10"}}',
    ),
    (
        "date",
        Date.builder().build(),
        DEFAULTS,
        '{"type":"integer","title":"org.apache.kafka.connect.data.Date","connect.version":1,"connect.type":"int32"}',
    ),
    (
        "time",
        Time.builder().build(),
        DEFAULTS,
        '{"type":"integer","title":"org.apache.kafka.connect.data.Time","connect.version":1,"connect.type":"int32"}',
    ),
    (
        "timestamp with default",
        Timestamp.builder()
        .default_value(datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc))
        .build(),
        DEFAULTS,
        '{"type":"integer","title":"org.apache.kafka.connect.data.Timestamp","default":1577836800000,'
        '"connect.version":1,"connect.type":"int64"}',
    ),
    (
        "double default in BigDecimal digits",
        B.float64().default_value(1e20).build(),
        DEFAULTS,
        '{"type":"number","default":1.0E+20,"connect.type":"float64"}',
    ),
    (
        "double default 1.0 as org.json prints it",
        B.float64().default_value(1.0).build(),
        DEFAULTS,
        '{"type":"number","default":1,"connect.type":"float64"}',
    ),
    (
        "float default",
        B.float32().default_value(0.1).build(),
        DEFAULTS,
        '{"type":"number","default":0.1,"connect.type":"float32"}',
    ),
    (
        "enum",
        B.string()
        .parameter("io.confluent.connect.json.Enum", "")
        .parameter("io.confluent.connect.json.Enum.A", "A")
        .parameter("io.confluent.connect.json.Enum.B", "B")
        .build(),
        DEFAULTS,
        '{"enum":["A","B"]}',
    ),
    (
        "optional array of optional",
        B.array(B.int64().optional().build()).optional().build(),
        DEFAULTS,
        '{"oneOf":[{"type":"null"},{"type":"array","items":{"oneOf":[{"type":"null"},'
        '{"type":"integer","connect.type":"int64"}]}}]}',
    ),
    (
        "map with string keys",
        B.map(_string(), B.int64().build()).build(),
        DEFAULTS,
        '{"type":"object","connect.type":"map","additionalProperties":{"type":"integer","connect.type":"int64"}}',
    ),
    (
        "map with other keys",
        B.map(B.int32().build(), _string()).build(),
        DEFAULTS,
        # "value" comes before "key" in a HashMap of 16 buckets.
        '{"type":"array","connect.type":"map","items":{"type":"object","properties":{"value":{"type":"string",'
        '"connect.index":1},"key":{"type":"integer","connect.index":0,"connect.type":"int32"}}}}',
    ),
    (
        "struct without additional properties, with a default",
        B.struct()
        .name("S")
        .field("a", B.int32().build())
        .field("b", _string())
        .default_value(Struct(_struct_s()).put("a", 1).put("b", "x"))
        .build(),
        JsonSchemaDataOptions(allow_additional_properties=False),
        '{"type":"object","additionalProperties":false,"title":"S","default":{"a":1,"b":"x"},"properties":'
        '{"a":{"type":"integer","connect.index":0,"connect.type":"int32"},"b":{"type":"string","connect.index":1}}}',
    ),
    (
        "one-of struct",
        B.struct()
        .name("io.confluent.connect.json.OneOf")
        .field("io.confluent.connect.json.OneOf.field.0", B.int64().optional().build())
        .field("io.confluent.connect.json.OneOf.field.1", B.string().optional().build())
        .optional()
        .build(),
        DEFAULTS,
        '{"oneOf":[{"type":"null"},{"type":"integer","connect.index":0,"connect.type":"int64"},'
        '{"type":"string","connect.index":1}]}',
    ),
]


@pytest.mark.parametrize(("schema", "options", "text"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_connect_schemas_map_to_confluents_text(
    schema: Schema, options: JsonSchemaDataOptions, text: str
) -> None:
    assert schema_text(schema, options) == text


@pytest.mark.parametrize(
    ("schema", "options"),
    [c[1:3] for c in CASES if c[0] not in ("one-of struct",)] + [(debezium_envelope(), DEFAULTS)],
    ids=[c[0] for c in CASES if c[0] != "one-of struct"] + ["debezium"],
)
def test_the_text_reads_back_into_the_same_connect_schema(
    schema: Schema, options: JsonSchemaDataOptions
) -> None:
    assert to_connect_schema(orjson.loads(schema_text(schema, options)), None, options) == schema


def test_java_hashmap_order_is_bucket_order() -> None:
    # "zz" hashes to bucket 0 of 16, "a" to 1, "b" to 2.
    assert java_hashmap_order(["a", "b", "zz"], 16) == ["zz", "a", "b"]


def test_the_subject_version_is_the_top_schemas_version_unless_connect_version_says_otherwise() -> None:
    assert to_connect_schema({"type": "string"}, 4, DEFAULTS).version == 4
    assert to_connect_schema({"type": "string", "connect.version": 2}, 4, DEFAULTS).version == 2
    nested = to_connect_schema({"type": "object", "properties": {"a": {"type": "string"}}}, 4, DEFAULTS)
    assert nested.version == 4 and nested.fields[0].schema.version is None


def test_schemas_written_by_other_tools_read_as_confluent_reads_them() -> None:
    node = {
        "type": "object",
        "title": "Person",
        "required": ["name"],
        "definitions": {"Address": {"type": "object", "properties": {"city": {"type": "string"}}}},
        "properties": {
            "name": {"type": "string"},
            "age": {"type": ["integer", "null"]},
            "kind": {"enum": ["a", "b"]},
            "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "home": {"$ref": "#/definitions/Address"},
            "tags": {"type": "array", "items": {"type": "number"}},
        },
    }
    schema = to_connect_schema(node, 1, JsonSchemaDataOptions(use_optional_for_nonrequired=True))
    fields = {f.name: f.schema for f in schema.fields}
    # Without connect.index, Confluent numbers properties in everit's HashMap order (buckets 2, 6, 8, 14, 15).
    assert [f.name for f in schema.fields] == ["either", "kind", "name", "age", "home", "tags"]
    assert schema.name == "Person" and schema.version == 1
    assert fields["name"].optional is False and fields["age"] == B.int64().optional().build()
    assert fields["kind"].parameters == {
        "io.confluent.connect.json.Enum": "",
        "io.confluent.connect.json.Enum.a": "a",
        "io.confluent.connect.json.Enum.b": "b",
    }
    assert fields["either"].name == "io.confluent.connect.json.OneOf" and fields["either"].optional
    assert [f.schema.type for f in fields["either"].fields] == [Type.STRING, Type.INT64]
    assert fields["home"].type is Type.STRUCT and fields["home"].optional
    assert fields["tags"].value_schema == B.float64().build()


@pytest.mark.parametrize(
    ("node", "message"),
    [
        ({"allOf": [{"const": True}, {"type": "boolean"}]}, "allOf"),
        ({}, "Variant"),
        ({"type": "integer", "connect.type": "int128"}, "Unsupported type int128"),
        ({"type": "array"}, "items"),
        ({"$ref": "other.json"}, "reference"),
    ],
)
def test_what_kconnect_cannot_map_is_a_data_error(node: Any, message: str) -> None:
    with pytest.raises(DataError, match=message):
        to_connect_schema(node, None, DEFAULTS)


def _record() -> tuple[Schema, Struct]:
    schema = (
        B.struct()
        .name("R")
        .field("i8", B.int8().build())
        .field("f32", B.float32().build())
        .field("raw", B.bytes().build())
        .field("dec", Decimal.schema(2))
        .field("day", Date.builder().build())
        .field("opt", B.string().optional().build())
        .field("dflt", B.int32().optional().default_value(7).build())
        .field("m", B.map(B.int32().build(), _string()).build())
        .build()
    )
    value = (
        Struct(schema)
        .put("i8", -3)
        .put("f32", 0.1)
        .put("raw", b"\x00\xff")
        .put("dec", decimal.Decimal("-1.25"))
        .put("day", datetime.date(1970, 1, 11))
        .put("m", {1: "one"})
    )
    return schema, value


def test_values_are_written_as_confluent_writes_them() -> None:
    schema, value = _record()
    assert orjson.loads(orjson.dumps(compile_encoder(schema, DEFAULTS)(value))) == {
        "i8": -3,
        "f32": 0.1,
        "raw": "AP8=",
        "dec": "gw==",  # -125 unscaled, one byte of two's complement
        "day": 10,
        "opt": None,
        "dflt": 7,
        "m": [{"key": 1, "value": "one"}],
    }
    ignoring = JsonSchemaDataOptions(ignore_default_for_nullables=True, decimal_numeric=True)
    written = orjson.dumps(compile_encoder(schema, ignoring)(value))
    assert b'"dflt":null' in written and b'"dec":-1.25' in written


def test_values_read_back_and_missing_or_null_fields_follow_confluents_rules() -> None:
    schema, value = _record()
    decode = compile_decoder(schema, DEFAULTS)
    node = orjson.loads(orjson.dumps(compile_encoder(schema, DEFAULTS)(value)))
    back = decode(node)
    assert [back.get(f) for f in schema.fields] == [value.get(f) for f in schema.fields]
    del node["dflt"], node["opt"]
    assert decode(node).get("dflt") == 7 and decode(node).get_without_default("opt") is None
    node["i8"] = None
    with pytest.raises(DataError, match="Invalid null value for required INT8 field"):
        decode(node)
    with pytest.raises(DataError, match="Structs should be encoded as JSON objects, but found ARRAY"):
        decode([])


def test_a_one_of_reads_into_the_branch_the_value_matches() -> None:
    union = to_connect_schema({"oneOf": [{"type": "string"}, {"type": "integer"}]}, None, DEFAULTS)
    read = compile_decoder(union, DEFAULTS)(5)
    assert read.get("io.confluent.connect.json.OneOf.field.1") == 5
    assert read.get("io.confluent.connect.json.OneOf.field.0") is None
    assert compile_encoder(union, DEFAULTS)(read) == 5


def test_keys_whose_other_values_are_not_implemented_are_refused() -> None:
    config = json_schema_config_def(__import__("kconnect_schema_registry.config").config.serde_config_def())
    for key in ("preserve.additional.properties",):
        parsed = config.parse({"schema.registry.url": "http://r", key: "true"})
        with pytest.raises(ConfigException, match=key):
            options_from_parsed(parsed)
    parsed = config.parse(
        {
            "schema.registry.url": "http://r",
            "decimal.format": "numeric",
            "object.additional.properties": "false",
        }
    )
    assert options_from_parsed(parsed) == JsonSchemaDataOptions(
        decimal_numeric=True, allow_additional_properties=False
    )


def test_which_nulls_are_written_as_payloads_and_which_are_tombstones() -> None:
    from kconnect_schema_registry.json_schema.converter import JsonSchemaConverter
    from kconnect_schema_registry.json_schema.format import JsonSchemaFormat

    conv = JsonSchemaConverter()
    conv.configure({"schema.registry.url": "http://127.0.0.1:9"}, False)  # configure sends no request
    optional, required = B.int32().optional().build(), B.int32().build()
    defaulted = B.int32().default_value(3).build()
    assert [conv.writes_null(s) for s in (None, required, optional, defaulted)] == [False, False, True, True]
    fmt = JsonSchemaFormat(DEFAULTS, 10)
    doc = fmt.from_connect_schema(optional)
    assert fmt.encode(doc, optional, None) == b"null"
    assert fmt.encode(doc, defaulted, None) == b"3"
    assert fmt.decode(doc, optional, memoryview(b"null")) is None
    ignoring = JsonSchemaConverter()
    ignoring.configure(
        {"schema.registry.url": "http://127.0.0.1:9", "ignore.default.for.nullables": "true"}, False
    )
    assert not ignoring.writes_null(defaulted)
    conv.close()
    ignoring.close()


def test_a_null_default_is_no_default() -> None:
    node = {"type": "object", "properties": {"a": {"type": ["string", "null"], "default": None}}}
    assert to_connect_schema(node, None, DEFAULTS).fields[0].schema == B.string().optional().build()


def test_all_of_reads_as_confluent_reads_it() -> None:
    options = JsonSchemaDataOptions(use_optional_for_nonrequired=True)
    merged = {
        "allOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}},
            {"$ref": "#/definitions/B"},
        ],
        "definitions": {"B": {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]}},
    }
    schema = to_connect_schema(merged, 3, options)
    assert (
        schema == B.struct().field("a", B.string().optional().build()).field("b", B.int64().build()).build()
    )
    # An object beside a oneOf is an allOf of both for everit: the object's properties make the struct.
    beside = {"type": "object", "properties": {"a": {"type": "string"}}, "oneOf": [{"required": ["a"]}]}
    assert [f.name for f in to_connect_schema(beside, None, DEFAULTS).fields] == ["a"]
    enum = to_connect_schema({"allOf": [{"type": "string"}, {"enum": ["x", "y"]}]}, None, DEFAULTS)
    assert enum.parameters is not None and enum.parameters["io.confluent.connect.json.Enum.y"] == "y"
    number = to_connect_schema({"allOf": [{"type": "string"}, {"type": "integer"}]}, None, DEFAULTS)
    assert number == B.int64().build()


def test_json_fail_invalid_schema_validates_payloads_both_ways() -> None:
    from kconnect_schema_registry.json_schema.format import JsonSchemaFormat

    schema = B.struct().name("V").field("n", B.int8().build()).build()
    text = schema_text(schema, DEFAULTS)
    node = orjson.loads(text)
    node["properties"]["n"]["maximum"] = 10  # a constraint only a hand-written schema has
    checking = JsonSchemaFormat(JsonSchemaDataOptions(validate=True), 10)
    from kconnect_schema_registry.json_schema.format import JsonSchemaDoc

    doc = JsonSchemaDoc(orjson.dumps(node).decode(), node)
    assert checking.encode(doc, schema, Struct(schema).put("n", 3)) == b'{"n":3}'
    with pytest.raises(DataError, match=r"Validation error in JSON, Error report: #/n: 11 is greater than"):
        checking.encode(doc, schema, Struct(schema).put("n", 11))
    with pytest.raises(DataError, match="Validation error in JSON"):
        checking.decode(doc, schema, memoryview(b'{"n":"x"}'))
    lenient = JsonSchemaFormat(DEFAULTS, 10)
    assert lenient.encode(doc, schema, Struct(schema).put("n", 11)) == b'{"n":11}'


def test_generalized_sum_types_read_and_write_as_confluent_maps_them() -> None:
    generalized = JsonSchemaDataOptions(generalized_sum_type_support=True)
    node = {
        "type": "object",
        "properties": {
            "a": {"oneOf": [{"type": "null"}, {"type": "string"}]},
            "b": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "e": {"enum": ["x", "y"]},
        },
    }
    schema = to_connect_schema(node, None, generalized)
    a, b, e = (f.schema for f in schema.fields)
    assert a == B.string().optional().build()
    # The optional "a" used connect_union_0: Confluent numbers unions before it spots the null branch.
    assert b.name == "connect_union_1" and b.parameters == {
        "org.apache.kafka.connect.data.Union": "connect_union_1"
    }
    assert [f.name for f in b.fields] == ["connect_union_field_0", "connect_union_field_1"]
    assert e.parameters == {
        "org.apache.kafka.connect.data.Enum": "",
        "org.apache.kafka.connect.data.Enum.x": "0",
        "org.apache.kafka.connect.data.Enum.y": "1",
    }
    written = orjson.loads(schema_text(schema, generalized))
    assert written["properties"]["e"]["enum"] == ["x", "y"]
    assert written["properties"]["b"]["oneOf"][1] == {
        "type": "integer",
        "connect.index": 1,
        "connect.type": "int64",
    }
    value = compile_decoder(schema, generalized)({"a": None, "b": 5, "e": "y"})
    assert value.get("b").get("connect_union_field_1") == 5
    assert compile_encoder(schema, generalized)(value) == {"a": None, "b": 5, "e": "y"}
    # A union from another format (a Protobuf oneof) is written as a oneOf whatever the setting.
    union = B.struct().name("Choice").parameter("org.apache.kafka.connect.data.Union", "Choice")
    union = union.field("i", B.int32().optional().build()).field("s", _optional_string()).build()
    assert schema_text(union, DEFAULTS) == (
        '{"oneOf":[{"type":"integer","connect.index":0,"connect.type":"int32"},{"type":"string","connect.index":1}]}'
    )


def test_ignore_modern_dialects_validates_a_2020_12_schema_as_draft_7() -> None:
    from kconnect_schema_registry.json_schema.format import JsonSchemaDoc, JsonSchemaFormat

    node = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
        "dependentRequired": {"a": ["b"]},  # a 2019-09 keyword draft 7 does not know
    }
    doc = JsonSchemaDoc(orjson.dumps(node).decode(), node)
    schema = to_connect_schema(node, None, DEFAULTS)
    payload = memoryview(b'{"a":"x"}')
    with pytest.raises(DataError, match="Validation error in JSON"):
        JsonSchemaFormat(JsonSchemaDataOptions(validate=True), 10).decode(doc, schema, payload)
    draft7 = JsonSchemaFormat(JsonSchemaDataOptions(validate=True, ignore_modern_dialects=True), 10)
    assert draft7.decode(doc, schema, payload).get("a") == "x"


# What Jackson 2.21 with INDENT_OUTPUT (Confluent's json.indent.output) wrote for the same tree.
JACKSON_PRETTY = (
    '{\n  "a" : 1,\n  "b" : [ 1, {\n    "c" : 2,\n    "d" : [ ]\n  } ],\n  "d" : { },\n  "e" : [ ],\n'
    '  "s" : "x\u00e9",\n  "o" : {\n    "p" : {\n      "q" : null\n    }\n  }\n}'
)


def test_json_indent_output_indents_as_jacksons_pretty_printer() -> None:
    from kconnect_schema_registry.json_schema.pretty import pretty_json

    tree = {"a": 1, "b": [1, {"c": 2, "d": []}], "d": {}, "e": [], "s": "x\u00e9", "o": {"p": {"q": None}}}
    assert pretty_json(tree).decode() == JACKSON_PRETTY


@pytest.mark.parametrize(
    ("schema", "value", "text"),
    [
        (B.float64().build(), 1.5, b"1.5"),
        (B.float64().build(), 1e20, b"1.0E20"),
        (B.float64().build(), 1e-5, b"1.0E-5"),
        (B.float64().build(), 12345678.9, b"1.23456789E7"),
        (B.float64().build(), 5e-324, b"4.9E-324"),
        (B.float64().build(), float("nan"), b'"NaN"'),
        (B.float32().build(), 0.1, b"0.1"),
        (B.float32().build(), 12345678.9, b"1.2345679E7"),
        (B.float32().build(), float("-inf"), b'"-Infinity"'),
    ],
)
def test_floats_are_written_in_javas_digits(schema: Schema, value: float, text: bytes) -> None:
    """Jackson writes Double.toString / Float.toString, and NaN and infinities as strings."""
    assert orjson.dumps(compile_encoder(schema, DEFAULTS)(value)) == text
