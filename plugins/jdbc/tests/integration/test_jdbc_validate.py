"""JdbcSourceConnector.validate against real databases: reachability, tables and columns, in bounded time."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from kconnect_jdbc.connection import connect, open_database
from kconnect_jdbc.source.config import SourceSettings
from kconnect_jdbc.source.connector import JdbcSourceConnector
from sqlalchemy import text

from plugins.jdbc.tests.integration.conftest import Db
from tests.databases import PASSWORD, USER, free_port
from tests.integration.harness import Connectors

pytestmark = pytest.mark.integration


def errors(config: dict[str, str]) -> dict[str, list[str]]:
    values = JdbcSourceConnector().validate(config)
    return {name: value.errors for name, value in values.items() if value.errors}


def base(db: Db, **extra: str) -> dict[str, str]:
    return {"connection.url": db.url, "connection.user": USER, "connection.password": PASSWORD, **extra}


def test_a_valid_config_has_no_errors(pg: Db) -> None:
    pg.execute("CREATE TABLE accounts (id SERIAL PRIMARY KEY, name TEXT)")
    config = base(
        pg, mode="incrementing", **{"incrementing.column.name": "id", "table.whitelist": "accounts"}
    )
    assert errors(config) == {}


def test_an_unreachable_database_is_an_error_of_connection_url_without_the_password() -> None:
    secret = "do-not-echo-me-7731"
    config = {
        "connection.url": f"jdbc:postgresql://127.0.0.1:{free_port()}/nowhere",
        "connection.user": USER,
        "connection.password": secret,
        "mode": "bulk",
    }
    started = time.monotonic()
    found = errors(config)
    assert time.monotonic() - started < 15
    assert list(found) == ["connection.url"]
    assert found["connection.url"][0].startswith("Could not connect to database.")
    assert secret not in repr(found)


def test_a_wrong_password_is_an_error_of_connection_url_without_the_password(pg: Db) -> None:
    secret = "wrong-password-5521"
    found = errors({**base(pg, mode="bulk"), "connection.password": secret})
    assert list(found) == ["connection.url"]
    assert "password authentication failed" in found["connection.url"][0]
    assert secret not in repr(found)


def test_a_password_in_the_url_is_not_echoed_either(maria: Db) -> None:
    secret = "url-secret-9902"
    url = maria.url.replace("jdbc:mariadb://", f"jdbc:mariadb://{USER}:{secret}@")
    found = errors({"connection.url": url, "mode": "bulk"})
    assert list(found) == ["connection.url"]
    assert secret not in repr(found)


def test_a_missing_table_is_an_error_of_table_whitelist(pg: Db) -> None:
    pg.execute("CREATE TABLE present (id SERIAL PRIMARY KEY)")
    found = errors(base(pg, mode="bulk", **{"table.whitelist": "present,absent"}))
    assert found == {"table.whitelist": ["Table 'absent' in table.whitelist was not found in the database"]}


def test_a_missing_column_is_an_error_of_incrementing_column_name(maria: Db) -> None:
    maria.execute("CREATE TABLE things (id INT PRIMARY KEY, name TEXT)")
    config = base(
        maria, mode="incrementing", **{"incrementing.column.name": "seq", "table.whitelist": "things"}
    )
    assert errors(config) == {
        "incrementing.column.name": [f"Column 'seq' was not found in table {maria.name}.things"]
    }


def test_the_mode_must_be_set(pg: Db) -> None:
    assert errors(base(pg)) == {"mode": ["Query mode must be specified"]}


def test_an_unsupported_confluent_key_is_an_error_of_that_key(pg: Db) -> None:
    pg.execute("CREATE TABLE accounts (id SERIAL PRIMARY KEY, name TEXT)")
    config = base(pg, mode="bulk", **{"poll.linger.ms": "100"})
    assert errors(config) == {
        "poll.linger.ms": [
            "poll.linger.ms is not supported by kconnect's JDBC connector: a poll returns as soon as one "
            "table has rows; there is no lingering"
        ]
    }
    defaults = {"timestamp.granularity": "connect_logical", "transaction.isolation.mode": "SERIALIZABLE"}
    assert errors(base(pg, mode="incrementing", **defaults)) == {}


def test_transaction_isolation_mode_sets_the_level_of_the_tasks_transactions(pg: Db) -> None:
    config = base(pg, mode="bulk", **{"transaction.isolation.mode": "REPEATABLE_READ"})
    settings = SourceSettings.parse(config)
    database = open_database(settings.connection, time_zone="UTC")
    try:
        with connect(database, settings.isolation_mode) as connection:
            assert connection.execute(text("SHOW transaction_isolation")).scalar() == "repeatable read"
        with connect(database) as connection:
            assert connection.execute(text("SHOW transaction_isolation")).scalar() == "read committed"
    finally:
        database.dispose()


def test_a_worker_refuses_an_unsupported_key_at_validate_and_create(
    connectors: Connectors, tmp_path: Path
) -> None:
    name = connectors.name("jdbc-unsupported")
    config = {
        "name": name,
        "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
        "topics": connectors.topic,
        "connection.url": f"jdbc:sqlite:{tmp_path / 'copy.db'}",
        "replace.null.with.default": "false",
    }
    message = (
        "replace.null.with.default is not supported by kconnect's JDBC connector: "
        "null values are always written as null"
    )
    worker = connectors.worker
    response = worker.request("PUT", "/connector-plugins/JdbcSinkConnector/config/validate", config)
    assert response.status_code == 200, response.text
    body = response.json()
    by_name = {c["value"]["name"]: c["value"]["errors"] for c in body["configs"] if c["value"]}
    assert {k: v for k, v in by_name.items() if v} == {"replace.null.with.default": [message]}, body
    assert body["error_count"] == 1

    created = worker.request("POST", "/connectors", {"name": name, "config": config})
    assert created.status_code == 400
    assert message in created.json()["message"]
    config["replace.null.with.default"] = "true"  # Confluent's default: accepted
    connectors.create(name, config)
