"""table.include.list / table.exclude.list on real databases, and through a worker with its table monitor.

Regexes match a table's whole fully-qualified name (PostgreSQL ``schema.table``, MariaDB
``database.table``); mixing them with the legacy keys is refused at validate and create with
Confluent's message.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from kconnect_jdbc.source.config import TABLES_CONFIG
from kconnect_jdbc.source.connector import JdbcSourceConnector
from kconnect_jdbc.source.filters import LEGACY_AND_NEW_MIXED

from plugins.jdbc.tests.integration.conftest import Db
from tests.databases import PASSWORD, USER
from tests.integration.harness import Connectors, consume_records

pytestmark = pytest.mark.integration

JSON = "org.apache.kafka.connect.json.JsonConverter"


def base(db: Db, **extra: str) -> dict[str, str]:
    return {"connection.url": db.url, "connection.user": USER, "connection.password": PASSWORD, **extra}


def task_tables(config: dict[str, str], max_tasks: int = 1) -> list[str]:
    connector = JdbcSourceConnector()
    connector.start(config)
    try:
        return [c[TABLES_CONFIG] for c in connector.task_configs(max_tasks)]
    finally:
        connector.stop()


def test_regexes_select_tables_by_qualified_name_on_postgres_and_mariadb(pg: Db, maria: Db) -> None:
    pg.execute(
        "CREATE SCHEMA sales",
        *(f"CREATE TABLE {t} (id SERIAL PRIMARY KEY)" for t in ("customer", "customer_tmp", "orders")),
        "CREATE TABLE sales.customer (id SERIAL PRIMARY KEY)",
        'CREATE TABLE "Customer" (id SERIAL PRIMARY KEY)',
    )
    included = {"table.include.list": r".*\.customer.*", "table.exclude.list": r".*_tmp"}
    assert task_tables(base(pg, mode="bulk", **included), 4) == ["public.customer", "sales.customer"]
    assert task_tables(base(pg, mode="bulk", **{"table.include.list": r"public\..*"})) == [
        "public.Customer,public.customer,public.customer_tmp,public.orders"
    ]
    assert task_tables(base(pg, mode="bulk", **{"table.include.list": "customer"})) == []

    maria.execute(*(f"CREATE TABLE {t} (id INT PRIMARY KEY)" for t in ("a1", "a2", "b1")))
    mine = {"table.include.list": rf"{maria.name}\.a.*", "table.exclude.list": r".*2"}
    assert task_tables(base(maria, mode="bulk", **mine)) == [f"{maria.name}.a1"]


def records_of(bootstrap: str, topic: str, count: int) -> list[str]:
    """The ``what`` of the first `count` records of `topic` (two minutes at most)."""
    records = asyncio.run(asyncio.wait_for(consume_records(bootstrap, topic, count), 120))
    return [json.loads(r.value)["what"] for r in records]


def test_included_tables_are_streamed_and_a_new_matching_table_follows(
    connectors: Connectors, pg: Db, kafka_bootstrap: str
) -> None:
    pg.execute(
        "CREATE TABLE audit_2024 (id SERIAL PRIMARY KEY, what TEXT)",
        "CREATE TABLE audit_2024_draft (id SERIAL PRIMARY KEY, what TEXT)",
        "CREATE TABLE users (id SERIAL PRIMARY KEY, what TEXT)",
        "INSERT INTO audit_2024 (what) VALUES ('kept')",
        "INSERT INTO audit_2024_draft (what) VALUES ('excluded')",
        "INSERT INTO users (what) VALUES ('not included')",
    )
    name = connectors.name("pg-include")
    prefix = connectors.topic + "-"
    connectors.create(
        name,
        {
            "connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector",
            **base(pg),
            "key.converter": JSON,
            "value.converter": JSON,
            "value.converter.schemas.enable": "false",
            "mode": "bulk",
            "table.include.list": r"public\.audit_.*",
            "table.exclude.list": r".*_draft",
            "topic.prefix": prefix,
            "poll.interval.ms": "60000",
            "table.poll.interval.ms": "1000",
        },
    )
    worker = connectors.worker
    assert records_of(kafka_bootstrap, prefix + "audit_2024", 1) == ["kept"]

    pg.execute(
        "CREATE TABLE audit_2025 (id SERIAL PRIMARY KEY, what TEXT)",
        "INSERT INTO audit_2025 (what) VALUES ('new table')",
    )
    assert records_of(kafka_bootstrap, prefix + "audit_2025", 1) == ["new table"]
    tasks = worker.get(f"/connectors/{name}/tasks").json()
    assert [t["config"]["tables"] for t in tasks] == ["public.audit_2024,public.audit_2025"]
    topics = worker.get(f"/connectors/{name}/topics").json()[name]["topics"]
    assert sorted(topics) == [prefix + "audit_2024", prefix + "audit_2025"]


def test_a_worker_refuses_legacy_and_new_keys_together(connectors: Connectors, pg: Db) -> None:
    pg.execute("CREATE TABLE accounts (id SERIAL PRIMARY KEY)")
    name = connectors.name("pg-mixed")
    config = {
        "name": name,
        "connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector",
        **base(pg),
        "mode": "bulk",
        "table.whitelist": "accounts",
        "table.include.list": r"public\.acc.*",
    }
    worker = connectors.worker
    response = worker.request("PUT", "/connector-plugins/JdbcSourceConnector/config/validate", config)
    assert response.status_code == 200, response.text
    body = response.json()
    found = {c["value"]["name"]: c["value"]["errors"] for c in body["configs"] if c["value"]["errors"]}
    assert found == {"table.whitelist": [LEGACY_AND_NEW_MIXED], "table.include.list": [LEGACY_AND_NEW_MIXED]}
    created = worker.request("POST", "/connectors", {"name": name, "config": config})
    assert created.status_code == 400
    assert LEGACY_AND_NEW_MIXED in created.json()["message"]
