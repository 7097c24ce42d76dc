"""timestamp.granularity on real databases and through Kafka: records' timestamps change, offsets do not.

2024-05-01 14:00:00.123456 in Europe/Paris is 1714564800123456 microseconds after the epoch.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from kconnect.data.schema import Type
from kconnect_jdbc.source.config import TABLES_CONFIG

from plugins.jdbc.tests.integration.conftest import Db
from plugins.jdbc.tests.integration.source_harness import SourceRun
from tests.databases import PASSWORD, USER
from tests.integration.harness import Connectors, consume_records

pytestmark = pytest.mark.integration

JSON = "org.apache.kafka.connect.json.JsonConverter"


def source_config(db: Db, **extra: str) -> dict[str, str]:
    return {
        "connection.url": db.url,
        "connection.user": USER,
        "connection.password": PASSWORD,
        "poll.interval.ms": "200",
        "table.poll.interval.ms": "0",
        "db.timezone": "Europe/Paris",
        **extra,
    }


def test_nanos_iso_strings_on_postgres_keep_confluents_offsets_and_resume(pg: Db) -> None:
    pg.execute(
        "CREATE TABLE events (id SERIAL PRIMARY KEY, at TIMESTAMP(6) NOT NULL, seen TIMESTAMP(6))",
        "INSERT INTO events (at, seen) VALUES ('2024-05-01 14:00:00.123456', NULL)",
        "INSERT INTO events (at, seen) VALUES ('2024-05-01 14:00:01', '2024-12-24 18:30:00.5')",
    )
    config = source_config(
        pg,
        mode="timestamp+incrementing",
        **{
            "timestamp.column.name": "at",
            "incrementing.column.name": "id",
            "timestamp.granularity": "nanos_iso_datetime_string",
        },
    )
    run = SourceRun({**config, TABLES_CONFIG: "public.events"})
    try:
        records = run.poll_until(2)
        schema = records[0].value_schema
        assert schema is not None
        assert [(f.name, f.schema.type, f.schema.name, f.schema.optional) for f in schema.fields] == [
            ("id", Type.INT32, None, False),
            ("at", Type.STRING, None, False),
            ("seen", Type.STRING, None, True),
        ]
        assert [r.value.values() for r in records] == [
            [1, "2024-05-01T14:00:00.123456000", None],
            [2, "2024-05-01T14:00:01.000000000", "2024-12-24T18:30:00.500000000"],
        ]
        assert [r.source_offset for r in records] == [
            {"incrementing": 1, "timestamp": 1714564800123, "timestamp_nanos": 123456000},
            {"incrementing": 2, "timestamp": 1714564801000, "timestamp_nanos": 0},
        ]
        run = run.restart()
        pg.execute("INSERT INTO events (at) VALUES ('2024-05-01 14:00:01'), ('2024-05-01 14:00:00.5')")
        again = run.poll_until(1)
        assert [(r.value.get("id"), r.value.get("at")) for r in again] == [
            (3, "2024-05-01T14:00:01.000000000")
        ]
        assert run.poll_for(0.6) == []
    finally:
        run.stop()


def test_micros_long_on_mariadb(maria: Db) -> None:
    maria.execute(
        "CREATE TABLE visits (id INT PRIMARY KEY, at DATETIME(6) NOT NULL)",
        "INSERT INTO visits VALUES (1, '2024-05-01 14:00:00.123456')",
    )
    config = source_config(
        maria, mode="timestamp", **{"timestamp.column.name": "at", "timestamp.granularity": "micros_long"}
    )
    run = SourceRun({**config, TABLES_CONFIG: f"{maria.name}.visits"})
    try:
        record = run.poll_until(1)[0]
        assert record.value.get("at") == 1714564800123456
        assert record.source_offset == {"timestamp": 1714564800123, "timestamp_nanos": 123456000}
    finally:
        run.stop()


def test_nanos_long_reaches_kafka_as_an_int64(connectors: Connectors, pg: Db, kafka_bootstrap: str) -> None:
    pg.execute(
        "CREATE TABLE ticks (id SERIAL PRIMARY KEY, at TIMESTAMPTZ NOT NULL)",
        "INSERT INTO ticks (at) VALUES ('2024-05-01 12:00:00.123456+00')",
    )
    name = connectors.name("pg-nanos")
    prefix = connectors.topic + "-"
    connectors.create(
        name,
        {
            "connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector",
            **source_config(pg),
            "key.converter": JSON,
            "value.converter": JSON,
            "mode": "timestamp",
            "timestamp.column.name": "at",
            "timestamp.granularity": "nanos_long",
            "table.whitelist": "ticks",
            "topic.prefix": prefix,
        },
    )
    records = asyncio.run(asyncio.wait_for(consume_records(kafka_bootstrap, prefix + "ticks", 1), 120))
    value = json.loads(records[0].value)
    assert value["payload"] == {"id": 1, "at": 1714564800123456000}
    assert value["schema"]["fields"][1] == {"type": "int64", "optional": False, "field": "at"}
    worker = connectors.worker
    worker.wait_for(
        "the offset committed",
        lambda: (
            [o["offset"] for o in worker.get(f"/connectors/{name}/offsets").json()["offsets"]]
            == [{"timestamp": 1714564800123, "timestamp_nanos": 123456000}]
        ),
    )
