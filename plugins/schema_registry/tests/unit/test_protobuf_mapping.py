"""ProtobufConverter's mapping, without a registry: Connect schemas -> Confluent's exact ``.proto`` text,
``.proto`` text -> Connect schemas, and values through the wire bytes and back.

The expected texts follow Confluent's ProtobufData (field numbering, ``ConnectDefault<n>`` names,
``connect.type`` and decimal parameters in ``(confluent.field_meta)``, ``<Name>Entry`` messages for
maps, imports in order of first use) and ProtobufSchemaUtils' canonical layout.
"""

from __future__ import annotations

import datetime
import decimal
from typing import Any

import pytest
from kconnect.config import ConfigException
from kconnect.data.logical import Date, Decimal, Time, Timestamp
from kconnect.data.schema import Schema, SchemaAndValue, SchemaBuilder, Type
from kconnect.data.struct import Struct
from kconnect.errors import DataError
from kconnect_schema_registry.client import SchemaText
from kconnect_schema_registry.protobuf.converter import ProtobufConverter
from kconnect_schema_registry.protobuf.format import ProtobufFormat
from kconnect_schema_registry.protobuf.from_connect import (
    from_connect_schema,
    java_hash_order,
    map_entry_name,
    scrub_name,
)
from kconnect_schema_registry.protobuf.options import ProtobufOptions
from kconnect_schema_registry.protobuf.parse import decode_base64_file
from kconnect_schema_registry.protobuf.text import render_file
from kconnect_schema_registry.protobuf.to_connect import map_field_name

B = SchemaBuilder
TAG = "io.confluent.connect.protobuf.Tag"
ENUM = "io.confluent.connect.protobuf.Enum"
UTC = datetime.timezone.utc


def meta(key: str, value: str, indent: str = "  ") -> str:
    lines = ["params: [", "  {", f'    key: "{key}",', f'    value: "{value}"', "  }", "]"]
    return "{\n" + "".join(f"{indent}  {line}\n" for line in lines) + f"{indent}}}"


PRIMITIVES = (
    B.struct()
    .field("i8", B.int8().build())
    .field("i16", B.int16().optional().build())
    .field("i32", B.int32().build())
    .field("i64", B.int64().build())
    .field("f32", B.float32().build())
    .field("f64", B.float64().build())
    .field("flag", B.bool().build())
    .field("text", B.string().optional().build())
    .field("raw", B.bytes().build())
    .build()
)
PRIMITIVES_TEXT = f"""syntax = "proto3";

message ConnectDefault1 {{
  int32 i8 = 1 [(confluent.field_meta) = {meta("connect.type", "int8")}];
  int32 i16 = 2 [(confluent.field_meta) = {meta("connect.type", "int16")}];
  int32 i32 = 3;
  int64 i64 = 4;
  float f32 = 5;
  double f64 = 6;
  bool flag = 7;
  string text = 8;
  bytes raw = 9;
}}
"""

LOGICAL = (
    B.struct()
    .name("com.example.Logical")
    .field("amount", Decimal.builder(2).parameter("connect.decimal.precision", "10").build())
    .field("day", Date.builder().optional().build())
    .field("at", Time.SCHEMA)
    .field("when", Timestamp.SCHEMA)
    .field("price", Decimal.schema(4))
    .build()
)
LOGICAL_TEXT = """syntax = "proto3";
package com.example;

import "confluent/type/decimal.proto";
import "google/type/date.proto";
import "google/type/timeofday.proto";
import "google/protobuf/timestamp.proto";

message Logical {
  confluent.type.Decimal amount = 1 [(confluent.field_meta) = {
    params: [
      {
        value: "10",
        key: "precision"
      },
      {
        value: "2",
        key: "scale"
      }
    ]
  }];
  google.type.Date day = 2;
  google.type.TimeOfDay at = 3;
  google.protobuf.Timestamp when = 4;
  confluent.type.Decimal price = 5 [(confluent.field_meta) = {
    params: [
      {
        value: "4",
        key: "scale"
      }
    ]
  }];
}
"""

