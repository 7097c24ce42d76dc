"""Confluent's AvroData mapping: Connect schemas -> the exact Avro text Confluent registers, and back.

Each expected text follows the rules of Confluent's AvroData.java (kafka-connect-avro-data) and is
written in Avro's ``Schema.toString()`` form; each was checked to be a fixed point of Apache Avro
1.12.1's ``Schema.Parser().parse(text).toString()``.
"""

from __future__ import annotations

import datetime
import decimal

import pytest
from kconnect.config import ConfigException
from kconnect.data import logical
from kconnect.data.schema import Schema, SchemaBuilder
from kconnect.data.struct import Struct
from kconnect.errors import DataError
from kconnect_schema_registry.avro.anything import ANYTHING_TEXT
from kconnect_schema_registry.avro.config import AvroDataSettings
from kconnect_schema_registry.avro.converter import AvroConverter
from kconnect_schema_registry.avro.format import AvroFormat
from kconnect_schema_registry.avro.mapping import AvroMapping
from kconnect_schema_registry.avro.names import scrub_name
from kconnect_schema_registry.avro.schema import parse

ENUM = "io.confluent.connect.avro.Enum"
UNION = "io.confluent.connect.avro.Union"
DEC = "org.apache.kafka.connect.data.Decimal"
I32 = SchemaBuilder.int32().build()
STR = SchemaBuilder.string().build()
OPT_I32 = SchemaBuilder.int32().optional().build()
OPT_STR = SchemaBuilder.string().optional().build()
INNER = SchemaBuilder.struct().name("com.x.Inner").field("a", OPT_STR).build()
OPT_INNER = SchemaBuilder.struct().name("com.x.Inner").field("a", OPT_STR).optional().build()
COLOR = (
    SchemaBuilder.string()
    .name("com.x.Color")
    .parameters({ENUM: "com.x.Color", f"{ENUM}.RED": "RED", f"{ENUM}.GREEN": "GREEN"})
    .build()
)
COLOR_PARAMS = (
    '"connect.parameters":{"io.confluent.connect.avro.Enum":"com.x.Color",'
    '"io.confluent.connect.avro.Enum.RED":"RED","io.confluent.connect.avro.Enum.GREEN":"GREEN"}'
)
FIXED = SchemaBuilder.bytes().name("com.x.F").parameter("connect.fixed.size", "4").build()
UNION_SCHEMA = SchemaBuilder.struct().name(UNION).field("int", OPT_I32).field("string", OPT_STR).build()

