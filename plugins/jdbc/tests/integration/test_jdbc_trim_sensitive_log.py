"""trim.sensitive.log: a failed write's database message (which may quote row values) stays out of the
sink's logs, retries and failure trace, as Confluent's redaction does; on each database and through a worker.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import pytest
from aiokafka import AIOKafkaProducer
from kconnect.errors import ConnectError, RetriableError

from plugins.jdbc.tests.integration.conftest import Db
from plugins.jdbc.tests.integration.test_jdbc_sink import order, sink_config, start
from tests.databases import PASSWORD, USER
from tests.integration.harness import Connectors

pytestmark = pytest.mark.integration

SECRET = "alice@example.com"
TABLE = (
    "CREATE TABLE orders (id BIGINT PRIMARY KEY, item VARCHAR(100) NOT NULL UNIQUE, note TEXT, "
    "price NUMERIC(10,2), day DATE, at TIMESTAMP NULL)"
)


def failures(config: dict[str, str]) -> tuple[str, str]:
    """The RetriableError and then the ConnectError of a write that clashes with the row holding SECRET."""
    task, _ = start({**config, "max.retries": "1", "retry.backoff.ms": "10"})
    try:
        with pytest.raises(RetriableError) as retried:
            task.put([order(2, SECRET)])
        with pytest.raises(ConnectError) as failed:
            task.put([order(2, SECRET)])
        return str(retried.value), str(failed.value)
    finally:
        task.stop()


@pytest.mark.parametrize(
    ("database", "redacted"),
    [
        ("pg", "<redacted> [class=psycopg.errors.UniqueViolation; SQLState=23505; errorCode=0]"),
        ("maria", "<redacted> [class=pymysql.err.IntegrityError; SQLState=23000; errorCode=1062]"),
    ],
)
def test_the_message_is_redacted_only_when_asked(
    database: str, redacted: str, request: pytest.FixtureRequest, caplog: pytest.LogCaptureFixture
) -> None:
    db: Db = request.getfixturevalue(database)
    db.execute(TABLE, f"INSERT INTO orders (id, item) VALUES (1, '{SECRET}')")
    config = sink_config(db)
    caplog.set_level(logging.DEBUG, logger="kconnect_jdbc")

    retried, failed = failures({**config, "trim.sensitive.log": "true"})
    assert retried == redacted
    assert failed == f"Exception chain: {redacted}"
    task_logs = [r.getMessage() for r in caplog.records if r.name == "kconnect_jdbc.sink.task"]
    assert len(task_logs) == 2 and all(redacted in line and SECRET not in line for line in task_logs)
    raw = [r.getMessage() for r in caplog.records if r.name == "kconnect_jdbc.sink.sensitive"]
    assert len(raw) == 2 and all(
        r.levelno == logging.DEBUG for r in caplog.records if r.name.endswith("sensitive")
    )

    caplog.clear()
    retried, failed = failures(config)
    assert "<redacted>" not in failed and "duplicate" in failed.lower()
    assert not [r for r in caplog.records if r.name == "kconnect_jdbc.sink.sensitive"]
    if (
        database == "maria"
    ):  # MariaDB's message quotes the value; PostgreSQL's first line names the constraint
        assert SECRET in failed
        assert all(SECRET in line for line in raw)


def test_sqlite(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "copy.db"
    with sqlite3.connect(path) as db:
        db.execute(TABLE.replace("BIGINT", "INTEGER"))
        db.execute(f"INSERT INTO orders (id, item) VALUES (1, '{SECRET}')")
    retried, _ = failures(
        {"name": "jdbc-sink", "connection.url": f"jdbc:sqlite:{path}", "trim.sensitive.log": "true"}
    )
    assert retried == "<redacted> [class=sqlite3.IntegrityError; SQLState=null; errorCode=2067]"


async def produce_clash(bootstrap: str, topic: str) -> None:
    fields = [
        {"field": "id", "type": "int64", "optional": False},
        {"field": "item", "type": "string", "optional": False},
    ]
    value = {
        "schema": {"type": "struct", "fields": fields, "optional": False},
        "payload": {"id": 2, "item": SECRET},
    }
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
    await producer.start()
    try:
        await producer.send_and_wait(topic, json.dumps(value).encode())
    finally:
        await producer.stop()


def test_the_failed_tasks_trace_names_the_error_without_the_row(
    connectors: Connectors, pg: Db, kafka_bootstrap: str
) -> None:
    pg.execute(
        "CREATE TABLE orders (id BIGINT PRIMARY KEY, item TEXT NOT NULL UNIQUE)",
        f"INSERT INTO orders VALUES (1, '{SECRET}')",
    )
    worker, name = connectors.worker, connectors.name("jdbc-trim")
    connectors.create(
        name,
        {
            "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
            "topics": connectors.topic,
            "connection.url": pg.url,
            "connection.user": USER,
            "connection.password": PASSWORD,
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "table.name.format": "orders",
            "max.retries": "1",
            "retry.backoff.ms": "100",
            "trim.sensitive.log": "true",
        },
    )
    asyncio.run(produce_clash(kafka_bootstrap, connectors.topic))
    worker.wait_for(
        "the task to fail", lambda: worker.status(name)["tasks"][0]["state"] == "FAILED", timeout=60
    )
    trace = worker.status(name)["tasks"][0]["trace"]
    assert (
        "Exception chain: <redacted> [class=psycopg.errors.UniqueViolation; SQLState=23505; errorCode=0]"
        in trace
    )
    assert SECRET not in trace and "duplicate key" not in trace
    assert (
        "remainingRetries=1: <redacted> [class=psycopg.errors.UniqueViolation" in worker.log_path.read_text()
    )