POINT = B.struct().name("com.example.Point").field("x", B.int32().build()).optional().build()
CONTAINERS = (
    B.struct()
    .name("Containers")
    .field("point", POINT)
    .field("again", POINT)
    .field("points", B.array(POINT).build())
    .field("names", B.array(B.string().build()).optional().build())
    .field("scores", B.map(B.string().build(), B.array(B.int32().build()).build()).name("my_scores").build())
    .field("inline", B.map(B.int64().build(), B.struct().field("y", B.bool().build()).build()).build())
    .field("Point", POINT)
    .build()
)
#: Confluent indents the blank line inside a nested message too.
INDENTED_BLANK = "  "
CONTAINERS_TEXT = f"""syntax = "proto3";

message Containers {{
  Point point = 1;
  Point again = 2;
  repeated Point points = 3;
  repeated string names = 4;
  repeated MyScoresEntry scores = 5;
  repeated ConnectDefault1Entry inline = 6;
  PointMessage Point = 7;

  message Point {{
    int32 x = 1;
  }}
  message MyScoresEntry {{
    string key = 1;
    repeated int32 value = 2;
  }}
  message ConnectDefault1Entry {{
    int64 key = 1;
    ConnectDefault2 value = 2;
{INDENTED_BLANK}
    message ConnectDefault2 {{
      bool y = 1;
    }}
  }}
  message PointMessage {{
    int32 x = 1;
  }}
}}
"""

STATUS = (
    B.string()
    .name("Status")
    .parameter(ENUM, "Status")
    .parameter(f"{ENUM}.ACTIVE", "0")
    .parameter(f"{ENUM}.INACTIVE", "1")
    .optional()
    .parameter(TAG, "4")
    .build()
)
USER_ID = (
    B.struct()
    .name("io.confluent.connect.protobuf.Union.user_id")
    .field("kafka_user_id", B.string().optional().parameter(TAG, "1").build())
    .field("other_user_id", B.int32().optional().parameter(TAG, "2").build())
    .optional()
    .build()
)
TAGGED = (
    B.struct()
    .name("io.example.Tagged")
    .field("user_id_0", USER_ID)
    .field("is_active", B.bool().optional().parameter(TAG, "3").build())
    .field("status", STATUS)
    .field(
        "kind",
        B.int64()
        .optional()
        .parameter("io.confluent.connect.protobuf.Type", "uint64")
        .parameter(TAG, "7")
        .build(),
    )
    .build()
)
TAGGED_TEXT = """syntax = "proto3";
package io.example;

message Tagged {
  bool is_active = 3;
  Status status = 4;
  uint64 kind = 7;

  oneof user_id {
    string kafka_user_id = 1;
    int32 other_user_id = 2;
  }

  enum Status {
    ACTIVE = 0;
    INACTIVE = 1;
  }
}
"""

NULLABLE = (
    B.struct()
    .name("Nullable")
    .field("a", B.int32().optional().build())
    .field("b", B.string().build())
    .field("c", B.int16().optional().build())
    .field("d", POINT)
    .field("e", B.array(B.string().build()).optional().build())
    .build()
)
OPTIONAL_TEXT = f"""syntax = "proto3";

message Nullable {{
  optional int32 a = 1;
  string b = 2;
  optional int32 c = 3 [(confluent.field_meta) = {meta("connect.type", "int16")}];
  optional Point d = 4;
  repeated string e = 5;

  message Point {{
    int32 x = 1;
  }}
}}
"""
WRAPPER_TEXT = f"""syntax = "proto3";

import "google/protobuf/wrappers.proto";

message Nullable {{
  google.protobuf.Int32Value a = 1;
  string b = 2;
  google.protobuf.Int32Value c = 3 [(confluent.field_meta) = {meta("connect.type", "int16")}];
  Point d = 4;
  repeated string e = 5;

  message Point {{
    int32 x = 1;
  }}
}}
"""

SCRUBBED = (
    B.struct()
    .name("my-ns.1st record")
    .field("bad name", B.string().build())
    .field("_x", B.int32().build())
    .build()
)
SCRUBBED_TEXT = """syntax = "proto3";
package my_ns;

message x1st_record {
  string bad_name = 1;
  int32 x_x = 2;
}
"""

#: (case, Connect schema, options, the exact text Confluent's converter registers)
TEXT_CASES: list[tuple[str, Schema, ProtobufOptions, str]] = [
    ("every primitive, unnamed root", PRIMITIVES, ProtobufOptions(), PRIMITIVES_TEXT),
    ("logical types, package from connect.name", LOGICAL, ProtobufOptions(), LOGICAL_TEXT),
    ("structs, arrays and maps", CONTAINERS, ProtobufOptions(), CONTAINERS_TEXT),
    ("tags, a oneof, an enum, a uint64", TAGGED, ProtobufOptions(), TAGGED_TEXT),
    ("optional.for.nullables", NULLABLE, ProtobufOptions(optional_for_nullables=True), OPTIONAL_TEXT),
    ("wrapper.for.nullables", NULLABLE, ProtobufOptions(wrapper_for_nullables=True), WRAPPER_TEXT),
    ("scrub.invalid.names", SCRUBBED, ProtobufOptions(scrub_invalid_names=True), SCRUBBED_TEXT),
]