CASES: list[tuple[str, Schema, str]] = [
    ("int8", SchemaBuilder.int8().build(), '{"type":"int","connect.type":"int8"}'),
    ("int16", SchemaBuilder.int16().build(), '{"type":"int","connect.type":"int16"}'),
    ("int32", I32, '"int"'),
    ("int64", SchemaBuilder.int64().build(), '"long"'),
    ("float32", SchemaBuilder.float32().build(), '"float"'),
    ("float64", SchemaBuilder.float64().build(), '"double"'),
    ("boolean", SchemaBuilder.bool().build(), '"boolean"'),
    ("string", STR, '"string"'),
    ("bytes", SchemaBuilder.bytes().build(), '"bytes"'),
    ("optional", OPT_STR, '["null","string"]'),
    (
        "optional with default: the type first",
        SchemaBuilder.string().optional().default_value("x").build(),
        '[{"type":"string","connect.default":"x"},"null"]',
    ),
    (
        "doc, version, parameters, name",
        SchemaBuilder.int64().name("n.L").version(2).doc("d").parameter("p", "v").build(),
        '{"type":"long","connect.doc":"d","connect.version":2,"connect.parameters":{"p":"v"},"connect.name":"n.L"}',
    ),
    (
        "decimal",
        logical.Decimal.schema(2),
        '{"type":"bytes","scale":2,"precision":64,"connect.version":1,"connect.parameters":{"scale":"2"},'
        f'"connect.name":"{DEC}","logicalType":"decimal"}}',
    ),
    (
        "decimal with connect.decimal.precision",
        logical.Decimal.builder(3).parameter("connect.decimal.precision", "10").build(),
        '{"type":"bytes","scale":3,"precision":10,"connect.version":1,'
        '"connect.parameters":{"scale":"3","connect.decimal.precision":"10"},'
        f'"connect.name":"{DEC}","logicalType":"decimal"}}',
    ),
    (
        "decimal scale > precision: legacy form",
        logical.Decimal.builder(5).parameter("connect.decimal.precision", "3").build(),
        '{"type":"bytes","scale":5,"precision":3,"connect.version":1,'
        '"connect.parameters":{"scale":"5","connect.decimal.precision":"3"},'
        f'"connect.name":"{DEC}","logicalType":"decimal"}}',
    ),
    (
        "date",
        logical.Date.SCHEMA,
        '{"type":"int","connect.version":1,"connect.name":"org.apache.kafka.connect.data.Date","logicalType":"date"}',
    ),
    (
        "time",
        logical.Time.SCHEMA,
        '{"type":"int","connect.version":1,"connect.name":"org.apache.kafka.connect.data.Time",'
        '"logicalType":"time-millis"}',
    ),
    (
        "timestamp",
        logical.Timestamp.SCHEMA,
        '{"type":"long","connect.version":1,"connect.name":"org.apache.kafka.connect.data.Timestamp",'
        '"logicalType":"timestamp-millis"}',
    ),
    ("array", SchemaBuilder.array(I32).build(), '{"type":"array","items":"int"}'),
    ("map with string keys", SchemaBuilder.map(STR, I32).build(), '{"type":"map","values":"int"}'),
    (
        "map with int keys: MapEntry records",
        SchemaBuilder.map(I32, STR).build(),
        '{"type":"array","items":{"type":"record","name":"MapEntry","namespace":"io.confluent.connect.avro",'
        '"fields":[{"name":"key","type":"int"},{"name":"value","type":"string"}]}}',
    ),
    (
        "map with optional string keys: MapEntry records",
        SchemaBuilder.map(OPT_STR, I32).build(),
        '{"type":"array","items":{"type":"record","name":"MapEntry","namespace":"io.confluent.connect.avro",'
        '"fields":[{"name":"key","type":["null","string"],"default":null},{"name":"value","type":"int"}]}}',
    ),
    (
        "named map with int keys",
        SchemaBuilder.map(I32, STR).name("com.x.M").build(),
        '{"type":"array","items":{"type":"record","name":"M","namespace":"com.x","fields":[{"name":"key",'
        '"type":"int"},{"name":"value","type":"string"}],"connect.internal.type":"MapEntry"},'
        '"connect.name":"com.x.M"}',
    ),
    (
        "unnamed structs: ConnectDefault, ConnectDefault2",
        SchemaBuilder.struct()
        .field("a", SchemaBuilder.struct().field("x", I32).build())
        .field("b", SchemaBuilder.struct().field("y", I32).optional().build())
        .build(),
        '{"type":"record","name":"ConnectDefault","namespace":"io.confluent.connect.avro","fields":[{"name":"a",'
        '"type":{"type":"record","name":"ConnectDefault2","fields":[{"name":"x","type":"int"}]}},{"name":"b",'
        '"type":["null",{"type":"record","name":"ConnectDefault3","fields":[{"name":"y","type":"int"}]}],'
        '"default":null}]}',
    ),
    (
        "named struct: doc, version, defaults, a type used twice",
        SchemaBuilder.struct()
        .name("com.example.Rec")
        .version(3)
        .doc("d")
        .field("i32", SchemaBuilder.int32().default_value(5).build())
        .field("f32", SchemaBuilder.float32().optional().default_value(1.5).build())
        .field("first", INNER)
        .field("again", SchemaBuilder.array(INNER).build())
        .field("b", SchemaBuilder.bytes().default_value(b"\x00\xff").build())
        .build(),
        '{"type":"record","name":"Rec","namespace":"com.example","fields":[{"name":"i32","type":{"type":"int",'
        '"connect.default":5},"default":5},{"name":"f32","type":[{"type":"float","connect.default":1.5},"null"],'
        '"default":1.5},{"name":"first","type":{"type":"record","name":"Inner","namespace":"com.x","fields":'
        '[{"name":"a","type":["null","string"],"default":null}],"connect.name":"com.x.Inner"}},{"name":"again",'
        '"type":{"type":"array","items":"com.x.Inner"}},{"name":"b","type":{"type":"bytes",'
        '"connect.default":"\\u0000\u00ff"},"default":"\\u0000\u00ff"}],"connect.doc":"d","connect.version":3,'
        '"connect.name":"com.example.Rec"}',
    ),
    (
        "defaults: float32 as Float.toString, float64 as Double.toString, escaped strings",
        SchemaBuilder.struct()
        .name("D")
        .field("f", SchemaBuilder.float32().default_value(1.1).build())
        .field("g", SchemaBuilder.float64().optional().default_value(1e20).build())
        .field("t", SchemaBuilder.string().default_value('a\x01"\\\u00e9\u2028').build())
        .build(),
        '{"type":"record","name":"D","fields":[{"name":"f","type":{"type":"float","connect.default":1.1},'
        '"default":1.1},{"name":"g","type":[{"type":"double","connect.default":1.0E20},"null"],'
        '"default":1.0E20},{"name":"t","type":{"type":"string","connect.default":"a\\u0001\\"\\\\\u00e9\u2028"},'
        '"default":"a\\u0001\\"\\\\\u00e9\u2028"}],"connect.name":"D"}',
    ),
    (
        "struct default",
        SchemaBuilder.struct()
        .name("R")
        .field(
            "s",
            SchemaBuilder.struct()
            .name("S")
            .field("x", I32)
            .default_value(Struct(SchemaBuilder.struct().name("S").field("x", I32).build()).put("x", 7))
            .build(),
        )
        .build(),
        '{"type":"record","name":"R","fields":[{"name":"s","type":{"type":"record","name":"S","fields":'
        '[{"name":"x","type":"int"}],"connect.default":{"x":7},"connect.name":"S"},"default":{"x":7}}],'
        '"connect.name":"R"}',
    ),
    (
        "map default with int keys: no field default (Avro refuses it)",
        SchemaBuilder.struct()
        .name("R")
        .field("m", SchemaBuilder.map(I32, I32).default_value({1: 2}).build())
        .build(),
        '{"type":"record","name":"R","fields":[{"name":"m","type":{"type":"array","items":{"type":"record",'
        '"name":"MapEntry","namespace":"io.confluent.connect.avro","fields":[{"name":"key","type":"int"},'
        '{"name":"value","type":"int"}]},"connect.default":[[1,2]]}}],"connect.name":"R"}',
    ),
    (
        "enum without enhanced.avro.schema.support: a string",
        COLOR,
        f'{{"type":"string",{COLOR_PARAMS},"connect.name":"com.x.Color"}}',
    ),
    (
        "fixed",
        FIXED,
        '{"type":"fixed","name":"F","namespace":"com.x","size":4,"connect.parameters":{"connect.fixed.size":"4"},'
        '"connect.name":"com.x.F"}',
    ),
    ("union", UNION_SCHEMA, '["int","string"]'),
    (
        "optional union",
        SchemaBuilder.struct().name(UNION).field("int", OPT_I32).field("Inner", OPT_INNER).optional().build(),
        '["null","int",{"type":"record","name":"Inner","namespace":"com.x","fields":[{"name":"a","type":'
        '["null","string"],"default":null}],"connect.name":"com.x.Inner"}]',
    ),
]


