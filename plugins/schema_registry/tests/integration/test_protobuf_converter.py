"""ProtobufConverter against the real registry, with confluent-kafka's Protobuf serde as the oracle.

Each case is a field ``v`` of a record (plus a few root primitives). Both directions:

* kconnect writes: the text registered under ``<topic>-value`` is Confluent's canonical ``.proto``
  text of the case (pinned byte for byte in the unit tests), the message id in the frame is its id,
  and confluent-kafka's ``ProtobufDeserializer``, given the message class compiled from that text,
  reads the bytes (magic byte, id, message indexes, message) into the message the case expects,
  compared as protobuf's JSON mapping (``MessageToDict``);
* confluent-kafka writes: its ``ProtobufSerializer`` registers the same file as a base64
  ``FileDescriptorProto`` (Apicurio keeps it as sent) and frames the expected message; kconnect
  reads the Connect value of the case back, with the Connect schema Confluent's ProtobufData gives.
"""

from __future__ import annotations

import datetime
import decimal
import uuid
from typing import Any

import pytest
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from google.protobuf import json_format
from kconnect.data.logical import Date, Decimal, Time, Timestamp
from kconnect.data.schema import Schema, SchemaBuilder
from kconnect.data.struct import Struct
from kconnect.errors import DataError
from kconnect_schema_registry.client import SchemaText
from kconnect_schema_registry.protobuf.converter import ProtobufConverter
from kconnect_schema_registry.protobuf.from_connect import from_connect_schema
from kconnect_schema_registry.protobuf.options import ProtobufOptions
from kconnect_schema_registry.protobuf.parse import parse_schema
from kconnect_schema_registry.protobuf.schema import ProtobufSchema, message_name_at
from kconnect_schema_registry.protobuf.text import render_file

pytestmark = pytest.mark.integration

B = SchemaBuilder
UTC = datetime.timezone.utc

INNER = (
    B.struct()
    .name("com.example.Inner")
    .field("x", B.float64().build())
    .field("tags", B.array(B.string().build()).build())
    .optional()
    .build()
)
POINT = B.struct().field("x", B.int32().build()).field("y", B.int32().build()).optional().build()