@pytest.mark.parametrize(
    ("schema", "options", "expected"), [c[1:] for c in TEXT_CASES], ids=[c[0] for c in TEXT_CASES]
)
def test_connect_schema_to_confluents_proto_text(
    schema: Schema, options: ProtobufOptions, expected: str
) -> None:
    protobuf = from_connect_schema(schema, options)
    assert render_file(protobuf.file) == expected
    assert protobuf.descriptor.full_name == protobuf.name  # the file builds


def test_a_primitive_at_the_root_is_a_wrapper_of_wrappers_proto() -> None:
    protobuf = from_connect_schema(B.int16().build(), ProtobufOptions())
    assert protobuf.name == "google.protobuf.Int32Value"
    assert protobuf.message_indexes == b"\x02\x08"  # [4]
    text = render_file(protobuf.file)
    assert text.startswith(
        'syntax = "proto3";\npackage google.protobuf;\n\noption java_package = "com.google.protobuf";\n'
    )
    assert "message Int32Value {\n  int32 value = 1;\n}\n" in text


@pytest.mark.parametrize(
    "schema",
    [B.array(B.int32().build()).build(), B.map(B.string().build(), B.string().build()).build(), Date.SCHEMA],
    ids=["array", "map", "logical"],
)
def test_a_root_array_map_or_logical_type_is_refused(schema: Schema) -> None:
    with pytest.raises(DataError):
        from_connect_schema(schema, ProtobufOptions())


def test_nested_arrays_are_refused_as_by_confluent() -> None:
    nested = B.struct().field("a", B.array(B.array(B.int32().build()).build()).build()).build()
    with pytest.raises(DataError, match="Array cannot be nested"):
        from_connect_schema(nested, ProtobufOptions())


@pytest.mark.parametrize(
    ("name", "scrubbed"),
    [
        ("ok_name", "ok_name"),
        ("1abc", "x1abc"),
        ("_a", "x_a"),
        ("a b", "a_b"),
        ("a~b", "a_7Eb"),
        ("é", "_C3_A9"),
    ],
)
def test_scrub_name_is_confluents(name: str, scrubbed: str) -> None:
    assert scrub_name(name) == scrubbed


def test_map_names_and_java_hash_order() -> None:
    assert map_entry_name("my_map_x") == "MyMapXEntry"
    assert map_entry_name("ConnectDefault2") == "ConnectDefault2Entry"
    assert map_field_name("ConnectDefault2Entry") == "connect_default2"
    assert map_field_name("a.MyMapXEntry") == "a.my_map_x"
    assert java_hash_order(["scale", "precision"]) == ["precision", "scale"]


FOREIGN = """syntax = "proto3";
package shop.v1;

import "google/protobuf/timestamp.proto";
import "google/protobuf/wrappers.proto";

message Order {
  string id = 1;
  uint32 qty = 2;
  sint64 delta = 3;
  map<string, int32> counts = 4;
  repeated Line lines = 5;
  optional string note = 6;
  Status status = 7;
  google.protobuf.Timestamp at = 8;
  google.protobuf.StringValue maybe = 9;
  oneof pay {
    string card = 10;
    int64 account = 11;
  }
  fixed64 big = 12;

  message Line {
    string sku = 1;
  }
  enum Status {
    NEW = 0;
    DONE = 5;
  }
}
"""


def foreign(options: ProtobufOptions) -> tuple[ProtobufFormat, Any, Schema]:
    fmt = ProtobufFormat(options)
    schema = fmt.parse(SchemaText(FOREIGN, "PROTOBUF"), None)  # type: ignore[arg-type]
    connect = fmt.to_connect_schema(schema)
    assert connect is not None
    return fmt, schema, connect


def tagged(builder: SchemaBuilder, tag: int) -> Schema:
    return builder.parameter(TAG, str(tag)).build()


