"""JdbcSinkTask on real PostgreSQL, MariaDB and SQLite: insert modes, key modes, DDL, deletes, retries."""

from __future__ import annotations

import datetime
import decimal
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from kconnect import SinkRecord, Struct
from kconnect.data.logical import Date, Decimal, Timestamp
from kconnect.data.schema import (
    INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    SchemaBuilder,
)
from kconnect.errors import ConnectError, RetriableError
from kconnect_jdbc.sink.connector import JdbcSinkConnector
from kconnect_jdbc.sink.task import JdbcSinkTask

from plugins.jdbc.tests.integration.conftest import Db
from tests.databases import PASSWORD, USER

pytestmark = pytest.mark.integration

KEY = SchemaBuilder.struct().name("key").field("id", INT64_SCHEMA).build()
VALUE = (
    SchemaBuilder.struct()
    .name("order")
    .field("id", INT64_SCHEMA)
    .field("item", STRING_SCHEMA)
    .field("note", OPTIONAL_STRING_SCHEMA)
    .field("price", Decimal.builder(2).optional().build())
    .field("day", Date.builder().optional().build())
    .field("at", Timestamp.builder().optional().build())
    .build()
)
AT = datetime.datetime(2024, 5, 1, 12, 30, 15, 123000, tzinfo=datetime.timezone.utc)


class Context:
    """The framework's side of a sink task here: remembers the retry timeout it was asked for."""

    def __init__(self, config: Mapping[str, str]) -> None:
        self.config = config
        self.timeout_ms: int | None = None

    def errant_record_reporter(self) -> None:
        return None

    @property
    def configs(self) -> Mapping[str, str]:
        return self.config

    def timeout(self, timeout_ms: int) -> None:
        self.timeout_ms = timeout_ms


def order(
    id_: int, item: str, *, offset: int = 0, note: str | None = None, topic: str = "orders"
) -> SinkRecord:
    value = (
        Struct(VALUE)
        .put("id", id_)
        .put("item", item)
        .put("note", note)
        .put("price", decimal.Decimal("1.25") * id_)
        .put("day", datetime.date(2024, 5, id_ % 28 + 1))
        .put("at", AT)
    )
    return SinkRecord(
        topic=topic,
        kafka_partition=0,
        kafka_offset=offset,
        key_schema=KEY,
        key=Struct(KEY).put("id", id_),
        value_schema=VALUE,
        value=value,
    )


def tombstone(id_: int, topic: str = "orders") -> SinkRecord:
    return SinkRecord(
        topic=topic, kafka_partition=0, kafka_offset=99, key_schema=KEY, key=Struct(KEY).put("id", id_)
    )


def start(config: dict[str, str]) -> tuple[JdbcSinkTask, Context]:
    task = JdbcSinkTask()
    context = Context(config)
    task.initialize(context)  # type: ignore[arg-type]
    task.start(config)
    return task, context


def sink_config(db: Db, **extra: str) -> dict[str, str]:
    return {
        "name": "jdbc-sink",
        "connection.url": db.url,
        "connection.user": USER,
        "connection.password": PASSWORD,
        **extra,
    }


def test_insert_with_auto_create_on_postgres_writes_every_type(pg: Db) -> None:
    task, _ = start(sink_config(pg, **{"auto.create": "true", "pk.mode": "record_key"}))
    try:
        task.put([order(1, "apple", note="ripe"), order(2, "pear")])
    finally:
        task.stop()
    rows = pg.query("SELECT id, item, note, price, day, at FROM orders ORDER BY id")
    assert rows == [
        (1, "apple", "ripe", decimal.Decimal("1.25"), datetime.date(2024, 5, 2), AT.replace(tzinfo=None)),
        (2, "pear", None, decimal.Decimal("2.50"), datetime.date(2024, 5, 3), AT.replace(tzinfo=None)),
    ]
    assert pg.query(
        "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid "
        "AND a.attnum = ANY(i.indkey) WHERE i.indrelid = 'orders'::regclass AND i.indisprimary"
    ) == [("id",)]