#: (case, Connect schema of field v, Connect value, the message Confluent writes as protobuf JSON)
CASES: list[tuple[str, Schema, Any, dict[str, Any]]] = [
    ("int8", B.int8().build(), -8, {"v": -8}),
    ("int16", B.int16().build(), 3000, {"v": 3000}),
    ("int32", B.int32().build(), -70000, {"v": -70000}),
    ("int64", B.int64().build(), 2**40 + 1, {"v": str(2**40 + 1)}),
    ("float32", B.float32().build(), 0.5, {"v": 0.5}),
    ("float64", B.float64().build(), 3.25, {"v": 3.25}),
    ("boolean", B.bool().build(), True, {"v": True}),
    ("string", B.string().build(), 'héllo "x"', {"v": 'héllo "x"'}),
    ("bytes", B.bytes().build(), b"\x00\x01\xff", {"v": "AAH/"}),
    (
        "decimal",
        Decimal.schema(2),
        decimal.Decimal("-12.34"),
        {"v": {"value": "+y4=", "precision": 4, "scale": 2}},
    ),
    (
        "decimal with precision",
        Decimal.builder(3).parameter("connect.decimal.precision", "10").build(),
        decimal.Decimal("1.500"),
        {"v": {"value": "Bdw=", "precision": 4, "scale": 3}},
    ),
    ("date", Date.SCHEMA, datetime.date(2024, 2, 29), {"v": {"year": 2024, "month": 2, "day": 29}}),
    (
        "time",
        Time.SCHEMA,
        datetime.time(13, 14, 15, 16000),
        {"v": {"hours": 13, "minutes": 14, "seconds": 15, "nanos": 16000000}},
    ),
    (
        "timestamp",
        Timestamp.SCHEMA,
        datetime.datetime(2001, 9, 9, 1, 46, 40, 123000, tzinfo=UTC),
        {"v": "2001-09-09T01:46:40.123Z"},
    ),
    ("optional string, set", B.string().optional().build(), "x", {"v": "x"}),
    ("optional timestamp, null", Timestamp.builder().optional().build(), None, {}),
    ("array of int32", B.array(B.int32().build()).build(), [1, 2, 3], {"v": [1, 2, 3]}),
    ("array of strings", B.array(B.string().build()).optional().build(), ["a", "b"], {"v": ["a", "b"]}),
    (
        "map string to int64",
        B.map(B.string().build(), B.int64().build()).build(),
        {"a": 1, "b": 2},
        {"v": [{"key": "a", "value": "1"}, {"key": "b", "value": "2"}]},
    ),
    (
        "map int32 to string",
        B.map(B.int32().build(), B.string().build()).build(),
        {1: "one", 2: "two"},
        {"v": [{"key": 1, "value": "one"}, {"key": 2, "value": "two"}]},
    ),
    (
        "nested struct",
        INNER,
        Struct(INNER).put("x", 2.5).put("tags", ["a", "b"]),
        {"v": {"x": 2.5, "tags": ["a", "b"]}},
    ),
    ("optional struct, null", INNER, None, {}),
    (
        "array of structs",
        B.array(POINT).build(),
        [Struct(POINT).put("x", 1).put("y", 2), Struct(POINT).put("x", 3).put("y", 4)],
        {"v": [{"x": 1, "y": 2}, {"x": 3, "y": 4}]},
    ),
    (
        "map of structs",
        B.map(B.string().build(), POINT).build(),
        {"p": Struct(POINT).put("x", 5).put("y", 6)},
        {"v": [{"key": "p", "value": {"x": 5, "y": 6}}]},
    ),
]
CASES.append(
    (
        "enum",
        B.string()
        .name("Status")
        .parameter("io.confluent.connect.protobuf.Enum", "Status")
        .parameter("io.confluent.connect.protobuf.Enum.ACTIVE", "0")
        .parameter("io.confluent.connect.protobuf.Enum.INACTIVE", "1")
        .optional()
        .build(),
        "INACTIVE",
        {"v": "INACTIVE"},
    )
)
IDS = [case[0] for case in CASES]
UNION = (
    B.struct()
    .name("io.confluent.connect.protobuf.Union.user_id")
    .field("kafka_user_id", B.string().optional().parameter("io.confluent.connect.protobuf.Tag", "1").build())
    .field("other_user_id", B.int32().optional().parameter("io.confluent.connect.protobuf.Tag", "2").build())
    .optional()
    .build()
)


def wrapped(schema: Schema) -> Schema:
    """The record the case's type is a field of."""
    return B.struct().name("com.example.Case").field("v", schema).build()


def plain(value: Any) -> Any:
    """A Connect value with structs as dicts (read schemas carry tags and versions)."""
    if isinstance(value, Struct):
        return {f.name: plain(value.get(f)) for f in value.schema.fields}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def message_class(text: str) -> Any:
    """The class of the file's first message, compiled from its ``.proto`` text by protoc."""
    parsed = parse_schema(SchemaText(text, "PROTOBUF"), lambda ref: SchemaText("", "PROTOBUF"))
    return ProtobufSchema(parsed.file, message_name_at(parsed.file, [0]), parsed.dependencies).message_class


def converter(url: str, **extra: str) -> ProtobufConverter:
    conv = ProtobufConverter()
    conv.configure({"schema.registry.url": url, **extra}, False)
    return conv


def topic() -> str:
    return f"protobuf-{uuid.uuid4().hex[:10]}"


def context(name: str) -> SerializationContext:
    return SerializationContext(name, MessageField.VALUE)