def test_a_foreign_schema_to_connect_as_confluent_maps_it() -> None:
    _, _, connect = foreign(ProtobufOptions())
    assert connect.name == "Order" and not connect.optional
    assert [f.name for f in connect.fields] == [
        "pay_0", "id", "qty", "delta", "counts", "lines", "note", "status", "at", "maybe", "big",
    ]  # fmt: skip
    fields = {f.name: f.schema for f in connect.fields}
    assert fields["id"] == tagged(B.string().optional(), 1)
    assert fields["qty"] == tagged(
        B.int64().parameter("io.confluent.connect.protobuf.Type", "uint32").optional(), 2
    )
    assert fields["delta"].parameters == {"io.confluent.connect.protobuf.Type": "sint64", TAG: "3"}
    counts = fields["counts"]
    assert counts.type is Type.MAP and counts.name == "counts" and counts.optional
    assert counts.key_schema == tagged(B.string().optional(), 1)
    assert fields["lines"].type is Type.ARRAY and fields["lines"].value_schema is not None
    assert fields["lines"].value_schema.name == "Line" and fields["lines"].value_schema.optional
    assert fields["status"].type is Type.STRING and fields["status"].parameters == {
        ENUM: "Status", f"{ENUM}.NEW": "0", f"{ENUM}.DONE": "5", TAG: "7",
    }  # fmt: skip
    assert fields["at"] == tagged(Timestamp.builder().optional(), 8)
    assert fields["maybe"].type is Type.STRUCT and fields["maybe"].name == "StringValue"
    pay = fields["pay_0"]
    assert pay.name == "io.confluent.connect.protobuf.Union.pay" and pay.optional
    assert [f.name for f in pay.fields] == ["card", "account"]


def test_switches_of_the_foreign_mapping() -> None:
    _, _, enhanced = foreign(
        ProtobufOptions(
            enhanced_schema_support=True,
            int_for_enums=True,
            generate_index_for_unions=False,
            wrapper_for_nullables=True,
        )
    )
    fields = {f.name: f.schema for f in enhanced.fields}
    assert enhanced.name == "shop.v1.Order"
    assert fields["status"].type is Type.INT32 and fields["status"].name == "shop.v1.Order.Status"
    assert fields["pay"].name == "io.confluent.connect.protobuf.Union.shop.v1.Order.pay"
    assert fields["maybe"] == tagged(B.string().optional(), 9)  # unwrapped
    assert not fields["id"].optional  # wrapper.for.nullables: scalars are required
    _, _, optional = foreign(ProtobufOptions(optional_for_nullables=True))
    fields = {f.name: f.schema for f in optional.fields}
    assert fields["note"].optional and not fields["id"].optional
    _, _, flat = foreign(ProtobufOptions(flatten_unions=True))
    assert [f.name for f in flat.fields][:2] == ["card", "account"]


def test_foreign_messages_read_with_presence_as_confluent() -> None:
    fmt, schema, connect = foreign(ProtobufOptions())
    cls = schema.message_class
    message = cls(id="o1", qty=4294967295, delta=-3, counts={"a": 1}, card="c", big=2**64 - 1)
    message.lines.add(sku="s")
    value = fmt.decode(schema, connect, memoryview(b"\x00" + message.SerializeToString()))
    assert value.get("id") == "o1" and value.get("qty") == 4294967295 and value.get("delta") == -3
    assert value.get("big") == -1  # a Java long
    assert value.get("counts") == {"a": 1} and value.get("lines")[0].get("sku") == "s"
    assert value.get("note") is None and value.get("at") is None and value.get("maybe") is None
    assert value.get("status") == "NEW"
    assert value.get("pay_0").get("card") == "c" and value.get("pay_0").get("account") is None
    fmt, schema, connect = foreign(ProtobufOptions(generate_struct_for_nulls=True))
    value = fmt.decode(schema, connect, memoryview(b"\x00" + schema.message_class().SerializeToString()))
    assert value.get("at") == datetime.datetime(1970, 1, 1, tzinfo=UTC)
    assert value.get("maybe").get("value") == ""


def test_payload_indexes_pick_the_message_type() -> None:
    fmt, schema, _ = foreign(ProtobufOptions())
    line = schema.message_class.DESCRIPTOR.nested_types_by_name["Line"]
    from google.protobuf import message_factory

    # [0, 1]: protoc puts the entry message of map field counts first among Order's nested types.
    payload = b"\x04\x00\x02" + message_factory.GetMessageClass(line)(sku="x").SerializeToString()
    read = fmt.decode(schema, None, memoryview(payload))
    assert isinstance(read, SchemaAndValue) and read.schema is not None and read.schema.name == "Line"
    assert read.value.get("sku") == "x"


VALUE_SCHEMA = B.struct().name("com.example.Values").field("v", B.int8().build()).build()


def roundtrip(schema: Schema, value: Any, options: ProtobufOptions) -> Any:
    fmt = ProtobufFormat(options)
    protobuf = fmt.from_connect_schema(schema)
    payload = fmt.encode(protobuf, schema, value)
    read = fmt.parse(fmt.schema_text(protobuf), None)  # type: ignore[arg-type]
    connect = fmt.to_connect_schema(read)
    assert connect is not None
    result = fmt.decode(read, connect, memoryview(payload))
    return result.value if isinstance(result, SchemaAndValue) else result


