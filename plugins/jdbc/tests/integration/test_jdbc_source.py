"""JdbcSourceTask and JdbcSourceConnector on real PostgreSQL, MariaDB and SQLite: modes, schemas, offsets."""

from __future__ import annotations

import datetime
import decimal
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from kconnect.data.logical import Date, Decimal, Time, Timestamp
from kconnect.data.schema import Type
from kconnect.errors import ConnectError
from kconnect_jdbc.source.config import TABLES_CONFIG
from kconnect_jdbc.source.connector import JdbcSourceConnector

from plugins.jdbc.tests.integration.conftest import Db
from plugins.jdbc.tests.integration.source_harness import SourceRun
from tests.databases import PASSWORD, USER

pytestmark = pytest.mark.integration

UTC = datetime.timezone.utc


def source_config(db: Db, **extra: str) -> dict[str, str]:
    return {
        "connection.url": db.url,
        "connection.user": USER,
        "connection.password": PASSWORD,
        "poll.interval.ms": "200",
        "table.poll.interval.ms": "0",
        **extra,
    }


def test_incrementing_mode_on_postgres_resumes_from_the_committed_offset(pg: Db) -> None:
    pg.execute(
        "CREATE TABLE orders (id SERIAL PRIMARY KEY, item TEXT NOT NULL, qty INT, price NUMERIC(10,2))",
        "INSERT INTO orders (item, qty, price) VALUES ('apple', 3, 1.50), ('pear', NULL, 2.25)",
    )
    config = source_config(
        pg, mode="incrementing", **{"incrementing.column.name": "id", "topic.prefix": "pg-"}
    )
    run = SourceRun({**config, TABLES_CONFIG: "public.orders"})
    try:
        first = run.poll_until(2)
        assert [r.topic for r in first] == ["pg-orders", "pg-orders"]
        assert first[0].source_partition == {"protocol": "1", "table": "public.orders"}
        assert [r.source_offset for r in first] == [{"incrementing": 1}, {"incrementing": 2}]
        schema = first[0].value_schema
        assert schema is not None and schema.name == "orders"
        assert [(f.name, f.schema.type, f.schema.optional) for f in schema.fields] == [
            ("id", Type.INT32, False),
            ("item", Type.STRING, False),
            ("qty", Type.INT32, True),
            ("price", Type.BYTES, True),
        ]
        assert schema.fields[3].schema.name == Decimal.LOGICAL_NAME
        assert [r.value.values() for r in first] == [
            [1, "apple", 3, decimal.Decimal("1.50")],
            [2, "pear", None, decimal.Decimal("2.25")],
        ]
        pg.execute("INSERT INTO orders (item, qty, price) VALUES ('plum', 1, 0.99)")
        assert [r.value.get("item") for r in run.poll_until(1)] == ["plum"]
        run = run.restart()
        pg.execute("INSERT INTO orders (item, qty, price) VALUES ('fig', 7, 3.00)")
        again = run.poll_until(1)
        assert [(r.value.get("id"), r.value.get("item")) for r in again] == [(4, "fig")]
        assert run.poll_for(0.6) == []
    finally:
        run.stop()


def test_bulk_mode_on_mariadb_reads_the_whole_table_each_time(maria: Db) -> None:
    maria.execute(
        "CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20), made DATE, at_time TIME, "
        "seen DATETIME(3))",
        "INSERT INTO items VALUES (1, 'a', '2024-02-29', '13:45:10', '2024-03-01 10:00:00.123'), "
        "(2, 'b', NULL, NULL, NULL)",
    )
    run = SourceRun({**source_config(maria, mode="bulk"), TABLES_CONFIG: f"{maria.name}.items"})
    try:
        first = run.poll_until(2)
        assert first[0].source_partition == {"protocol": "1", "table": f"{maria.name}.items"}
        assert first[0].source_offset is None
        assert first[0].topic == "items"
        fields = {f.name: f.schema for f in first[0].value_schema.fields}  # type: ignore[union-attr]
        assert fields["made"].name == Date.LOGICAL_NAME
        assert fields["at_time"].name == Time.LOGICAL_NAME
        assert fields["seen"].name == Timestamp.LOGICAL_NAME
        assert first[0].value.values() == [
            1,
            "a",
            datetime.date(2024, 2, 29),
            datetime.time(13, 45, 10),
            datetime.datetime(2024, 3, 1, 10, 0, 0, 123000, tzinfo=UTC),
        ]
        second = run.poll_until(2)
        assert [r.value.get("id") for r in second] == [1, 2]
    finally:
        run.stop()