@pytest.mark.parametrize(("schema", "value", "expected"), [c[1:] for c in CASES], ids=IDS)
def test_what_kconnect_writes_confluent_kafkas_deserializer_reads(
    schema_registry: Any, registry: SchemaRegistryClient, schema: Schema, value: Any, expected: Any
) -> None:
    name = topic()
    record = wrapped(schema)
    data = converter(schema_registry.url).from_connect_data(name, record, Struct(record).put("v", value))
    assert data is not None
    registered = registry.get_latest_version(f"{name}-value")
    assert registered.schema.schema_type == "PROTOBUF"
    assert registered.schema.schema_str == render_file(from_connect_schema(record, ProtobufOptions()).file)
    assert int.from_bytes(data[1:5], "big") == registered.schema_id
    cls = message_class(registered.schema.schema_str)
    read = ProtobufDeserializer(cls, {"use.deprecated.format": False})(data, context(name))
    assert json_format.MessageToDict(read, preserving_proto_field_name=True) == expected


@pytest.mark.parametrize(("schema", "value", "message"), [c[1:] for c in CASES], ids=IDS)
def test_what_confluent_kafkas_serializer_writes_kconnect_reads(
    schema_registry: Any, registry: SchemaRegistryClient, schema: Schema, value: Any, message: Any
) -> None:
    name = topic()
    record = wrapped(schema)
    cls = message_class(render_file(from_connect_schema(record, ProtobufOptions()).file))
    serializer = ProtobufSerializer(cls, registry, {"use.deprecated.format": False})
    data = serializer(json_format.ParseDict(message, cls()), context(name))
    assert data is not None and data[5:6] == b"\x00"
    read = converter(schema_registry.url).to_connect_data(name, data)
    assert read.schema is not None and read.schema.name == "Case" and read.schema.version == 1
    assert plain(read.value) == {"v": plain(value)}


@pytest.mark.parametrize(
    ("schema", "value", "wrapper", "index"),
    [
        (B.int32().build(), -5, "google.protobuf.Int32Value", 4),
        (B.int64().build(), 2**50, "google.protobuf.Int64Value", 2),
        (B.string().build(), "root", "google.protobuf.StringValue", 7),
        (B.bool().build(), True, "google.protobuf.BoolValue", 6),
        (B.float64().build(), 0.25, "google.protobuf.DoubleValue", 0),
        (B.bytes().build(), b"\x07", "google.protobuf.BytesValue", 8),
    ],
    ids=["int32", "int64", "string", "boolean", "float64", "bytes"],
)
def test_a_primitive_at_the_root_is_its_wrapper_message_both_ways(
    schema_registry: Any,
    registry: SchemaRegistryClient,
    schema: Schema,
    value: Any,
    wrapper: str,
    index: int,
) -> None:
    name = topic()
    conv = converter(schema_registry.url)
    data = conv.from_connect_data(name, schema, value)
    assert data is not None
    registered = registry.get_latest_version(f"{name}-value")
    assert registered.schema.schema_str.startswith('syntax = "proto3";\npackage google.protobuf;\n')
    from google.protobuf import wrappers_pb2

    cls = getattr(wrappers_pb2, wrapper.rsplit(".", 1)[1])
    read = ProtobufDeserializer(cls, {"use.deprecated.format": False})(data, context(name))
    assert read.value == value
    back = conv.to_connect_data(name, data)
    assert back.value == value and back.schema is not None and back.schema.type is schema.type
    # confluent-kafka writes the wrapper with its message index; kconnect reads the primitive.
    other = topic()
    serializer = ProtobufSerializer(cls, registry, {"use.deprecated.format": False})
    theirs = serializer(cls(value=value), context(other))
    assert theirs is not None and theirs[5:] == data[5:]
    assert data[5 : 5 + (1 if index == 0 else 2)] == (b"\x00" if index == 0 else bytes([2, index * 2]))
    assert converter(schema_registry.url).to_connect_data(other, theirs).value == value


