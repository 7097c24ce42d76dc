"""AvroConverter end to end: a real worker, Kafka, Spark and Apicurio Registry, confluent-kafka as the oracle.

* A JDBC source on SQLite writes Avro that confluent-kafka's ``AvroDeserializer`` reads.
* What confluent-kafka's ``AvroSerializer`` writes reaches a FileStreamSink and a JDBC sink.
* Schema evolution: an optional field added by the producer is version 2; both shapes flow, and a
  reader of version 1 still reads every record.
* An incompatible schema under BACKWARD compatibility fails the source task with the registry's
  message and the subject; with ``errors.tolerance=all`` those records are skipped and the rest
  flows (a source connector has no dead letter queue, as in Kafka). On the sink side a record the
  registry cannot give a schema for goes to the dead letter queue.
* The registry stopped mid-stream: records whose schema is cached keep flowing; a record with a new
  schema id is retried (``errors.retry.timeout``) until the registry is back, and nothing is lost.

Every test uses topics and subjects of its own (the registry is shared by the session).
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiokafka import AIOKafkaConsumer, TopicPartition
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

from tests.integration.harness import Connectors, consume_records, produce_records
from tests.worker_process import count_lines

pytestmark = pytest.mark.integration

AVRO = "io.confluent.connect.avro.AvroConverter"
STRING = "org.apache.kafka.connect.storage.StringConverter"
JDBC_SOURCE = "io.confluent.connect.jdbc.JdbcSourceConnector"
JDBC_SINK = "io.confluent.connect.jdbc.JdbcSinkConnector"

ORDER_V1 = {
    "type": "record",
    "name": "Order",
    "namespace": "shop",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "item", "type": "string"},
        {"name": "qty", "type": "int"},
        {"name": "price", "type": "double"},
        {"name": "paid", "type": "boolean"},
    ],
}
#: Version 2: an optional field, null by default (a BACKWARD-compatible change).
ORDER_V2 = {
    **ORDER_V1,
    "fields": [*ORDER_V1["fields"], {"name": "note", "type": ["null", "string"], "default": None}],
}


def avro(registry_url: str, **extra: str) -> dict[str, str]:
    """A connector's converter keys: string keys, Avro values against the registry."""
    return {
        "key.converter": STRING,
        "value.converter": AVRO,
        "value.converter.schema.registry.url": registry_url,
        **extra,
    }


def serialize(
    client: SchemaRegistryClient, topic: str, schema: dict[str, Any], values: Iterable[Any]
) -> list[bytes]:
    """`values` as confluent-kafka's AvroSerializer writes them (`schema` registered as ``<topic>-value``)."""
    serializer = AvroSerializer(client, json.dumps(schema))
    context = SerializationContext(topic, MessageField.VALUE)
    return [serializer(value, context) for value in values]


def produce(bootstrap: str, topic: str, messages: list[bytes]) -> None:
    """Send each message to `topic` and wait for every acknowledgement."""
    asyncio.run(produce_records(bootstrap, topic, [(m, []) for m in messages]))


def deserialize(
    client: SchemaRegistryClient, topic: str, messages: list[Any], reader: dict[str, Any] | None = None
) -> list[Any]:
    """The values of consumed `messages`, as confluent-kafka's AvroDeserializer reads them."""
    deserializer = AvroDeserializer(client, json.dumps(reader) if reader else None)
    context = SerializationContext(topic, MessageField.VALUE)
    return [deserializer(m.value, context) for m in messages]


def versions(schema_registry: Any, subject: str) -> list[int]:
    """The versions the registry holds for `subject` (none: an empty list)."""
    response = httpx.get(f"{schema_registry.url}/subjects/{subject}/versions", timeout=30)
    return list(response.json()) if response.status_code == 200 else []


def records_in(bootstrap: str, topic: str) -> int:
    """How many records partition 0 of `topic` holds (its end offset)."""

    async def end() -> int:
        consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap)
        await consumer.start()
        try:
            return int((await consumer.end_offsets([TopicPartition(topic, 0)]))[TopicPartition(topic, 0)])
        finally:
            await consumer.stop()

    return asyncio.run(end())


def sqlite_rows(path: Path, sql: str) -> list[tuple[Any, ...]]:
    """The rows of a query, none while the table does not exist yet."""
    if not path.exists():
        return []
    with sqlite3.connect(path) as db:
        try:
            return db.execute(sql).fetchall()
        except sqlite3.OperationalError:
            return []


