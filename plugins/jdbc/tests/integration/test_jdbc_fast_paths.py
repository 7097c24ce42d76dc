"""The databases' fast paths keep the sink's and the source's meaning: PostgreSQL's COPY (insert,
and upsert through a staging table) for batches past `COPY_MIN_ROWS`, MariaDB's multi-row INSERT,
and the source's column-wise conversion of a batch."""

from __future__ import annotations

import datetime
import decimal

import pytest
from kconnect.errors import ConnectError
from kconnect_jdbc.dialect.postgres import COPY_MIN_ROWS

from plugins.jdbc.tests.integration.conftest import Db
from plugins.jdbc.tests.integration.source_harness import SourceRun
from plugins.jdbc.tests.integration.test_jdbc_sink import AT, order, sink_config, start

pytestmark = pytest.mark.integration

ROWS = COPY_MIN_ROWS * 3


def expected_row(id_: int, item: str) -> tuple[object, ...]:
    return (
        id_,
        item,
        decimal.Decimal("1.25") * id_,
        datetime.date(2024, 5, id_ % 28 + 1),
        AT.replace(tzinfo=None),
    )


def test_a_large_insert_batch_on_postgres_goes_through_copy_with_every_type(pg: Db) -> None:
    task, _ = start(sink_config(pg, **{"auto.create": "true", "pk.mode": "record_key"}))
    try:
        task.put([order(i, f"item {i}\t\\N", offset=i, note=None if i % 2 else "n") for i in range(ROWS)])
    finally:
        task.stop()
    rows = pg.query("SELECT id, item, price, day, at FROM orders ORDER BY id")
    assert rows == [expected_row(i, f"item {i}\t\\N") for i in range(ROWS)]
    assert pg.query("SELECT count(*) FROM orders WHERE note IS NULL") == [(ROWS // 2,)]


def test_a_large_insert_batch_with_a_duplicate_key_writes_nothing(pg: Db) -> None:
    config = sink_config(pg, **{"auto.create": "true", "pk.mode": "record_key", "max.retries": "0"})
    task, _ = start(config)
    try:
        with pytest.raises(ConnectError, match="duplicate key"):
            task.put([order(i % (ROWS - 1), "x", offset=i) for i in range(ROWS)])
    finally:
        task.stop()
    assert pg.query("SELECT count(*) FROM orders") == [(0,)]


@pytest.mark.parametrize("server", ["pg", "maria"])
def test_a_large_upsert_batch_leaves_the_last_record_of_each_key_and_is_idempotent(
    server: str, request: pytest.FixtureRequest
) -> None:
    db: Db = request.getfixturevalue(server)
    config = sink_config(db, **{"auto.create": "true", "insert.mode": "upsert", "pk.mode": "record_key"})
    task, _ = start(config)
    keys = ROWS // 3
    # Keys from 1: MariaDB takes an id of 0 in an AUTO_INCREMENT key as "the next id".
    batch = [order(i % keys + 1, f"v{i}", offset=i) for i in range(ROWS)]
    try:
        task.put(batch[: keys // 2])
        task.put(batch)
        first = db.query("SELECT id, item, price, day, at FROM orders ORDER BY id")
        task.put(batch)
        assert db.query("SELECT id, item, price, day, at FROM orders ORDER BY id") == first
    finally:
        task.stop()
    assert first == [expected_row(k + 1, f"v{k + 2 * keys}") for k in range(keys)]


def test_the_source_converts_the_columns_a_batch_needs_converted(pg: Db) -> None:
    pg.execute(
        "CREATE TABLE t (id BIGINT PRIMARY KEY, amount NUMERIC(10,2), day DATE, name TEXT, small SMALLINT)",
        "INSERT INTO t SELECT g, g * 1.5, DATE '2024-01-01' + g, CASE WHEN g % 2 = 0 THEN 'n' || g END, "
        "g % 100 FROM generate_series(1, 500) g",
    )
    run = SourceRun(
        {
            "name": "fast",
            "connection.url": pg.url,
            "connection.user": "kconnect",
            "connection.password": "s3cret-pw",
            "mode": "incrementing",
            "incrementing.column.name": "id",
            "tables": "public.t",
            "table.whitelist": "t",
            "topic.prefix": "p-",
            "batch.max.rows": "250",
        }
    )
    try:
        records = run.poll_until(500)
    finally:
        run.task.stop()
    values = [
        (r.value.get("id"), r.value.get("amount"), r.value.get("day"), r.value.get("name")) for r in records
    ]
    assert values == [
        (
            g,
            decimal.Decimal(g) * decimal.Decimal("1.50"),
            datetime.date(2024, 1, 1) + datetime.timedelta(g),
            f"n{g}" if g % 2 == 0 else None,
        )
        for g in range(1, 501)
    ]
    assert records[-1].source_offset == {"incrementing": 500}