@pytest.mark.parametrize(("schema", "text"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_connect_to_avro_text(schema: Schema, text: str) -> None:
    assert AvroMapping().from_connect_schema(schema).text() == text


ROUND_TRIPS = [c for c in CASES if "default" not in c[0] and "legacy" not in c[0]]


@pytest.mark.parametrize(("schema", "text"), [c[1:] for c in ROUND_TRIPS], ids=[c[0] for c in ROUND_TRIPS])
def test_avro_text_back_to_the_same_connect_schema(schema: Schema, text: str) -> None:
    assert AvroMapping().to_connect_schema(parse(text)) == schema


def test_enhanced_enum_and_back() -> None:
    mapping = AvroMapping(AvroDataSettings(enhanced_schema_support=True))
    text = mapping.from_connect_schema(COLOR).text()
    assert text == (
        f'{{"type":"enum","name":"Color","namespace":"com.x","symbols":["RED","GREEN"],{COLOR_PARAMS},'
        '"connect.name":"com.x.Color"}'
    )
    assert mapping.to_connect_schema(parse(text)) == COLOR


def test_connect_meta_data_off() -> None:
    mapping = AvroMapping(AvroDataSettings(connect_meta_data=False))
    schema = SchemaBuilder.struct().name("a.R").version(2).field("b", SchemaBuilder.int8().build()).build()
    assert mapping.from_connect_schema(schema).text() == (
        '{"type":"record","name":"R","namespace":"a","fields":[{"name":"b","type":"int"}]}'
    )
    assert mapping.from_connect_schema(logical.Date.SCHEMA).text() == '{"type":"int","logicalType":"date"}'


def test_scrub_invalid_names() -> None:
    assert [scrub_name(n) for n in ("ok_1", "a-b", "my rec", "1abc", "é")] == [
        "ok_1",
        "a_b",
        "my_rec",
        "x1abc",
        "_C3_A9",
    ]
    mapping = AvroMapping(AvroDataSettings(scrub_invalid_names=True))
    schema = SchemaBuilder.struct().name("my-ns.my rec").field("a-b", I32).build()
    assert mapping.from_connect_schema(schema).text() == (
        '{"type":"record","name":"my_rec","namespace":"my_ns","fields":[{"name":"a_b","type":"int"}],'
        '"connect.name":"my-ns.my rec"}'
    )


def test_foreign_avro_to_connect() -> None:
    """Avro written by other producers: docs, Avro defaults, enums, unions, fixed."""
    text = (
        '{"type":"record","name":"Order","namespace":"shop","doc":"an order","fields":['
        '{"name":"id","type":"long","doc":"the id","default":7},'
        '{"name":"state","type":{"type":"enum","name":"State","symbols":["NEW","DONE"],"default":"NEW"}},'
        '{"name":"either","type":["int","string","null"]},'
        '{"name":"hash","type":{"type":"fixed","name":"Hash","size":2}},'
        '{"name":"when","type":{"type":"long","logicalType":"timestamp-millis"}},'
        '{"name":"price","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}}]}'
    )
    schema = AvroMapping().to_connect_schema(parse(text), version=4)
    assert schema.name == "shop.Order" and schema.version == 4
    assert dict(schema.parameters or {}) == {
        "io.confluent.connect.avro.record.doc": "an order",
        "io.confluent.connect.avro.field.doc.id": "the id",
    }
    fields = {f.name: f.schema for f in schema.fields}
    assert (
        fields["id"]
        == SchemaBuilder.int64()
        .parameter("io.confluent.connect.avro.field.default", "true")
        .default_value(7)
        .build()
    )
    assert fields["state"] == (
        SchemaBuilder.string()
        .name("shop.State")
        .parameters(
            {
                "io.confluent.connect.avro.enum.default.State": "NEW",
                ENUM: "shop.State",
                f"{ENUM}.NEW": "NEW",
                f"{ENUM}.DONE": "DONE",
            }
        )
        .build()
    )
    assert fields["either"] == (
        SchemaBuilder.struct().name(UNION).field("int", OPT_I32).field("string", OPT_STR).optional().build()
    )
    assert (
        fields["hash"] == SchemaBuilder.bytes().name("shop.Hash").parameter("connect.fixed.size", "2").build()
    )
    assert fields["when"] == logical.Timestamp.SCHEMA
    assert fields["price"] == logical.Decimal.builder(2).parameter("connect.decimal.precision", "9").build()


def test_recursive_avro_is_refused() -> None:
    text = '{"type":"record","name":"Node","fields":[{"name":"next","type":["null","Node"]}]}'
    with pytest.raises(DataError, match="Recursive"):
        AvroMapping().to_connect_schema(parse(text))


# --- values ----------------------------------------------------------------------------------------

EVERYTHING = (
    SchemaBuilder.struct()
    .name("com.example.All")
    .field("i8", SchemaBuilder.int8().build())
    .field("i16", SchemaBuilder.int16().build())
    .field("i32", I32)
    .field("i64", SchemaBuilder.int64().build())
    .field("f32", SchemaBuilder.float32().build())
    .field("f64", SchemaBuilder.float64().build())
    .field("bool", SchemaBuilder.bool().build())
    .field("str", STR)
    .field("bytes", SchemaBuilder.bytes().build())
    .field("dec", logical.Decimal.schema(2))
    .field("date", logical.Date.SCHEMA)
    .field("time", logical.Time.SCHEMA)
    .field("ts", logical.Timestamp.SCHEMA)
    .field("opt", OPT_STR)
    .field("dflt", SchemaBuilder.int32().optional().default_value(9).build())
    .field("arr", SchemaBuilder.array(INNER).build())
    .field("smap", SchemaBuilder.map(STR, OPT_I32).build())
    .field("imap", SchemaBuilder.map(I32, logical.Date.SCHEMA).build())
    .field("inner", INNER)
    .field("color", COLOR)
    .field("fixed", FIXED)
    .field("union", UNION_SCHEMA)
    .build()
)


def everything() -> Struct:
    return (
        Struct(EVERYTHING)
        .put("i8", -5)
        .put("i16", 300)
        .put("i32", -70000)
        .put("i64", 2**40)
        .put("f32", 1.5)
        .put("f64", 2.25)
        .put("bool", True)
        .put("str", "héllo")
        .put("bytes", b"\x00\x01")
        .put("dec", decimal.Decimal("-12.34"))
        .put("date", datetime.date(2024, 2, 29))
        .put("time", datetime.time(13, 14, 15, 16000))
        .put("ts", datetime.datetime(2024, 2, 29, 1, 2, 3, 4000, tzinfo=datetime.timezone.utc))
        .put("arr", [Struct(INNER).put("a", "x"), Struct(INNER)])
        .put("smap", {"a": 1, "b": None})
        .put("imap", {1: datetime.date(1970, 1, 2)})
        .put("inner", Struct(INNER).put("a", "y"))
        .put("color", "GREEN")
        .put("fixed", b"abcd")
        .put("union", Struct(UNION_SCHEMA).put("string", "u"))
    )


@pytest.mark.parametrize("enhanced", [False, True])
def test_values_round_trip(enhanced: bool) -> None:
    fmt = AvroFormat(AvroDataSettings(enhanced_schema_support=enhanced))
    writer = fmt.from_connect_schema(EVERYTHING)
    payload = fmt.encode(writer, EVERYTHING, everything())
    reader = fmt.parse(fmt.schema_text(writer), None)  # type: ignore[arg-type]  # no references
    connect = fmt.to_connect_schema(reader)
    assert connect == EVERYTHING
    value = fmt.decode(reader, connect, memoryview(payload))
    expected = everything().put("dflt", 9)  # the default is written for a null field
    assert value == expected


def test_value_bytes_are_avro_binary() -> None:
    fmt = AvroFormat(AvroDataSettings())
    schema = (
        SchemaBuilder.struct()
        .name("R")
        .field("a", I32)
        .field("b", OPT_STR)
        .field("c", SchemaBuilder.int8().build())
        .build()
    )
    payload = fmt.encode(
        fmt.from_connect_schema(schema), schema, Struct(schema).put("a", -1).put("b", "hi").put("c", 3)
    )
    assert payload == b"\x01\x02\x04hi\x06"


def test_mismatching_struct_is_a_data_error() -> None:
    fmt = AvroFormat(AvroDataSettings())
    other = SchemaBuilder.struct().name("Other").field("a", I32).build()
    with pytest.raises(DataError, match="Mismatching struct schema"):
        fmt.encode(fmt.from_connect_schema(INNER), INNER, Struct(other).put("a", 1))


def test_schemaless_values_are_anything_records() -> None:
    fmt = AvroFormat(AvroDataSettings())
    writer = fmt.from_connect_schema(None)
    assert writer.text == ANYTHING_TEXT
    value = {"a": [1, None, 2.5, "x", b"\x01", True], 7: {"n": None}}
    payload = fmt.encode(writer, None, value)
    reader = fmt.parse(fmt.schema_text(writer), None)  # type: ignore[arg-type]  # no references
    assert fmt.to_connect_schema(reader) is None
    assert fmt.decode(reader, None, memoryview(payload)) == value
    # One long field set: index 5 of the record, null branches 0 before it, then Avro's long 3.
    assert fmt.encode(writer, None, 3) == b"\x00" * 5 + b"\x02\x06" + b"\x00" * 3
    with pytest.raises(DataError, match="Unknown Java type for schemaless data"):
        fmt.encode(writer, None, object())


def test_avro_data_config_keys() -> None:
    """Every AvroDataConfig key is defined with Confluent's default; the generalized sum types are refused."""
    assert AvroConverter.config_def is not None
    parsed = AvroConverter.config_def.parse({"schema.registry.url": "http://registry:8081"})
    assert {k: parsed[k] for k in DEFAULTS} == DEFAULTS
    converter = AvroConverter()
    with pytest.raises(ConfigException, match=r"generalized\.sum\.type\.support=true is not supported"):
        converter.configure(
            {"schema.registry.url": "http://registry:8081", "generalized.sum.type.support": "true"}, False
        )


DEFAULTS = {
    "generalized.sum.type.support": False,
    "ignore.default.for.nullables": False,
    "schemas.cache.config": 1000,
    "enhanced.avro.schema.support": False,
    "scrub.invalid.names": False,
    "connect.meta.data": True,
    "discard.type.doc.default": False,
    "allow.optional.map.keys": False,
    "flatten.singleton.unions": True,
}


def test_record_name_is_set_for_records_only() -> None:
    """RecordNameStrategy names records only, as Confluent's ``AvroSchema.name()``."""
    fmt = AvroFormat(AvroDataSettings(enhanced_schema_support=True))
    assert fmt.record_name(fmt.from_connect_schema(INNER)) == "com.x.Inner"
    assert fmt.record_name(fmt.from_connect_schema(COLOR)) is None
    assert fmt.record_name(fmt.from_connect_schema(FIXED)) is None


def test_discard_type_doc_default() -> None:
    """``discard.type.doc.default``: Connect field docs are Avro field docs, and back."""
    mapping = AvroMapping(AvroDataSettings(discard_type_doc_default=True))
    schema = (
        SchemaBuilder.struct()
        .name("R")
        .parameter("connect.record.doc", "a record")
        .field("a", SchemaBuilder.int32().doc("an int").build())
        .build()
    )
    text = mapping.from_connect_schema(schema).text()
    assert text == (
        '{"type":"record","name":"R","doc":"a record","fields":[{"name":"a","type":{"type":"int",'
        '"connect.doc":"an int"},"doc":"an int"}],"connect.parameters":{"connect.record.doc":"a record"},'
        '"connect.name":"R"}'
    )
    back = mapping.to_connect_schema(parse(text))
    assert back.doc == "a record"
    assert back.fields[0].schema.doc == "an int"


def test_optional_fixed_decimal_is_sign_extended() -> None:
    """A Decimal with ``connect.fixed.size`` is an Avro fixed; its value is padded to the size."""
    schema = (
        logical.Decimal.builder(2)
        .parameter("connect.fixed.size", "8")
        .parameter("connect.decimal.precision", "18")
        .optional()
        .build()
    )
    record = SchemaBuilder.struct().name("R").field("d", schema).build()
    fmt = AvroFormat(AvroDataSettings())
    writer = fmt.from_connect_schema(record)
    assert writer.text == (
        '{"type":"record","name":"R","fields":[{"name":"d","type":["null",{"type":"fixed","name":"Decimal",'
        '"namespace":"org.apache.kafka.connect.data","size":8,"scale":2,"precision":18,"connect.version":1,'
        '"connect.parameters":{"scale":"2","connect.fixed.size":"8","connect.decimal.precision":"18"},'
        '"connect.name":"org.apache.kafka.connect.data.Decimal","logicalType":"decimal"}],"default":null}],'
        '"connect.name":"R"}'
    )
    payload = fmt.encode(writer, record, Struct(record).put("d", decimal.Decimal("-1.00")))
    assert payload == b"\x02" + b"\xff" * 7 + b"\x9c"
    reader = fmt.parse(fmt.schema_text(writer), None)  # type: ignore[arg-type]  # no references
    connect = fmt.to_connect_schema(reader)
    assert connect is not None
    assert fmt.decode(reader, connect, memoryview(payload)).get("d") == decimal.Decimal("-1.00")
    too_precise = logical.Decimal.builder(2).parameter("connect.fixed.size", "8").build()
    with pytest.raises(DataError, match=r"fixed\(8\) cannot store 64 digits \(max 18\)"):
        fmt.from_connect_schema(too_precise)


def test_two_different_map_entries_share_the_first_definition() -> None:
    """As Avro 1.12's Schema.toString(): the second MapEntry is written as a reference to the first,
    so a value of the second map does not fit the registered schema and is refused."""
    schema = (
        SchemaBuilder.struct()
        .name("R")
        .field("a", SchemaBuilder.map(I32, STR).build())
        .field("b", SchemaBuilder.map(I32, I32).build())
        .build()
    )
    fmt = AvroFormat(AvroDataSettings())
    writer = fmt.from_connect_schema(schema)
    assert writer.text == (
        '{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"array","items":{"type":"record",'
        '"name":"MapEntry","namespace":"io.confluent.connect.avro","fields":[{"name":"key","type":"int"},'
        '{"name":"value","type":"string"}]}}},{"name":"b","type":{"type":"array","items":'
        '"io.confluent.connect.avro.MapEntry"}}],"connect.name":"R"}'
    )
    with pytest.raises(TypeError):  # the converter reports it as a DataError ("Failed to serialize")
        fmt.encode(writer, schema, Struct(schema).put("a", {1: "x"}).put("b", {2: 3}))


def test_a_union_of_int_and_long_reads_back_the_branch_written() -> None:
    """fastavro cannot tell an int branch from a long one; such schemas are read branch by branch."""
    opt_i64 = SchemaBuilder.int64().optional().build()
    opt_f32 = SchemaBuilder.float32().optional().build()
    opt_f64 = SchemaBuilder.float64().optional().build()
    numbers = SchemaBuilder.struct().name(UNION).field("int", OPT_I32).field("long", opt_i64).build()
    reals = (
        SchemaBuilder.struct().name(UNION).field("float", opt_f32).field("double", opt_f64).optional().build()
    )
    schema = (
        SchemaBuilder.struct()
        .name("R")
        .field("n", SchemaBuilder.array(numbers).build())
        .field("r", reals)
        .field("m", SchemaBuilder.map(STR, SchemaBuilder.array(OPT_STR).build()).build())
        .field("c", COLOR)
        .build()
    )
    fmt = AvroFormat(AvroDataSettings(enhanced_schema_support=True))
    writer = fmt.from_connect_schema(schema)
    value = (
        Struct(schema)
        .put("n", [Struct(numbers).put("long", 5), Struct(numbers).put("int", 6)])
        .put("r", Struct(reals).put("double", 0.5))
        .put("m", {"k": ["a", None]})
        .put("c", "RED")
    )
    payload = fmt.encode(writer, schema, value)
    reader = fmt.parse(fmt.schema_text(writer), None)  # type: ignore[arg-type]  # no references
    assert reader.branch_reads
    connect = fmt.to_connect_schema(reader)
    assert connect is not None
    back = fmt.decode(reader, connect, memoryview(payload))
    assert [(u.get("int"), u.get("long")) for u in back.get("n")] == [(None, 5), (6, None)]
    assert (back.get("r").get("float"), back.get("r").get("double")) == (None, 0.5)
    assert (back.get("m"), back.get("c")) == ({"k": ["a", None]}, "RED")
    with pytest.raises(DataError, match="bytes left"):
        fmt.decode(reader, connect, memoryview(payload + b"\x00"))


def test_schema_text_writes_characters_beyond_the_bmp_raw() -> None:
    # Avro's Schema.toString writes through a java.io.Writer, where Jackson keeps them raw (the
    # JsonConverter's UTF-8 generator would escape a surrogate pair instead).
    schema = SchemaBuilder.struct().name("a.R").doc("smile \U0001f600\x1f").field("b", I32).build()
    assert AvroMapping().from_connect_schema(schema).text() == (
        '{"type":"record","name":"R","namespace":"a","fields":[{"name":"b","type":"int"}],'
        '"connect.doc":"smile \U0001f600\\u001F","connect.name":"a.R"}'
    )
