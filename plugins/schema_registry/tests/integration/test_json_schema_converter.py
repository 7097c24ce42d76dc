"""JsonSchemaConverter against the real registry, with confluent-kafka's JSON Schema serde as the oracle.

For each Connect schema of the table, both directions: what kconnect writes, confluent-kafka's
``JSONDeserializer`` reads (after validating it against the registered schema) as the JSON Confluent
writes; what confluent-kafka's ``JSONSerializer`` writes with the schema text Confluent registers,
kconnect reads back into the Connect value. The serializer registering that text gets kconnect's id,
so the text kconnect registers is the one Confluent's converter registers.

Each case is a field ``v`` of a struct: Apicurio Registry refuses a JSON Schema that is not an object
schema with properties ("Failed to discover artifact type from content"), which Confluent's registry
would take, so the table's types are tested where they occur in practice, inside a record.
"""

from __future__ import annotations

import datetime
import decimal
import uuid
from typing import Any

import pytest
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from kconnect.data.logical import Date, Decimal, Time, Timestamp
from kconnect.data.schema import Schema, SchemaBuilder
from kconnect.data.struct import Struct
from kconnect.errors import DataError
from kconnect_schema_registry.json_schema.converter import JsonSchemaConverter
from kconnect_schema_registry.json_schema.from_connect import schema_text
from kconnect_schema_registry.json_schema.options import JsonSchemaDataOptions

from tests.integration.harness import Connectors

pytestmark = pytest.mark.integration

B = SchemaBuilder
UTC = datetime.timezone.utc

INNER = (
    B.struct()
    .name("com.example.Inner")
    .field("x", B.float64().build())
    .field("tags", B.array(B.string().build()).build())
    .build()
)
RECORD = (
    B.struct()
    .name("com.example.Record")
    .doc("a record")
    .field("id", B.int32().build())
    .field("name", B.string().optional().build())
    .field("inner", INNER)
    .field("maybe", B.struct().name("com.example.Maybe").field("y", B.int64().build()).optional().build())
    .field("count", B.int32().optional().default_value(42).build())
    .field("when", Timestamp.builder().optional().build())
    .build()
)
RECORD_VALUE = (
    Struct(RECORD)
    .put("id", 1)
    .put("inner", Struct(INNER).put("x", 2.5).put("tags", ["a", "b"]))
    .put("when", datetime.datetime(2024, 5, 6, 7, 8, 9, 10000, tzinfo=UTC))
)
RECORD_JSON = {
    "id": 1,
    "name": None,
    "inner": {"x": 2.5, "tags": ["a", "b"]},
    "maybe": None,
    "count": 42,
    "when": 1714979289010,
}

ONE_OF = "io.confluent.connect.json.OneOf"
ENUM = (
    B.string()
    .parameter("io.confluent.connect.json.Enum", "")
    .parameter("io.confluent.connect.json.Enum.A", "A")
    .parameter("io.confluent.connect.json.Enum.B", "B")
    .build()
)
UNION = (
    B.struct()
    .name(ONE_OF)
    .field(f"{ONE_OF}.field.0", B.int64().optional().build())
    .field(f"{ONE_OF}.field.1", B.string().optional().build())
    .optional()
    .build()
)