def test_an_incompatible_change_is_a_data_error_naming_subject_version_and_registry(
    schema_registry: Any,
) -> None:
    name = topic()
    conv = converter(schema_registry.url)
    first = B.struct().name("com.example.Change").field("a", B.int32().build()).build()
    assert conv.from_connect_data(name, first, Struct(first).put("a", 1)) is not None
    changed = B.struct().name("com.example.Change").field("a", B.string().build()).build()
    with pytest.raises(DataError) as raised:
        conv.from_connect_data(name, changed, Struct(changed).put("a", "x"))
    message = str(raised.value)
    assert f"'{name}-value'" in message and "version 1" in message and schema_registry.url in message


def test_an_added_field_is_version_2_and_old_records_keep_their_schema(schema_registry: Any) -> None:
    name = topic()
    conv = converter(schema_registry.url)
    v1 = B.struct().name("com.example.Evolving").field("a", B.int32().build()).build()
    v2 = (
        B.struct()
        .name("com.example.Evolving")
        .field("a", B.int32().build())
        .field("b", B.string().optional().build())
        .build()
    )
    old = conv.from_connect_data(name, v1, Struct(v1).put("a", 1))
    new = conv.from_connect_data(name, v2, Struct(v2).put("a", 2).put("b", "x"))
    assert old is not None and new is not None and old[1:5] != new[1:5]
    reader = converter(schema_registry.url)
    first, second = reader.to_connect_data(name, old), reader.to_connect_data(name, new)
    assert first.schema is not None and second.schema is not None
    assert (first.schema.version, second.schema.version) == (1, 2)
    assert plain(first.value) == {"a": 1} and plain(second.value) == {"a": 2, "b": "x"}


def test_a_union_is_a_oneof_both_ways(schema_registry: Any, registry: SchemaRegistryClient) -> None:
    name = topic()
    record = (
        B.struct()
        .name("com.example.User")
        .field("user_id_0", UNION)
        .field("n", B.int32().optional().parameter("io.confluent.connect.protobuf.Tag", "3").build())
        .build()
    )
    value = Struct(record).put("user_id_0", Struct(UNION).put("other_user_id", 5)).put("n", 1)
    conv = converter(schema_registry.url)
    data = conv.from_connect_data(name, record, value)
    assert data is not None
    text = registry.get_latest_version(f"{name}-value").schema.schema_str
    assert "  oneof user_id {\n    string kafka_user_id = 1;\n    int32 other_user_id = 2;\n  }\n" in text
    cls = message_class(text)
    read = ProtobufDeserializer(cls, {"use.deprecated.format": False})(data, context(name))
    assert read.WhichOneof("user_id") == "other_user_id" and read.other_user_id == 5 and read.n == 1
    back = converter(schema_registry.url).to_connect_data(name, data)
    assert back.schema is not None and back.schema.field("user_id_0") is not None
    assert plain(back.value) == {"user_id_0": {"kafka_user_id": None, "other_user_id": 5}, "n": 1}
    other = topic()
    theirs = ProtobufSerializer(cls, registry, {"use.deprecated.format": False})(
        cls(kafka_user_id="k"), context(other)
    )
    assert plain(conv.to_connect_data(other, theirs).value) == {
        "user_id_0": {"kafka_user_id": "k", "other_user_id": None},
        "n": 0,
    }


NULLABLE = (
    B.struct()
    .name("com.example.Nullable")
    .field("a", B.int32().optional().build())
    .field("b", B.string().build())
    .field("c", B.int16().optional().build())
    .field("when", Timestamp.builder().optional().build())
    .build()
)