def execute(path: Path, *statements: str) -> None:
    """Run statements in the SQLite database at `path` in one transaction, so the source's next poll
    sees all of them or none (never a dropped table before it is created again)."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("BEGIN IMMEDIATE")
        for statement in statements:
            db.execute(statement)
        db.execute("COMMIT")
    finally:
        db.close()


def order(i: int, **extra: Any) -> dict[str, Any]:
    """Order `i` as the producer sends it."""
    return {"id": i, "item": f"item-{i}", "qty": i * 2, "price": i + 0.25, "paid": i % 2 == 0, **extra}


def order_line(i: int, note: str | None = None) -> str:
    """Order `i` as FileStreamSink writes the Struct (Java's Struct.toString; null fields left out)."""
    line = f"Struct{{id={i},item=item-{i},qty={i * 2},price={i + 0.25},paid={str(i % 2 == 0).lower()}"
    return line + (f",note={note}}}" if note is not None else "}")


def file_lines(path: Path) -> list[str]:
    """The lines of the sink file (none before it exists)."""
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def source_jdbc(connectors: Connectors, db: Path, prefix: str, registry_url: str, **extra: str) -> str:
    """An incrementing-mode JDBC source on `db`'s ``orders`` table, Avro values; returns its name."""
    name = connectors.name("jdbc-source")
    connectors.create(
        name,
        {
            **avro(registry_url),
            "connector.class": JDBC_SOURCE,
            "tasks.max": "1",
            "connection.url": f"jdbc:sqlite:{db}",
            "mode": "incrementing",
            "incrementing.column.name": "id",
            "table.whitelist": "orders",
            "topic.prefix": prefix,
            "poll.interval.ms": "200",
            **extra,
        },
    )
    return name


def task_trace(connectors: Connectors, name: str) -> str:
    """The trace of the connector's FAILED task (fails the test if none is FAILED in time)."""
    worker = connectors.worker
    worker.wait_for(
        f"{name}'s task to fail", lambda: worker.status(name)["tasks"][0]["state"] == "FAILED", timeout=120
    )
    return str(worker.status(name)["tasks"][0]["trace"])


# --- a source writes Avro ----------------------------------------------------------------------------------


def test_a_jdbc_source_writes_avro_that_confluent_kafka_reads(
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
        "(id INTEGER PRIMARY KEY, item TEXT NOT NULL, qty INTEGER NOT NULL, price DOUBLE, note TEXT)",
        "INSERT INTO orders VALUES (1, 'pen', 3, 1.5, 'gift'), (2, 'Käse \"alt\"', 1, NULL, NULL), "
        "(3, 'ink', -7, 1e20, '')",
    )
    prefix = connectors.topic + "-"
    topic = prefix + "orders"
    source_jdbc(connectors, db, prefix, schema_registry.url)

    messages = asyncio.run(consume_records(kafka_bootstrap, topic, 3))
    assert all(m.value[:1] == b"\x00" for m in messages)  # Confluent's magic byte, then the schema id
    assert deserialize(registry, topic, messages) == [
        {"id": 1, "item": "pen", "qty": 3, "price": 1.5, "note": "gift"},
        {"id": 2, "item": 'Käse "alt"', "qty": 1, "price": None, "note": None},
        {"id": 3, "item": "ink", "qty": -7, "price": 1e20, "note": ""},
    ]
    assert versions(schema_registry, f"{topic}-value") == [1]
    registered = json.loads(registry.get_latest_version(f"{topic}-value").schema.schema_str)
    assert registered["type"] == "record"
    assert [f["name"] for f in registered["fields"]] == ["id", "item", "qty", "price", "note"]

    # A row added later follows, with the same schema id (no new version).
    execute(db, "INSERT INTO orders VALUES (4, 'cap', 1, 0.5, NULL)")
    messages = asyncio.run(consume_records(kafka_bootstrap, topic, 4))
    assert deserialize(registry, topic, messages[3:]) == [
        {"id": 4, "item": "cap", "qty": 1, "price": 0.5, "note": None}
    ]
    assert {m.value[1:5] for m in messages} == {messages[0].value[1:5]}
    assert versions(schema_registry, f"{topic}-value") == [1]


# --- sinks read what confluent-kafka wrote ------------------------------------------------------------------


def test_confluent_kafka_avro_reaches_a_file_sink_and_a_jdbc_sink(
    connectors: Connectors,
    schema_registry: Any,
    registry: SchemaRegistryClient,
    tmp_path: Path,
    kafka_bootstrap: str,
) -> None:
    topic = connectors.topic
    produce(kafka_bootstrap, topic, serialize(registry, topic, ORDER_V1, [order(i) for i in range(1, 4)]))
    sink_file, db = tmp_path / "orders.txt", tmp_path / "copy.db"
    connectors.create(
        connectors.name("file-sink"),
        {
            **avro(schema_registry.url),
            "connector.class": "FileStreamSink",
            "file": str(sink_file),
            "topics": topic,
        },
    )
    connectors.create(
        connectors.name("jdbc-sink"),
        {
            **avro(schema_registry.url),
            "connector.class": JDBC_SINK,
            "topics": topic,
            "connection.url": f"jdbc:sqlite:{db}",
            "table.name.format": "orders",
            "auto.create": "true",
            "pk.mode": "record_value",
            "pk.fields": "id",
        },
    )
    worker = connectors.worker
    worker.wait_for("3 lines in the sink file", lambda: count_lines(sink_file) == 3)
    assert file_lines(sink_file) == [order_line(i) for i in range(1, 4)]
    rows_sql = "SELECT id, item, qty, price, paid FROM orders ORDER BY id"
    worker.wait_for("3 rows in SQLite", lambda: len(sqlite_rows(db, rows_sql)) == 3)
    assert sqlite_rows(db, rows_sql) == [
        (i, f"item-{i}", i * 2, i + 0.25, int(i % 2 == 0)) for i in range(1, 4)
    ]


def test_an_optional_field_added_by_the_producer_is_version_2_and_both_shapes_flow(
    connectors: Connectors,
    schema_registry: Any,
    registry: SchemaRegistryClient,
    tmp_path: Path,
    kafka_bootstrap: str,
) -> None:
    topic = connectors.topic
    sink_file, db = tmp_path / "orders.txt", tmp_path / "copy.db"
    produce(kafka_bootstrap, topic, serialize(registry, topic, ORDER_V1, [order(1), order(2)]))
    connectors.create(
        connectors.name("file-sink"),
        {
            **avro(schema_registry.url),
            "connector.class": "FileStreamSink",
            "file": str(sink_file),
            "topics": topic,
        },
    )
    connectors.create(
        connectors.name("jdbc-sink"),
        {
            **avro(schema_registry.url),
            "connector.class": JDBC_SINK,
            "topics": topic,
            "connection.url": f"jdbc:sqlite:{db}",
            "table.name.format": "orders",
            "auto.create": "true",
            "auto.evolve": "true",
        },
    )
    worker = connectors.worker
    worker.wait_for("the first 2 lines", lambda: count_lines(sink_file) == 2)

    produce(
        kafka_bootstrap,
        topic,
        serialize(registry, topic, ORDER_V2, [order(3, note="ring twice"), order(4, note=None)])
        + serialize(registry, topic, ORDER_V1, [order(5)]),
    )
    assert versions(schema_registry, f"{topic}-value") == [1, 2]
    worker.wait_for("5 lines in the sink file", lambda: count_lines(sink_file) == 5)
    assert file_lines(sink_file) == [
        order_line(1),
        order_line(2),
        order_line(3, note="ring twice"),
        order_line(4),
        order_line(5),
    ]
    notes_sql = "SELECT id, note FROM orders ORDER BY id"
    worker.wait_for("5 rows with the new column", lambda: len(sqlite_rows(db, notes_sql)) == 5)
    assert sqlite_rows(db, notes_sql) == [(1, None), (2, None), (3, "ring twice"), (4, None), (5, None)]
    assert worker.status(connectors.created[0])["tasks"][0]["state"] == "RUNNING"

    # An old reader (version 1 as its reader schema) still reads every record.
    messages = asyncio.run(consume_records(kafka_bootstrap, topic, 5))
    assert deserialize(registry, topic, messages, reader=ORDER_V1) == [order(i) for i in range(1, 6)]


# --- incompatible changes --------------------------------------------------------------------------------


def _orders_db(path: Path) -> None:
    execute(
        path,
        "CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT NOT NULL)",
        "INSERT INTO orders VALUES (1, 'pen'), (2, 'ink')",
    )


def _make_item_a_number(path: Path) -> None:
    """Recreate ``orders`` with ``item`` an INTEGER: a string field turned long, which BACKWARD refuses."""
    execute(
        path,
        "DROP TABLE orders",
        "CREATE TABLE orders (id INTEGER PRIMARY KEY, item INTEGER NOT NULL)",
        "INSERT INTO orders VALUES (3, 30), (4, 40)",
    )


def test_an_incompatible_schema_fails_the_source_task_with_the_registrys_message(
    connectors: Connectors,
    registry_compatibility: Any,
    registry: SchemaRegistryClient,
    tmp_path: Path,
    kafka_bootstrap: str,
) -> None:
    db = tmp_path / "shop.db"
    _orders_db(db)
    prefix = connectors.topic + "-"
    topic, subject = prefix + "orders", f"{prefix}orders-value"
    name = source_jdbc(connectors, db, prefix, registry_compatibility.url)
    messages = asyncio.run(consume_records(kafka_bootstrap, topic, 2))
    assert [v["item"] for v in deserialize(registry, topic, messages)] == ["pen", "ink"]

    _make_item_a_number(db)
    trace = task_trace(connectors, name)
    assert "Tolerance exceeded in error handler" in trace
    assert f"'{subject}'" in trace
    assert registry_compatibility.url in trace
    assert "409" in trace and "Incompatible" in trace  # Apicurio's RuleViolationException text
    assert versions(registry_compatibility, subject) == [1]


def test_with_errors_tolerance_all_incompatible_records_are_skipped_and_the_rest_flows(
    connectors: Connectors,
    registry_compatibility: Any,
    registry: SchemaRegistryClient,
    tmp_path: Path,
    kafka_bootstrap: str,
) -> None:
    db = tmp_path / "shop.db"
    _orders_db(db)
    prefix = connectors.topic + "-"
    topic, subject = prefix + "orders", f"{prefix}orders-value"
    name = source_jdbc(
        connectors,
        db,
        prefix,
        registry_compatibility.url,
        **{"errors.tolerance": "all", "errors.log.enable": "true", "errors.log.include.messages": "true"},
    )
    asyncio.run(consume_records(kafka_bootstrap, topic, 2))
    _make_item_a_number(db)
    worker = connectors.worker

    def logged_refusal() -> bool:
        log = worker.log_path.read_text(errors="replace")
        return f"Error encountered in task {name}-0" in log and f"'{subject}'" in log

    worker.wait_for("the refused records in the worker log", logged_refusal)
    # The table gets its first shape back: those rows flow with the first schema, still version 1.
    execute(
        db,
        "DROP TABLE orders",
        "CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT NOT NULL)",
        "INSERT INTO orders VALUES (5, 'cap'), (6, 'mug')",
    )
    messages = asyncio.run(consume_records(kafka_bootstrap, topic, 4))
    assert deserialize(registry, topic, messages) == [
        {"id": 1, "item": "pen"},
        {"id": 2, "item": "ink"},
        {"id": 5, "item": "cap"},
        {"id": 6, "item": "mug"},
    ]
    assert worker.status(name)["tasks"][0]["state"] == "RUNNING"
    assert versions(registry_compatibility, subject) == [1]


def test_a_record_whose_schema_the_registry_does_not_have_goes_to_the_dead_letter_queue(
    connectors: Connectors,
    schema_registry: Any,
    registry: SchemaRegistryClient,
    tmp_path: Path,
    kafka_bootstrap: str,
) -> None:
    topic, dlq = connectors.topic, connectors.topic + "-dlq"
    good = serialize(registry, topic, ORDER_V1, [order(1), order(2)])
    unknown_id = b"\x00" + (2**31 - 7).to_bytes(4, "big") + good[0][5:]
    produce(kafka_bootstrap, topic, [good[0], unknown_id, good[1]])
    sink_file = tmp_path / "orders.txt"
    connectors.create(
        connectors.name("file-sink"),
        {
            **avro(schema_registry.url),
            "connector.class": "FileStreamSink",
            "file": str(sink_file),
            "topics": topic,
            "errors.tolerance": "all",
            "errors.deadletterqueue.topic.name": dlq,
            "errors.deadletterqueue.topic.replication.factor": "1",
            "errors.deadletterqueue.context.headers.enable": "true",
        },
    )
    connectors.worker.wait_for("2 lines in the sink file", lambda: count_lines(sink_file) == 2)
    assert file_lines(sink_file) == [order_line(1), order_line(2)]
    (dead,) = asyncio.run(consume_records(kafka_bootstrap, dlq, 1))
    assert dead.value == unknown_id
    headers = dict(dead.headers)
    assert headers["__connect.errors.stage"] == b"VALUE_CONVERTER"
    assert headers["__connect.errors.class.name"] == AVRO.encode()


# --- the registry stopped mid-stream ---------------------------------------------------------------------


def test_the_registry_stopped_mid_stream_cached_schemas_flow_a_new_one_waits_nothing_is_lost(
    connectors: Connectors,
    registry_compatibility: Any,
    registry: SchemaRegistryClient,
    tmp_path: Path,
    kafka_bootstrap: str,
) -> None:
    topic = connectors.topic
    # Both versions registered while the registry is up; the sink has seen only version 1's id.
    first = serialize(registry, topic, ORDER_V1, [order(i) for i in range(1, 4)])
    while_down = serialize(registry, topic, ORDER_V1, [order(i) for i in range(4, 7)])
    new_schema = serialize(registry, topic, ORDER_V2, [order(7, note="new"), order(8, note=None)])
    after = serialize(registry, topic, ORDER_V1, [order(9)])
    sink_file = tmp_path / "orders.txt"
    name = connectors.name("file-sink")
    connectors.create(
        name,
        {
            **avro(registry_compatibility.url),
            "connector.class": "FileStreamSink",
            "file": str(sink_file),
            "topics": topic,
            "errors.retry.timeout": "600000",
            "errors.retry.delay.max.ms": "1000",
        },
    )
    worker = connectors.worker
    produce(kafka_bootstrap, topic, first)
    worker.wait_for("3 lines before the registry stops", lambda: count_lines(sink_file) == 3)

    registry_compatibility.stop()
    produce(kafka_bootstrap, topic, while_down)
    worker.wait_for("version 1 records while the registry is down", lambda: count_lines(sink_file) == 6)
    produce(kafka_bootstrap, topic, new_schema + after)
    # Version 2's id is not cached: the converter cannot read it and the task retries, RUNNING.
    deadline = time.monotonic() + 8
    while time.monotonic() < deadline:
        assert count_lines(sink_file) == 6
        assert worker.status(name)["tasks"][0]["state"] == "RUNNING"
        time.sleep(0.5)

    registry_compatibility.start()
    worker.wait_for(
        "every record once the registry is back", lambda: count_lines(sink_file) == 9, timeout=120
    )
    assert file_lines(sink_file) == [
        *(order_line(i) for i in range(1, 7)),
        order_line(7, note="new"),
        order_line(8),
        order_line(9),
    ]
    assert worker.status(name)["tasks"][0]["state"] == "RUNNING"


def test_the_registry_stopped_under_a_source_a_new_schema_waits_and_nothing_is_lost(
    connectors: Connectors,
    registry_compatibility: Any,
    registry: SchemaRegistryClient,
    tmp_path: Path,
    kafka_bootstrap: str,
) -> None:
    db = tmp_path / "shop.db"
    _orders_db(db)
    prefix = connectors.topic + "-"
    topic, subject = prefix + "orders", f"{prefix}orders-value"
    name = source_jdbc(
        connectors,
        db,
        prefix,
        registry_compatibility.url,
        **{"errors.retry.timeout": "600000", "errors.retry.delay.max.ms": "1000"},
    )
    asyncio.run(consume_records(kafka_bootstrap, topic, 2))

    registry_compatibility.stop()
    execute(db, "INSERT INTO orders VALUES (3, 'cap')")
    # The schema's id is cached: the row is written while the registry is down.
    asyncio.run(consume_records(kafka_bootstrap, topic, 3))
    # A new column is a new schema, which only the registry can give an id: the task retries.
    execute(db, "ALTER TABLE orders ADD COLUMN note TEXT", "INSERT INTO orders VALUES (4, 'mug', 'blue')")
    worker = connectors.worker
    deadline = time.monotonic() + 8
    while time.monotonic() < deadline:
        assert worker.status(name)["tasks"][0]["state"] == "RUNNING"
        time.sleep(0.5)
    assert records_in(kafka_bootstrap, topic) == 3

    registry_compatibility.start()
    messages = asyncio.run(consume_records(kafka_bootstrap, topic, 4))
    assert deserialize(registry, topic, messages) == [
        {"id": 1, "item": "pen"},
        {"id": 2, "item": "ink"},
        {"id": 3, "item": "cap"},
        {"id": 4, "item": "mug", "note": "blue"},
    ]
    assert versions(registry_compatibility, subject) == [1, 2]
    assert worker.status(name)["tasks"][0]["state"] == "RUNNING"