#: (case, Connect schema, Connect value, the JSON Confluent writes for it, decimal.format)
CASES: list[tuple[str, Schema, Any, Any, str]] = [
    ("int8", B.int8().build(), -8, -8, "BASE64"),
    ("int16", B.int16().build(), 3000, 3000, "BASE64"),
    ("int32", B.int32().build(), -70000, -70000, "BASE64"),
    ("int64", B.int64().build(), 2**40 + 1, 2**40 + 1, "BASE64"),
    ("float32", B.float32().build(), 0.1, 0.1, "BASE64"),
    ("float64", B.float64().build(), 3.25, 3.25, "BASE64"),
    ("boolean", B.bool().build(), True, True, "BASE64"),
    ("string", B.string().build(), 'héllo "x"', 'héllo "x"', "BASE64"),
    ("bytes", B.bytes().build(), b"\x00\x01\xff", "AAH/", "BASE64"),
    ("decimal base64", Decimal.schema(2), decimal.Decimal("12.34"), "BNI=", "BASE64"),
    ("decimal numeric", Decimal.schema(2), decimal.Decimal("-12.34"), -12.34, "NUMERIC"),
    ("date", Date.builder().build(), datetime.date(2024, 2, 29), 19782, "BASE64"),
    ("time", Time.builder().build(), datetime.time(13, 14, 15, 16000), 47655016, "BASE64"),
    (
        "timestamp",
        Timestamp.builder().build(),
        datetime.datetime(2001, 9, 9, 1, 46, 40, tzinfo=UTC),
        1000000000000,
        "BASE64",
    ),
    ("optional string", B.string().optional().build(), "x", "x", "BASE64"),
    ("array of int32", B.array(B.int32().build()).build(), [1, 2, 3], [1, 2, 3], "BASE64"),
    (
        "array of optional string",
        B.array(B.string().optional().build()).build(),
        ["a", None],
        ["a", None],
        "BASE64",
    ),
    (
        "map string keys",
        B.map(B.string().build(), B.int64().build()).build(),
        {"a": 1, "b": 2},
        {"a": 1, "b": 2},
        "BASE64",
    ),
    (
        "map int keys",
        B.map(B.int32().build(), B.string().build()).build(),
        {1: "one", 2: "two"},
        [{"key": 1, "value": "one"}, {"key": 2, "value": "two"}],
        "BASE64",
    ),
    ("nested struct, optional and default fields", RECORD, RECORD_VALUE, RECORD_JSON, "BASE64"),
    ("enum", ENUM, "B", "B", "BASE64"),
    ("one-of", UNION, Struct(UNION).put(f"{ONE_OF}.field.1", "x"), "x", "BASE64"),
]
IDS = [case[0] for case in CASES]


def wrapped(schema: Schema) -> Schema:
    """The record the case's type is a field of."""
    return B.struct().name("com.example.Case").field("v", schema).build()


def plain(value: Any) -> Any:
    """A Connect value with structs as dicts (a read schema carries the subject version)."""
    if isinstance(value, Struct):
        return {f.name: plain(value.get(f)) for f in value.schema.fields}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def converter(url: str, **extra: str) -> JsonSchemaConverter:
    conv = JsonSchemaConverter()
    conv.configure({"schema.registry.url": url, **extra}, False)
    return conv


def topic() -> str:
    return f"json-schema-{uuid.uuid4().hex[:10]}"


@pytest.mark.parametrize(("schema", "value", "expected", "decimal_format"), [c[1:] for c in CASES], ids=IDS)
def test_what_kconnect_writes_confluent_kafkas_deserializer_reads(
    schema_registry: Any,
    registry: SchemaRegistryClient,
    schema: Schema,
    value: Any,
    expected: Any,
    decimal_format: str,
) -> None:
    name = topic()
    conv = converter(schema_registry.url, **{"decimal.format": decimal_format})
    record = wrapped(schema)
    data = conv.from_connect_data(name, record, Struct(record).put("v", value))
    assert data is not None
    read = JSONDeserializer(None, schema_registry_client=registry)(
        data, SerializationContext(name, MessageField.VALUE)
    )
    assert read == {"v": expected}
    registered = registry.get_latest_version(f"{name}-value")
    options = JsonSchemaDataOptions(decimal_numeric=decimal_format == "NUMERIC")
    assert registered.schema.schema_str == schema_text(record, options)
    assert int.from_bytes(data[1:5], "big") == registered.schema_id


@pytest.mark.parametrize(("schema", "value", "json_value", "decimal_format"), [c[1:] for c in CASES], ids=IDS)
def test_what_confluent_kafkas_serializer_writes_kconnect_reads(
    schema_registry: Any,
    registry: SchemaRegistryClient,
    schema: Schema,
    value: Any,
    json_value: Any,
    decimal_format: str,
) -> None:
    name = topic()
    options = JsonSchemaDataOptions(decimal_numeric=decimal_format == "NUMERIC")
    record = wrapped(schema)
    serializer = JSONSerializer(schema_text(record, options), registry, conf={"auto.register.schemas": True})
    data = serializer({"v": json_value}, SerializationContext(name, MessageField.VALUE))
    conv = converter(schema_registry.url, **{"decimal.format": decimal_format})
    read = conv.to_connect_data(name, data)
    assert plain(read.value) == {"v": plain(value)}
    assert read.schema is not None and read.schema.version == 1
    assert read.schema.fields[0].schema == schema
    # The schema kconnect registers for the same Connect schema is the version the serializer registered.
    ours = conv.from_connect_data(name, record, Struct(record).put("v", value))
    assert ours is not None and ours[:5] == data[:5]
    assert registry.get_versions(f"{name}-value") == [1]


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