def test_timestamp_incrementing_mode_on_sqlite_sees_updates_and_ties(tmp_path: Path) -> None:
    path = tmp_path / "src.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, name TEXT, updated DATETIME NOT NULL)")
        db.execute(
            "INSERT INTO events VALUES (1, 'a', '2024-01-01 00:00:00'), (2, 'b', '2024-01-01 00:00:00'), "
            "(3, 'c', '2024-01-02 00:00:00')"
        )
    config = {
        "connection.url": f"jdbc:sqlite:{path}",
        "mode": "timestamp+incrementing",
        "incrementing.column.name": "id",
        "timestamp.column.name": "updated",
        "poll.interval.ms": "200",
        "batch.max.rows": "2",
        TABLES_CONFIG: "events",
    }
    run = SourceRun(config)
    try:
        records = run.poll_until(3)
        assert [r.value.get("id") for r in records] == [1, 2, 3]
        assert records[0].source_partition == {"protocol": "1", "table": "events"}
        assert records[1].source_offset == {
            "incrementing": 2,
            "timestamp": 1704067200000,
            "timestamp_nanos": 0,
        }
        with sqlite3.connect(path) as db:
            db.execute("UPDATE events SET name = 'a2', updated = '2024-01-03 00:00:00' WHERE id = 1")
        run = run.restart()
        changed = run.poll_until(1)
        assert [(r.value.get("id"), r.value.get("name")) for r in changed] == [(1, "a2")]
    finally:
        run.stop()


def test_timestamp_mode_with_query_and_suffix_on_postgres(pg: Db) -> None:
    pg.execute(
        "CREATE TABLE readings (id INT PRIMARY KEY, sensor TEXT, value DOUBLE PRECISION, "
        "taken TIMESTAMP NOT NULL)",
        "INSERT INTO readings VALUES (1, 's1', 1.5, '2024-05-01 12:00:00.250'), "
        "(2, 's2', 2.5, '2024-05-01 12:00:01'), (3, 's1', 3.5, '2024-05-01 12:00:02')",
    )
    config = source_config(
        pg,
        mode="timestamp",
        query="SELECT * FROM (SELECT id, sensor, value, taken FROM readings WHERE sensor = 's1') AS r",
        **{"timestamp.column.name": "taken", "topic.prefix": "s1-readings", "query.suffix": "FOR SHARE"},
    )
    run = SourceRun(config)
    try:
        records = run.poll_until(2)
        assert [r.value.get("id") for r in records] == [1, 3]
        assert {r.topic for r in records} == {"s1-readings"}
        assert records[0].source_partition == {"query": "query"}
        assert records[0].source_offset == {"timestamp": 1714564800250, "timestamp_nanos": 250000000}
        assert records[0].value.get("taken") == datetime.datetime(2024, 5, 1, 12, 0, 0, 250000, tzinfo=UTC)
        assert records[0].value_schema.field("value").schema.type is Type.FLOAT64  # type: ignore[union-attr]
        assert run.poll_for(0.6) == []
    finally:
        run.stop()


def test_numeric_mapping_best_fit_on_postgres(pg: Db) -> None:
    pg.execute(
        "CREATE TABLE nums (id SERIAL PRIMARY KEY, small NUMERIC(4,0), big NUMERIC(18,0), "
        "huge NUMERIC(30,0), money NUMERIC(10,2))",
        "INSERT INTO nums (small, big, huge, money) "
        "VALUES (12, 123456789012, 123456789012345678901234567, 9.99)",
    )
    config = source_config(pg, mode="bulk", **{"numeric.mapping": "best_fit"})
    run = SourceRun({**config, TABLES_CONFIG: "public.nums"})
    try:
        record = run.poll_until(1)[0]
        types = {f.name: (f.schema.type, f.schema.name) for f in record.value_schema.fields}  # type: ignore[union-attr]
        assert types == {
            "id": (Type.INT32, None),
            "small": (Type.INT16, None),
            "big": (Type.INT64, None),
            "huge": (Type.BYTES, Decimal.LOGICAL_NAME),
            "money": (Type.FLOAT64, None),
        }
        assert record.value.values() == [
            1,
            12,
            123456789012,
            decimal.Decimal("123456789012345678901234567"),
            9.99,
        ]
    finally:
        run.stop()


def test_connector_splits_whitelisted_tables_over_tasks(pg: Db) -> None:
    pg.execute(*(f"CREATE TABLE t{i} (id SERIAL PRIMARY KEY)" for i in range(5)))
    connector = JdbcSourceConnector()
    connector.start(source_config(pg, mode="incrementing", **{"table.blacklist": "t4"}))
    try:
        configs = connector.task_configs(3)
        assert [c[TABLES_CONFIG] for c in configs] == ["public.t0,public.t1", "public.t2", "public.t3"]
        assert connector.task_configs(10)[0][TABLES_CONFIG] == "public.t0"
    finally:
        connector.stop()
    connector = JdbcSourceConnector()
    connector.start(source_config(pg, mode="bulk", **{"table.whitelist": "t3,public.t1"}))
    try:
        assert [c[TABLES_CONFIG] for c in connector.task_configs(4)] == ["public.t1", "public.t3"]
    finally:
        connector.stop()


