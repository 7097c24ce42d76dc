"""PostgreSQL -> JdbcSourceConnector -> Kafka -> JdbcSinkConnector -> MariaDB and SQLite, through a worker.

One worker (the shared REST worker: real broker, real Spark), Confluent's class names, JsonConverter
with schemas, ValueToKey to key the records by id; rows are compared exactly downstream.
"""

from __future__ import annotations

import asyncio
import datetime
import decimal
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaProducer

from plugins.jdbc.tests.integration.conftest import Db
from tests.databases import PASSWORD, USER
from tests.integration.harness import Connectors, consume_records, produce_records

pytestmark = pytest.mark.integration

JSON = "org.apache.kafka.connect.json.JsonConverter"
ROWS_SQL = "SELECT id, name, balance, joined, updated FROM customers ORDER BY id"


def sqlite_rows(path: Path) -> list[tuple[Any, ...]]:
    if not path.exists():
        return []
    with sqlite3.connect(path) as db:
        try:
            rows = db.execute(ROWS_SQL).fetchall()
        except sqlite3.OperationalError:
            return []
    return [
        (
            id_,
            name,
            None if balance is None else decimal.Decimal(str(balance)).quantize(decimal.Decimal("0.01")),
            None if joined is None else datetime.date.fromisoformat(joined),
            None if updated is None else datetime.datetime.fromisoformat(updated),
        )
        for id_, name, balance, joined, updated in rows
    ]


def maria_rows(db: Db) -> list[tuple[Any, ...]]:
    """The copy's rows; none while the sink has not created the table yet."""
    import pymysql

    try:
        return db.query(ROWS_SQL)
    except pymysql.err.ProgrammingError:
        return []


async def send_tombstone(bootstrap: str, topic: str, id_: int) -> None:
    key = {
        "schema": {
            "type": "struct",
            "fields": [{"field": "id", "type": "int32", "optional": False}],
            "optional": False,
        },
        "payload": {"id": id_},
    }
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
    await producer.start()
    try:
        await producer.send_and_wait(topic, value=None, key=json.dumps(key).encode())
    finally:
        await producer.stop()


def test_postgres_to_mariadb_and_sqlite(
    connectors: Connectors, pg: Db, maria: Db, tmp_path: Path, kafka_bootstrap: str
) -> None:
    worker = connectors.worker
    plugins = {p["class"] for p in worker.get("/connector-plugins").json()}
    assert {
        "io.confluent.connect.jdbc.JdbcSourceConnector",
        "io.confluent.connect.jdbc.JdbcSinkConnector",
    } <= plugins

    pg.execute(
        "CREATE TABLE customers (id SERIAL PRIMARY KEY, name TEXT NOT NULL, balance NUMERIC(10,2), "
        "joined DATE, updated TIMESTAMP(3))",
        "INSERT INTO customers (name, balance, joined, updated) VALUES "
        "('Ada', 10.50, '2024-01-02', '2024-01-02 03:04:05.678'), "
        "('Grace', NULL, NULL, NULL), ('Édith \"Piaf\"', -3.25, '1915-12-19', '2024-06-30 23:59:59.999')",
    )
    prefix = connectors.topic + "-"
    topic = prefix + "customers"
    common = {"key.converter": JSON, "value.converter": JSON, "tasks.max": "1"}
    source = {
        **common,
        "connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector",
        "connection.url": pg.url,
        "connection.user": USER,
        "connection.password": PASSWORD,
        "mode": "incrementing",
        "incrementing.column.name": "id",
        "table.whitelist": "customers",
        "topic.prefix": prefix,
        "poll.interval.ms": "500",
        "transforms": "key",
        "transforms.key.type": "org.apache.kafka.connect.transforms.ValueToKey",
        "transforms.key.fields": "id",
    }
    sink = {
        **common,
        "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
        "topics": topic,
        "insert.mode": "upsert",
        "pk.mode": "record_key",
        "delete.enabled": "true",
        "auto.create": "true",
        "auto.evolve": "true",
        "table.name.format": "customers",
    }
    sqlite_path = tmp_path / "copy.db"
    connectors.create(connectors.name("pg-source"), source)
    connectors.create(
        connectors.name("maria-sink"),
        {**sink, "connection.url": maria.url, "connection.user": USER, "connection.password": PASSWORD},
    )
    connectors.create(
        connectors.name("sqlite-sink"), {**sink, "connection.url": f"jdbc:sqlite:{sqlite_path}"}
    )

    def copies_match() -> bool:
        expected = pg.query(ROWS_SQL)
        return maria_rows(maria) == expected and sqlite_rows(sqlite_path) == expected

    worker.wait_for("the three rows in MariaDB and SQLite", copies_match, timeout=120)
    assert len(pg.query(ROWS_SQL)) == 3

    pg.execute("INSERT INTO customers (name, balance) VALUES ('Linus', 99999999.99)")
    worker.wait_for("the new row downstream", lambda: copies_match() and len(maria_rows(maria)) == 4)

    # A second source with no committed offsets sends every row again: upserts leave the same rows.
    again = connectors.name("pg-source-again")
    connectors.create(again, source)

    def resent() -> list[Any]:
        return [o["offset"] for o in worker.get(f"/connectors/{again}/offsets").json()["offsets"]]

    worker.wait_for("the second source to have sent all four rows", lambda: resent() == [{"incrementing": 4}])
    assert worker.get(f"/connectors/{again}/offsets").json()["offsets"][0]["partition"] == {
        "protocol": "1",
        "table": "public.customers",
    }
    asyncio.run(send_tombstone(kafka_bootstrap, topic, 2))
    worker.wait_for(
        "the tombstone to delete row 2 in both copies",
        lambda: (
            [r[0] for r in maria_rows(maria)] == [1, 3, 4]
            and [r[0] for r in sqlite_rows(sqlite_path)] == [1, 3, 4]
        ),
    )
    expected = [row for row in pg.query(ROWS_SQL) if row[0] != 2]
    assert maria_rows(maria) == expected
    assert sqlite_rows(sqlite_path) == expected

    # A column added upstream reaches the copies: the source's next query has it, the sinks add it.
    pg.execute(
        "ALTER TABLE customers ADD COLUMN email TEXT",
        "INSERT INTO customers (name, email) VALUES ('Margaret', 'm@example.com')",
    )
    email_sql = "SELECT id, email FROM customers WHERE email IS NOT NULL"

    def sqlite_emails() -> list[tuple[Any, ...]]:
        with sqlite3.connect(sqlite_path) as db:
            try:
                return db.execute(email_sql).fetchall()
            except sqlite3.OperationalError:
                return []

    def maria_emails() -> list[tuple[Any, ...]]:
        import pymysql

        try:
            return maria.query(email_sql)
        except pymysql.err.Error:
            return []

    worker.wait_for(
        "the new column in both copies",
        lambda: maria_emails() == [(5, "m@example.com")] and sqlite_emails() == [(5, "m@example.com")],
    )