@pytest.mark.parametrize(
    "options",
    [
        ProtobufOptions(),
        ProtobufOptions(optional_for_nullables=True),
        ProtobufOptions(wrapper_for_nullables=True),
    ],
    ids=["default", "optional.for.nullables", "wrapper.for.nullables"],
)
def test_values_round_trip_through_the_wire(options: ProtobufOptions) -> None:
    value = (
        Struct(LOGICAL).put("amount", decimal.Decimal("-12345678.90")).put("at", datetime.time(1, 2, 3, 4000))
    )
    value.put("when", datetime.datetime(1969, 12, 31, 23, 59, 59, 999000, tzinfo=UTC))
    value.put("price", decimal.Decimal("0.0000"))
    read = roundtrip(LOGICAL, value, options)
    assert read.get("amount") == decimal.Decimal("-12345678.90") and read.get("day") is None
    assert read.get("at") == datetime.time(1, 2, 3, 4000)
    assert read.get("when") == datetime.datetime(1969, 12, 31, 23, 59, 59, 999000, tzinfo=UTC)
    assert str(read.get("price")) == "0.0000"
    nullable = Struct(NULLABLE).put("b", "x").put("c", -2).put("e", [])
    read = roundtrip(NULLABLE, nullable, options)
    assert read.get("b") == "x" and read.get("c") == -2 and read.get("d") is None and read.get("e") == []
    assert read.get("a") == (0 if options == ProtobufOptions() else None)  # proto3 scalars have no null
    primitives = (
        Struct(PRIMITIVES).put("i8", -128).put("i32", 2**31 - 1).put("i64", -(2**63)).put("f32", 0.25)
    )
    primitives.put("f64", -1e300).put("flag", False).put("raw", b"\xff")
    read = roundtrip(PRIMITIVES, primitives, options)
    assert read.get("i8") == -128 and read.get("i32") == 2**31 - 1 and read.get("i64") == -(2**63)
    assert read.get("f64") == -1e300 and read.get("raw") == b"\xff" and read.get("flag") is False


def test_ignore_default_for_nullables() -> None:
    schema = B.struct().field("n", B.int32().optional().default_value(7).build()).build()
    assert roundtrip(schema, Struct(schema), ProtobufOptions(optional_for_nullables=True)).get("n") == 7
    ignored = ProtobufOptions(optional_for_nullables=True, ignore_default_for_nullables=True)
    assert roundtrip(schema, Struct(schema), ignored).get_without_default("n") is None


def test_a_struct_of_another_schema_is_refused() -> None:
    fmt = ProtobufFormat(ProtobufOptions())
    protobuf = fmt.from_connect_schema(VALUE_SCHEMA)
    other = B.struct().name("com.example.Values").field("v", B.int16().build()).build()
    with pytest.raises(DataError, match="Mismatching struct schema"):
        fmt.encode(protobuf, VALUE_SCHEMA, Struct(other).put("v", 1))


def test_base64_file_descriptors_are_recognised() -> None:
    import base64

    protobuf = from_connect_schema(VALUE_SCHEMA, ProtobufOptions())
    encoded = base64.b64encode(protobuf.file.SerializeToString()).decode()
    assert decode_base64_file(encoded) == protobuf.file
    assert decode_base64_file(render_file(protobuf.file)) is None


def test_an_invalid_proto_text_is_a_data_error_with_protocs_message() -> None:
    fmt = ProtobufFormat(ProtobufOptions())
    with pytest.raises(DataError, match='"Missing" is not defined'):
        fmt.parse(SchemaText('syntax = "proto3";\nmessage A { Missing m = 1; }\n', "PROTOBUF"), None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("key", "value"),
    [("skip.known.types", "false"), ("reference.lookup.only", "true"), ("schema.backup.enabled", "true")],
)
def test_unimplemented_serializer_keys_are_refused(key: str, value: str) -> None:
    converter = ProtobufConverter()
    with pytest.raises(ConfigException, match=key):
        converter.configure({"schema.registry.url": "http://localhost:1", key: value}, False)


def test_the_data_keys_are_read() -> None:
    converter = ProtobufConverter()
    converter.configure(
        {
            "schema.registry.url": "http://localhost:1",
            "int.for.enums": "true",
            "generate.index.for.unions": "false",
        },
        False,
    )
    fmt = converter._format
    assert isinstance(fmt, ProtobufFormat)
    assert fmt.options == ProtobufOptions(int_for_enums=True, generate_index_for_unions=False)
    converter.close()