def test_stop_from_another_thread_during_poll_closes_the_database_connections(pg: Db) -> None:
    pg.execute("CREATE TABLE quiet (id SERIAL PRIMARY KEY)", "INSERT INTO quiet DEFAULT VALUES")
    run = SourceRun(
        {
            **source_config(pg, mode="incrementing", **{"poll.interval.ms": "60000"}),
            TABLES_CONFIG: "public.quiet",
        }
    )
    run.poll_until(1)
    sessions = f"SELECT COUNT(*) FROM pg_stat_activity WHERE datname = '{pg.name}'"
    assert pg.query(sessions) == [(2,)]  # the task's and this query's
    results: list[object] = []

    def poll_until_stopped() -> None:
        while len(results) < 100:
            results.append(run.task.poll())
            if results[-1] is None:
                return

    poller = threading.Thread(target=poll_until_stopped)
    poller.start()
    time.sleep(0.3)
    run.task.stop()
    poller.join(timeout=10)
    assert not poller.is_alive()
    assert results[-1] is None
    assert run.task.poll() is None
    deadline = time.monotonic() + 10
    while pg.query(sessions) != [(1,)] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert pg.query(sessions) == [(1,)]


def test_timestamp_mode_on_mariadb_reads_datetimes_in_db_timezone(maria: Db) -> None:
    maria.execute(
        "CREATE TABLE visits (id INT PRIMARY KEY, at DATETIME(3) NOT NULL)",
        "INSERT INTO visits VALUES (1, '2024-07-01 12:00:00.5'), (2, '2024-07-01 13:00:00')",
    )
    config = source_config(
        maria, mode="timestamp", **{"timestamp.column.name": "at", "db.timezone": "Europe/Paris"}
    )
    run = SourceRun({**config, TABLES_CONFIG: f"{maria.name}.visits"})
    try:
        records = run.poll_until(2)
        assert [r.value.get("at") for r in records] == [
            datetime.datetime(2024, 7, 1, 10, 0, 0, 500000, tzinfo=UTC),
            datetime.datetime(2024, 7, 1, 11, 0, tzinfo=UTC),
        ]
        assert records[1].source_offset == {"timestamp": 1719831600000, "timestamp_nanos": 0}
        maria.execute("INSERT INTO visits VALUES (3, '2024-07-01 12:30:00'), (4, '2024-07-01 14:00:00')")
        assert [r.value.get("id") for r in run.poll_until(1)] == [4]
        assert run.poll_for(0.6) == []
    finally:
        run.stop()


def test_a_lost_connection_is_retried_and_a_broken_query_fails_the_task(pg: Db) -> None:
    pg.execute("CREATE TABLE jobs (id SERIAL PRIMARY KEY, name TEXT)", "INSERT INTO jobs (name) VALUES ('a')")
    run = SourceRun({**source_config(pg, mode="incrementing"), TABLES_CONFIG: "public.jobs"})
    try:
        run.poll_until(1)
        # The server ends the task's session, as a restart does: the next query fails, is retried.
        pg.execute(
            f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{pg.name}' "
            "AND pid <> pg_backend_pid()",
            "INSERT INTO jobs (name) VALUES ('b')",
        )
        assert [r.value.get("name") for r in run.poll_until(1)] == ["b"]
        pg.execute("ALTER TABLE jobs RENAME COLUMN id TO job_id", "INSERT INTO jobs (name) VALUES ('c')")
        with pytest.raises(ConnectError, match=r"Failed to query jobs: .*column \"id\" does not exist"):
            run.poll_for(2)
    finally:
        run.stop()


def test_query_retry_attempts_bounds_the_retries(pg: Db) -> None:
    pg.execute("CREATE TABLE jobs (id SERIAL PRIMARY KEY)", "INSERT INTO jobs DEFAULT VALUES")
    config = source_config(pg, mode="incrementing", **{"query.retry.attempts": "0"})
    run = SourceRun({**config, TABLES_CONFIG: "public.jobs"})
    try:
        run.poll_until(1)
        pg.execute(
            f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{pg.name}' "
            "AND pid <> pg_backend_pid()"
        )
        with pytest.raises(ConnectError, match=r"Failed to query table after retries: .*terminat"):
            run.poll_for(2)
    finally:
        run.stop()


@pytest.mark.parametrize("masked", [True, False])
def test_query_masked_keeps_the_query_out_of_the_logs(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, masked: bool
) -> None:
    path = tmp_path / "masked.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE secrets (id INTEGER PRIMARY KEY, code TEXT)")
        db.execute("INSERT INTO secrets (code) VALUES ('a'), ('b')")
    query = "SELECT id, code FROM secrets WHERE code <> 'hush-7731'"
    config = {
        "connection.url": f"jdbc:sqlite:{path}",
        "mode": "bulk",
        "query": query,
        "query.masked": str(masked).lower(),
        "topic.prefix": "masked",
    }
    caplog.set_level("DEBUG", logger="kconnect_jdbc")
    run = SourceRun(config)
    try:
        assert [r.value.get("code") for r in run.poll_until(2)] == ["a", "b"]
    finally:
        run.stop()
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert ("hush-7731" in logged) is not masked
    assert ("Querying for masked: <masked>" in logged) is masked