def test_a_schema_evolves_and_records_of_both_versions_read_with_their_own_schema(
    schema_registry: Any,
) -> None:
    name = topic()
    # Adding a property is BACKWARD compatible for a closed object only (Confluent's JSON Schema rules too).
    conv = converter(schema_registry.url, **{"object.additional.properties": "false"})
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
    assert old is not None and new is not None and old[:5] != new[:5]
    reader = converter(schema_registry.url, **{"object.additional.properties": "false"})
    first, second = reader.to_connect_data(name, old), reader.to_connect_data(name, new)
    assert first.schema is not None and second.schema is not None
    assert (first.schema.version, second.schema.version) == (1, 2)
    assert plain(first.value) == {"a": 1} and plain(second.value) == {"a": 2, "b": "x"}


def test_a_sink_reads_what_confluent_kafkas_serializer_produced_through_a_worker(
    schema_registry: Any,
    registry: SchemaRegistryClient,
    connectors: Connectors,
    kafka_bootstrap: str,
) -> None:
    """End to end: confluent-kafka's JSONSerializer -> Kafka -> kconnect worker -> FileStreamSink (the
    session's shared worker, `rest_worker`)."""
    import asyncio

    from tests.integration.harness import produce_records
    from tests.worker_process import count_lines

    name = topic()
    record = RECORD
    serializer = JSONSerializer(
        schema_text(record, JsonSchemaDataOptions()), registry, conf={"auto.register.schemas": True}
    )
    context = SerializationContext(name, MessageField.VALUE)
    rows = [{**RECORD_JSON, "id": i, "name": f"n{i}" if i % 2 else None} for i in range(20)]
    asyncio.run(produce_records(kafka_bootstrap, name, [(serializer(row, context), []) for row in rows]))
    sink = connectors.workdir / "out.txt"
    connectors.create(
        connectors.name("json-schema-sink"),
        {
            "connector.class": "FileStreamSink",
            "tasks.max": "1",
            "file": str(sink),
            "topics": name,
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
            "value.converter": "io.confluent.connect.json.JsonSchemaConverter",
            "value.converter.schema.registry.url": schema_registry.url,
        },
    )
    worker = connectors.worker
    worker.wait_for("every record in the sink file", lambda: count_lines(sink) >= 20)
    lines = sink.read_text(encoding="utf-8").splitlines()
    assert lines[0] == (
        "Struct{id=0,inner=Struct{x=2.5,tags=[a, b]},count=42,when=Mon May 06 07:08:09 UTC 2024}"
    ), lines[0]
    assert lines[1].startswith("Struct{id=1,name=n1,inner=")


def test_a_null_of_a_required_record_is_a_tombstone(schema_registry: Any) -> None:
    """Nulls of optional or defaulted schemas are payloads: unit-tested, Apicurio refuses their schemas."""
    name = topic()
    conv = converter(schema_registry.url)
    required = B.struct().name("com.example.Nullable").field("a", B.int32().build()).build()
    assert conv.from_connect_data(name, required, None) is None
    assert conv.from_connect_data(name, None, None) is None
    assert conv.to_connect_data(name, None).value is None


def test_json_fail_invalid_schema_checks_payloads_against_the_registered_schema(
    schema_registry: Any, registry: SchemaRegistryClient
) -> None:
    """With validation on, what kconnect writes passes; a payload the schema refuses fails the read."""
    name = topic()
    conv = converter(schema_registry.url, **{"json.fail.invalid.schema": "true"})
    data = conv.from_connect_data(name, RECORD, RECORD_VALUE)
    assert data is not None and plain(conv.to_connect_data(name, data).value) == plain(RECORD_VALUE)
    bad = data[:5] + b'{"id":"one","inner":{"x":1.5,"tags":[]}}'
    with pytest.raises(DataError, match="Validation error in JSON"):
        conv.to_connect_data(name, bad)


def test_json_indent_output_writes_indented_payloads_both_readers_read(
    schema_registry: Any, registry: SchemaRegistryClient
) -> None:
    name = topic()
    conv = converter(schema_registry.url, **{"json.indent.output": "true"})
    data = conv.from_connect_data(name, RECORD, RECORD_VALUE)
    assert data is not None and data[5:].startswith(b'{\n  "id" : 1,\n  "name" : null,\n  "inner" : {\n')
    read = JSONDeserializer(None, schema_registry_client=registry)(
        data, SerializationContext(name, MessageField.VALUE)
    )
    assert read == RECORD_JSON
    assert plain(conv.to_connect_data(name, data).value) == plain(RECORD_VALUE)