def test_upsert_twice_gives_the_same_rows_and_tombstones_delete_on_mariadb(maria: Db) -> None:
    config = sink_config(
        maria,
        **{"auto.create": "true", "insert.mode": "upsert", "pk.mode": "record_key", "delete.enabled": "true"},
    )
    task, _ = start(config)
    try:
        batch = [order(1, "apple"), order(2, "pear"), order(1, "apple2")]
        task.put(batch)
        first = maria.query("SELECT id, item, price, day, at FROM orders ORDER BY id")
        task.put(batch)
        assert maria.query("SELECT id, item, price, day, at FROM orders ORDER BY id") == first
        assert first == [
            (1, "apple2", decimal.Decimal("1.25"), datetime.date(2024, 5, 2), AT.replace(tzinfo=None)),
            (2, "pear", decimal.Decimal("2.50"), datetime.date(2024, 5, 3), AT.replace(tzinfo=None)),
        ]
        task.put([tombstone(1), order(3, "fig"), tombstone(3)])
        assert maria.query("SELECT id, item FROM orders ORDER BY id") == [(2, "pear")]
    finally:
        task.stop()


@pytest.mark.parametrize("db_name", ["pg", "maria"])
def test_auto_created_key_columns_store_the_records_key_as_is(
    db_name: str, request: pytest.FixtureRequest
) -> None:
    db: Db = request.getfixturevalue(db_name)
    task, _ = start(sink_config(db, **{"auto.create": "true", "pk.mode": "record_key"}))
    try:
        task.put([order(0, "zero"), order(7, "seven")])
    finally:
        task.stop()
    assert db.query("SELECT id, item FROM orders ORDER BY id") == [(0, "zero"), (7, "seven")]


def test_upsert_and_update_on_sqlite_with_record_value_keys(tmp_path: Path) -> None:
    path = tmp_path / "sink.db"
    config = {
        "connection.url": f"jdbc:sqlite:{path}",
        "auto.create": "true",
        "insert.mode": "upsert",
        "pk.mode": "record_value",
        "pk.fields": "id",
        "fields.whitelist": "item,note",
        "table.name.format": "kafka_${topic}",
    }
    task, _ = start(config)
    try:
        task.put([order(1, "apple"), order(2, "pear")])
        task.put([order(1, "apple"), order(2, "pear2", note="n")])
    finally:
        task.stop()
    task, _ = start({**config, "insert.mode": "update"})
    try:
        task.put([order(1, "apple3"), order(7, "absent")])
    finally:
        task.stop()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT id, item, note FROM kafka_orders ORDER BY id").fetchall() == [
            (1, "apple3", None),
            (2, "pear2", "n"),
        ]
        columns = [row[1] for row in db.execute("PRAGMA table_info(kafka_orders)")]
    assert columns == ["id", "item", "note"]


def test_kafka_coordinates_as_the_key_on_postgres(pg: Db) -> None:
    task, _ = start(sink_config(pg, **{"auto.create": "true", "pk.mode": "kafka", "insert.mode": "upsert"}))
    try:
        task.put([order(1, "a", offset=10), order(1, "b", offset=11)])
        task.put([order(1, "a", offset=10)])
    finally:
        task.stop()
    assert pg.query(
        "SELECT __connect_topic, __connect_partition, __connect_offset, item FROM orders ORDER BY 3"
    ) == [
        ("orders", 0, 10, "a"),
        ("orders", 0, 11, "b"),
    ]


