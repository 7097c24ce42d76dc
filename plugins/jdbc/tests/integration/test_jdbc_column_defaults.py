"""auto.create and auto.evolve write the fields' default values as column defaults, on each database.

Checked as a user would: a row inserted without those columns gets the defaults, and a column
added by auto.evolve fills the rows already there.
"""

from __future__ import annotations

import datetime
import decimal
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from kconnect import SinkRecord, Struct
from kconnect.data.logical import Date, Decimal, Time, Timestamp
from kconnect.data.schema import INT64_SCHEMA, Schema, SchemaBuilder

from plugins.jdbc.tests.integration.conftest import Db
from plugins.jdbc.tests.integration.test_jdbc_sink import sink_config, start

pytestmark = pytest.mark.integration

DEFAULTS: dict[str, tuple[SchemaBuilder, Any]] = {
    "qty": (SchemaBuilder.int32(), 7),
    "big": (SchemaBuilder.int64(), 1 << 40),
    "ratio": (SchemaBuilder.float64(), 0.5),
    "flag": (SchemaBuilder.bool(), True),
    "label": (SchemaBuilder.string(), "it's a \\ default"),
    "price": (Decimal.builder(2), decimal.Decimal("9.99")),
    "day": (Date.builder(), datetime.date(2024, 5, 1)),
    "clock": (Time.builder(), datetime.time(13, 4, 5, 250000)),
    "at": (Timestamp.builder(), datetime.datetime(2024, 5, 1, 12, 0, tzinfo=datetime.timezone.utc)),
    "data": (SchemaBuilder.bytes(), b"\x00\xff'"),
}
#: What a row inserted without the columns reads back (db.timezone=Europe/Paris: 14:00 local).
EXPECTED = {
    "qty": 7,
    "big": 1 << 40,
    "ratio": 0.5,
    "flag": True,
    "label": "it's a \\ default",
    "price": decimal.Decimal("9.99"),
    "day": datetime.date(2024, 5, 1),
    "clock": datetime.time(13, 4, 5, 250000),
    "at": datetime.datetime(2024, 5, 1, 14, 0),
    "data": b"\x00\xff'",
}


def value_schema(*extra: tuple[str, Schema]) -> Schema:
    builder = SchemaBuilder.struct().name("item").field("id", INT64_SCHEMA)
    for name, (field, default) in DEFAULTS.items():
        builder.field(name, field.default_value(default).build())
    for name, schema in extra:
        builder.field(name, schema)
    return builder.build()


def record(schema: Schema, id_: int, offset: int) -> SinkRecord:
    value = Struct(schema).put("id", id_)
    for field in schema.fields[1:]:
        value.put(field.name, field.schema.default_value)
    value.put("qty", 1)  # a value given wins over the default
    return SinkRecord(topic="items", kafka_partition=0, kafka_offset=offset, value_schema=schema, value=value)


def write_then_evolve(config: dict[str, str], insert_id_only: Any) -> None:
    config = {
        **config,
        "auto.create": "true",
        "auto.evolve": "true",
        "pk.mode": "record_value",
        "pk.fields": "id",
        "db.timezone": "Europe/Paris",
    }
    task, _ = start(config)
    try:
        task.put([record(value_schema(), 1, 0)])
        insert_id_only(2)
        later = value_schema(("note", SchemaBuilder.string().default_value("n/a").build()))
        task.put([record(later, 3, 1)])
    finally:
        task.stop()


def as_expected(row: dict[str, Any]) -> dict[str, Any]:
    """A read-back row in Python types comparable with EXPECTED (drivers differ for bool, bytes, times)."""
    out = dict(row)
    out["flag"] = bool(out["flag"])
    out["data"] = bytes(out["data"])
    if isinstance(out["day"], str):
        out["day"] = datetime.date.fromisoformat(out["day"])
    if isinstance(out["clock"], datetime.timedelta):  # PyMySQL's TIME
        out["clock"] = (datetime.datetime.min + out["clock"]).time()
    if isinstance(out["clock"], str):
        out["clock"] = datetime.time.fromisoformat(out["clock"])
    if isinstance(out["at"], str):
        out["at"] = datetime.datetime.fromisoformat(out["at"])
    out["price"] = decimal.Decimal(str(out["price"])).quantize(decimal.Decimal("0.01"))
    return out


COLUMNS = ["id", *DEFAULTS, "note"]


@pytest.mark.parametrize("database", ["pg", "maria"])
def test_defaults_on_postgres_and_mariadb(database: str, request: pytest.FixtureRequest) -> None:
    db: Db = request.getfixturevalue(database)
    write_then_evolve(
        sink_config(db, **{"table.name.format": "items"}),
        lambda id_: db.execute(f"INSERT INTO items (id) VALUES ({id_})"),
    )
    rows = [
        dict(zip(COLUMNS, r, strict=True))
        for r in db.query(f"SELECT {', '.join(COLUMNS)} FROM items ORDER BY id")
    ]
    assert [as_expected(r) for r in rows] == [
        {"id": 1, **EXPECTED, "qty": 1, "note": "n/a"},
        {"id": 2, **EXPECTED, "note": "n/a"},  # every column from its default, note filled by ALTER
        {"id": 3, **EXPECTED, "qty": 1, "note": "n/a"},
    ]


def test_defaults_on_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "copy.db"

    def insert_id_only(id_: int) -> None:
        with sqlite3.connect(path) as db:
            db.execute(f"INSERT INTO items (id) VALUES ({id_})")

    write_then_evolve({"name": "jdbc-sink", "connection.url": f"jdbc:sqlite:{path}"}, insert_id_only)
    with sqlite3.connect(path) as db:
        rows = db.execute(f"SELECT {', '.join(COLUMNS)} FROM items ORDER BY id").fetchall()
        ddl = db.execute("SELECT sql FROM sqlite_master WHERE name = 'items'").fetchone()[0]
    assert "qty INTEGER DEFAULT 7" in ddl and "X'00ff27'" in ddl
    assert [as_expected(dict(zip(COLUMNS, r, strict=True))) for r in rows][1] == {
        "id": 2,
        **EXPECTED,
        "note": "n/a",
    }