@pytest.mark.parametrize(
    ("key", "expected_nulls", "expected_set"),
    [
        ("optional.for.nullables", {}, {"a": 7, "b": "x", "c": -2, "when": "1970-01-01T00:00:01Z"}),
        (
            "wrapper.for.nullables",
            {},
            {"a": 7, "b": "x", "c": -2, "when": "1970-01-01T00:00:01Z"},  # JSON shows wrappers bare,
        ),
    ],
)
def test_nullable_switches_keep_nulls_through_the_registry(
    schema_registry: Any,
    registry: SchemaRegistryClient,
    key: str,
    expected_nulls: dict[str, Any],
    expected_set: dict[str, Any],
) -> None:
    name = topic()
    conv = converter(schema_registry.url, **{key: "true"})
    empty = Struct(NULLABLE).put("b", "")
    full = Struct(NULLABLE).put("a", 7).put("b", "x").put("c", -2)
    full.put("when", datetime.datetime(1970, 1, 1, 0, 0, 1, tzinfo=UTC))
    text = None
    for value, expected in ((empty, expected_nulls), (full, expected_set)):
        data = conv.from_connect_data(name, NULLABLE, value)
        assert data is not None
        text = registry.get_latest_version(f"{name}-value").schema.schema_str
        read = ProtobufDeserializer(message_class(text), {"use.deprecated.format": False})(
            data, context(name)
        )
        assert json_format.MessageToDict(read, preserving_proto_field_name=True) == expected
        assert plain(conv.to_connect_data(name, data).value) == plain(value)
    assert text is not None
    if key == "optional.for.nullables":
        assert "  optional int32 a = 1;\n" in text
    else:
        assert (
            'import "google/protobuf/wrappers.proto";' in text
            and "  google.protobuf.Int32Value a = 1;\n" in text
        )


def test_a_schema_with_a_reference_to_another_subject_reads(
    schema_registry: Any, registry: SchemaRegistryClient
) -> None:
    from confluent_kafka.schema_registry import Schema as RegistrySchema
    from confluent_kafka.schema_registry import SchemaReference

    name = topic()
    common = (
        'syntax = "proto3";\npackage common;\n\n'
        "message Money {\n  string currency = 1;\n  int64 cents = 2;\n}\n"
    )
    registry.register_schema(f"{name}-common.proto", RegistrySchema(common, "PROTOBUF"))
    order = (
        'syntax = "proto3";\npackage shop;\n\nimport "common/money.proto";\n\n'
        "message Order {\n  string id = 1;\n  common.Money total = 2;\n}\n"
    )
    reference = SchemaReference("common/money.proto", f"{name}-common.proto", 1)
    schema_id = registry.register_schema(f"{name}-value", RegistrySchema(order, "PROTOBUF", [reference]))
    parsed = parse_schema(
        SchemaText(order, "PROTOBUF", (reference,)), lambda ref: SchemaText(common, "PROTOBUF")
    )
    cls = ProtobufSchema(parsed.file, "shop.Order", parsed.dependencies).message_class
    message = cls(id="o-1")
    message.total.currency = "EUR"
    message.total.cents = 1234
    data = b"\x00" + schema_id.to_bytes(4, "big") + b"\x00" + message.SerializeToString()
    read = converter(schema_registry.url).to_connect_data(name, data)
    assert read.schema is not None and read.schema.name == "Order" and read.schema.version == 1
    assert plain(read.value) == {"id": "o-1", "total": {"currency": "EUR", "cents": 1234}}


def test_record_name_strategy_and_use_latest_version(
    schema_registry: Any, registry: SchemaRegistryClient
) -> None:
    name = topic()
    record = (
        B.struct().name(f"com.example.r{uuid.uuid4().hex[:8]}.Named").field("a", B.int32().build()).build()
    )
    strategy = {"value.subject.name.strategy": "io.confluent.kafka.serializers.subject.RecordNameStrategy"}
    data = converter(schema_registry.url, **strategy).from_connect_data(
        name, record, Struct(record).put("a", 3)
    )
    assert data is not None
    subject = record.name
    assert subject is not None and registry.get_versions(subject) == [1]
    # A writer with use.latest.version (and no auto-registration) writes with the registered version.
    latest = converter(
        schema_registry.url, **strategy, **{"use.latest.version": "true", "auto.register.schemas": "false"}
    )
    again = latest.from_connect_data(name, record, Struct(record).put("a", 4))
    assert again is not None and again[:6] == data[:6]
    back = converter(schema_registry.url, **strategy).to_connect_data(name, again)
    assert plain(back.value) == {"a": 4} and back.schema is not None and back.schema.version == 1