def test_auto_evolve_adds_missing_columns_and_without_it_the_write_fails(pg: Db) -> None:
    pg.execute("CREATE TABLE orders (id BIGINT PRIMARY KEY, item TEXT NOT NULL)")
    task, _ = start(sink_config(pg, **{"pk.mode": "record_key"}))
    try:
        with pytest.raises(ConnectError) as failed:
            task.put([order(1, "a")])
        assert str(failed.value) == (
            "Table public.orders is missing fields (note, price, day, at) and auto-evolution is disabled"
        )
    finally:
        task.stop()
    task, _ = start(sink_config(pg, **{"pk.mode": "record_key", "auto.evolve": "true"}))
    try:
        task.put([order(1, "a", note="x")])
    finally:
        task.stop()
    assert pg.query("SELECT id, item, note FROM orders") == [(1, "a", "x")]
    nullable = pg.query(
        "SELECT column_name, is_nullable FROM information_schema.columns WHERE table_name = 'orders' "
        "AND column_name = 'note'"
    )
    assert nullable == [("note", "YES")]


def test_a_missing_table_without_auto_create_fails_with_confluents_text(maria: Db) -> None:
    task, _ = start(sink_config(maria, **{"pk.mode": "record_key"}))
    try:
        with pytest.raises(ConnectError, match="is missing and auto-creation is disabled"):
            task.put([order(1, "a")])
    finally:
        task.stop()


def test_schemaless_records_are_refused_with_confluents_message(pg: Db) -> None:
    task, _ = start(sink_config(pg, **{"auto.create": "true"}))
    record = SinkRecord(topic="t", kafka_partition=2, kafka_offset=5, timestamp=7, value={"id": 1})
    try:
        with pytest.raises(ConnectError) as refused:
            task.put([record])
    finally:
        task.stop()
    assert str(refused.value) == (
        "Sink connector 'jdbc-sink' is configured with 'delete.enabled=false' and 'pk.mode=none' and "
        "therefore requires records with a non-null Struct value and non-null Struct schema, but found "
        "record at "
        "(topic='t',partition=2,offset=5,timestamp=7) with a HashMap value and null value schema."
    )


def test_database_errors_are_retried_max_retries_times_then_fail(pg: Db) -> None:
    pg.execute(
        "CREATE TABLE orders (id BIGINT PRIMARY KEY, item TEXT NOT NULL, note TEXT, price NUMERIC(10,2), "
        "day DATE, at TIMESTAMP)"
    )
    pg.execute("INSERT INTO orders (id, item) VALUES (1, 'taken')")
    task, context = start(sink_config(pg, **{"max.retries": "1", "retry.backoff.ms": "250"}))
    try:
        with pytest.raises(RetriableError, match="duplicate key value"):
            task.put([order(2, "new"), order(1, "clash")])
        assert context.timeout_ms == 250
        with pytest.raises(ConnectError, match="duplicate key value") as failed:
            task.put([order(2, "new"), order(1, "clash")])
        assert not isinstance(failed.value, RetriableError)
        assert PASSWORD not in str(failed.value)
    finally:
        task.stop()
    assert pg.query("SELECT id, item FROM orders") == [(1, "taken")]


def test_validate_rejects_deletes_without_record_keys_and_unreachable_databases(pg: Db) -> None:
    values = JdbcSinkConnector().validate(
        sink_config(pg, **{"delete.enabled": "true", "pk.mode": "record_value"})
    )
    errors: dict[str, Any] = {k: v.errors for k, v in values.items() if v.errors}
    assert errors == {
        "pk.mode": ["Deletes are only supported for pk.mode record_key"],
        "delete.enabled": ["Deletes are only supported for pk.mode record_key"],
    }
    values = JdbcSinkConnector().validate({**sink_config(pg), "connection.password": "nope-123"})
    errors = {k: v.errors for k, v in values.items() if v.errors}
    assert list(errors) == ["connection.url"] and "nope-123" not in repr(errors)


def test_a_wrong_password_fails_the_task_start_with_a_clear_message(maria: Db) -> None:
    config = {**sink_config(maria), "connection.password": "not-the-password-42", "connection.attempts": "2"}
    config["connection.backoff.ms"] = "100"
    with pytest.raises(ConnectError) as failed:
        start(config)
    assert str(failed.value).startswith("Could not connect to database. ")
    assert "Access denied for user 'kconnect'" in str(failed.value)
    assert "not-the-password-42" not in str(failed.value)
