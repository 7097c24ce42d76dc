"""ProtobufConverter end to end: a real worker, Kafka, Spark and Apicurio, confluent-kafka as the oracle.

* A JDBC source on SQLite writes Protobuf that confluent-kafka's ``ProtobufDeserializer`` reads
  (with the message class compiled from the text the converter registered).
* What confluent-kafka's ``ProtobufSerializer`` writes reaches a FileStreamSink through the converter.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from google.protobuf import json_format
from kconnect_schema_registry.client import SchemaText
from kconnect_schema_registry.protobuf.parse import parse_schema
from kconnect_schema_registry.protobuf.schema import ProtobufSchema, message_name_at

from plugins.schema_registry.tests.integration.test_avro_pipeline import execute, file_lines, produce
from tests.integration.harness import Connectors, consume_records
from tests.worker_process import count_lines

pytestmark = pytest.mark.integration

PROTOBUF = "io.confluent.connect.protobuf.ProtobufConverter"
STRING = "org.apache.kafka.connect.storage.StringConverter"

ORDER = """syntax = "proto3";
package shop;

message Order {
  int64 id = 1;
  string item = 2;
  int32 qty = 3;
  double price = 4;
  bool paid = 5;
}
"""


def protobuf(registry_url: str) -> dict[str, str]:
    """A connector's converter keys: string keys, Protobuf values against the registry."""
    return {
        "key.converter": STRING,
        "value.converter": PROTOBUF,
        "value.converter.schema.registry.url": registry_url,
    }


def message_class(text: str) -> Any:
    """The class of the first message of a ``.proto`` text."""
    parsed = parse_schema(SchemaText(text, "PROTOBUF"), lambda ref: SchemaText("", "PROTOBUF"))
    return ProtobufSchema(parsed.file, message_name_at(parsed.file, [0]), parsed.dependencies).message_class


def test_a_jdbc_source_writes_protobuf_that_confluent_kafka_reads(
    connectors: Connectors,
    schema_registry: Any,
    registry: SchemaRegistryClient,
    tmp_path: Path,
    kafka_bootstrap: str,
) -> None:
    db = tmp_path / "shop.db"
    execute(
        db,
        "CREATE TABLE orders "
        "(id INTEGER PRIMARY KEY, item TEXT NOT NULL, qty INTEGER NOT NULL, price DOUBLE)",
        "INSERT INTO orders VALUES (1, 'pen', 3, 1.5), (2, 'Käse', 1, NULL)",
    )
    prefix = connectors.topic + "-"
    topic = prefix + "orders"
    connectors.create(
        connectors.name("jdbc-source"),
        {
            **protobuf(schema_registry.url),
            "connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector",
            "tasks.max": "1",
            "connection.url": f"jdbc:sqlite:{db}",
            "mode": "incrementing",
            "incrementing.column.name": "id",
            "table.whitelist": "orders",
            "topic.prefix": prefix,
            "poll.interval.ms": "200",
        },
    )
    messages = asyncio.run(consume_records(kafka_bootstrap, topic, 2))
    text = registry.get_latest_version(f"{topic}-value").schema.schema_str
    assert text.startswith('syntax = "proto3";\n\nmessage orders {\n')
    deserializer = ProtobufDeserializer(message_class(text), {"use.deprecated.format": False})
    context = SerializationContext(topic, MessageField.VALUE)
    read = [
        json_format.MessageToDict(deserializer(m.value, context), preserving_proto_field_name=True)
        for m in messages
    ]
    assert read == [
        {"id": "1", "item": "pen", "qty": "3", "price": 1.5},  # SQLite's INTEGER is INT64: a JSON string
        {"id": "2", "item": "Käse", "qty": "1"},  # a null price is left unset
    ]


def test_confluent_kafka_protobuf_reaches_a_file_sink(
    connectors: Connectors,
    schema_registry: Any,
    registry: SchemaRegistryClient,
    tmp_path: Path,
    kafka_bootstrap: str,
) -> None:
    topic = connectors.topic
    cls = message_class(ORDER)
    serializer = ProtobufSerializer(cls, registry, {"use.deprecated.format": False})
    context = SerializationContext(topic, MessageField.VALUE)
    orders = [cls(id=i, item=f"item-{i}", qty=i * 2, price=i + 0.25, paid=i % 2 == 0) for i in range(1, 4)]
    produce(kafka_bootstrap, topic, [serializer(o, context) for o in orders])
    sink_file = tmp_path / "orders.txt"
    connectors.create(
        connectors.name("file-sink"),
        {
            **protobuf(schema_registry.url),
            "connector.class": "FileStreamSink",
            "file": str(sink_file),
            "topics": topic,
        },
    )
    connectors.worker.wait_for("3 lines in the sink file", lambda: count_lines(sink_file) == 3)
    assert file_lines(sink_file) == [
        f"Struct{{id={i},item=item-{i},qty={i * 2},price={i + 0.25},paid={str(i % 2 == 0).lower()}}}"
        for i in range(1, 4)
    ]
