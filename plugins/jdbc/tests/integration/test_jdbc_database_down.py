"""The sink's database stopped while records flow: retries, FAILED with a safe trace, a restart loses nothing.

The session's PostgreSQL server serves other tests, so this one stops a server of its own.
"""

from __future__ import annotations

import asyncio
import datetime
import itertools
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from aiokafka import AIOKafkaProducer

from tests.databases import PASSWORD, USER, PostgresServer
from tests.integration.harness import Connectors

pytestmark = pytest.mark.integration

JSON = "org.apache.kafka.connect.json.JsonConverter"
KEY_SCHEMA = {
    "type": "struct",
    "fields": [{"field": "id", "type": "int32", "optional": False}],
    "optional": False,
}
VALUE_SCHEMA = {
    "type": "struct",
    "fields": [
        {"field": "id", "type": "int32", "optional": False},
        {"field": "item", "type": "string", "optional": False},
    ],
    "optional": False,
}


@pytest.fixture
def own_postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL server this test alone may stop."""
    server = PostgresServer().start()
    yield server
    server.stop()


async def produce(bootstrap: str, topic: str, ids: range) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
    await producer.start()
    try:
        for id_ in ids:
            key = {"schema": KEY_SCHEMA, "payload": {"id": id_}}
            value = {"schema": VALUE_SCHEMA, "payload": {"id": id_, "item": f"item-{id_}"}}
            await producer.send(topic, key=json.dumps(key).encode(), value=json.dumps(value).encode())
        await producer.flush()
    finally:
        await producer.stop()


def test_the_database_stopped_mid_stream_fails_the_sink_after_retries_and_a_restart_loses_nothing(
    connectors: Connectors, own_postgres: PostgresServer, kafka_bootstrap: str
) -> None:
    worker, topic = connectors.worker, connectors.topic
    database = own_postgres.new_database()

    def ids() -> list[Any]:
        try:
            return [r[0] for r in own_postgres.query(database, "SELECT id FROM orders ORDER BY id")]
        except Exception:  # the table is not created yet, or the server is down
            return []

    name = connectors.name("jdbc-down")
    connectors.create(
        name,
        {
            "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
            "topics": topic,
            "connection.url": own_postgres.jdbc_url(database),
            "connection.user": USER,
            "connection.password": PASSWORD,
            "connection.attempts": "1",
            "key.converter": JSON,
            "value.converter": JSON,
            "insert.mode": "upsert",
            "pk.mode": "record_key",
            "auto.create": "true",
            "table.name.format": "orders",
            "max.retries": "2",
            "retry.backoff.ms": "700",
        },
    )
    asyncio.run(produce(kafka_bootstrap, topic, range(1, 201)))
    worker.wait_for("the first 200 rows", lambda: len(ids()) == 200)

    own_postgres.halt()
    asyncio.run(produce(kafka_bootstrap, topic, range(201, 401)))
    worker.wait_for(
        "the task to fail", lambda: worker.status(name)["tasks"][0]["state"] == "FAILED", timeout=60
    )
    trace = worker.status(name)["tasks"][0]["trace"]
    assert "Exception chain:" in trace
    assert re.search(r"Connection refused|terminating connection|server closed the connection", trace), trace
    assert PASSWORD not in trace
    # Two retries (max.retries), retry.backoff.ms apart, then the failure.
    attempts = re.findall(
        r"^(\S+ \S+) (?:WARNING|ERROR) kconnect_jdbc\.sink\.task: "
        r"(?:Write of \d+ records failed, remainingRetries=(\d)|Failing task after exhausting retries)",
        worker.log_path.read_text(),
        re.MULTILINE,
    )[-3:]
    assert [retries for _, retries in attempts] == ["2", "1", ""], attempts
    times = [datetime.datetime.strptime(at, "%Y-%m-%d %H:%M:%S,%f") for at, _ in attempts]
    assert all(
        later - earlier >= datetime.timedelta(milliseconds=650)
        for earlier, later in itertools.pairwise(times)
    )

    own_postgres.resume()
    assert worker.request("POST", f"/connectors/{name}/tasks/0/restart").status_code == 204
    asyncio.run(produce(kafka_bootstrap, topic, range(401, 451)))
    worker.wait_for("every record in the table", lambda: ids() == list(range(1, 451)), timeout=60)
    assert worker.status(name)["tasks"][0]["state"] == "RUNNING"