def test_a_new_table_is_streamed_after_reconfiguration(connectors: Connectors, pg: Db) -> None:
    pg.execute("CREATE TABLE first (id SERIAL PRIMARY KEY)", "INSERT INTO first DEFAULT VALUES")
    name = connectors.name("pg-tables")
    connectors.create(
        name,
        {
            "connector.class": "JdbcSourceConnector",
            "key.converter": JSON,
            "value.converter": JSON,
            "connection.url": pg.url,
            "connection.user": USER,
            "connection.password": PASSWORD,
            "mode": "incrementing",
            "topic.prefix": connectors.topic + "-",
            "poll.interval.ms": "300",
            "table.poll.interval.ms": "1000",
        },
    )
    worker = connectors.worker

    def offsets() -> dict[str, Any]:
        body = worker.get(f"/connectors/{name}/offsets").json()
        return {o["partition"]["table"]: o["offset"] for o in body["offsets"]}

    worker.wait_for("the first table's row", lambda: offsets() == {"public.first": {"incrementing": 1}})
    pg.execute("CREATE TABLE second (id SERIAL PRIMARY KEY)", "INSERT INTO second DEFAULT VALUES")
    worker.wait_for(
        "the new table's row after reconfiguration",
        lambda: offsets() == {"public.first": {"incrementing": 1}, "public.second": {"incrementing": 1}},
    )
    tasks = worker.get(f"/connectors/{name}/tasks").json()
    assert [t["config"]["tables"] for t in tasks] == ["public.first,public.second"]
    assert tasks[0]["config"]["task.class"] == "io.confluent.connect.jdbc.source.JdbcSourceTask"


def test_schemaless_records_go_to_the_dead_letter_queue_with_confluents_message(
    connectors: Connectors, pg: Db, kafka_bootstrap: str
) -> None:
    topic, dlq = connectors.topic, connectors.topic + "-dlq"

    records: list[tuple[bytes, list[tuple[str, bytes]]]] = [
        (json.dumps({"id": i}).encode(), []) for i in range(3)
    ]
    asyncio.run(produce_records(kafka_bootstrap, topic, records))
    name = connectors.name("jdbc-dlq")
    connectors.create(
        name,
        {
            "connector.class": "JdbcSinkConnector",
            "topics": topic,
            "connection.url": pg.url,
            "connection.user": USER,
            "connection.password": PASSWORD,
            "auto.create": "true",
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
            "value.converter": JSON,
            "value.converter.schemas.enable": "false",
            "errors.tolerance": "all",
            "errors.deadletterqueue.topic.name": dlq,
            "errors.deadletterqueue.topic.replication.factor": "1",
            "errors.deadletterqueue.context.headers.enable": "true",
        },
    )
    dead = asyncio.run(consume_records(kafka_bootstrap, dlq, 3))
    assert [json.loads(m.value) for m in dead] == [{"id": 0}, {"id": 1}, {"id": 2}]
    message = dict(dead[0].headers)["__connect.errors.exception.message"].decode()
    assert message == (
        f"Sink connector '{name}' is configured with 'delete.enabled=false' and 'pk.mode=none' and therefore "
        "requires records with a non-null Struct value and non-null Struct schema, but found record at "
        f"(topic='{topic}',partition=0,offset=0,timestamp={dead[0].timestamp}) with a HashMap value and "
        "null value schema."
    )
    assert connectors.worker.status(name)["tasks"][0]["state"] == "RUNNING"
