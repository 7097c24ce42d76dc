"""SQLite through the standard library's sqlite3 (Confluent's ``SqliteDatabaseDialect``)."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any

from kconnect.data import schema as s
from sqlalchemy import Connection, Table
from sqlalchemy.dialects import sqlite
from sqlalchemy.sql.dml import Insert

from kconnect_jdbc.dialect.generic import GenericDialect, as_utc


class SqliteDialect(GenericDialect):
    """SQLite: one schema, integers are 64-bit, upsert is ``ON CONFLICT DO UPDATE``."""

    name = "SqliteDatabaseDialect"

    def connect_args(self, connect_timeout_s: int) -> dict[str, Any]:
        """How long sqlite3 waits for a lock; the file is opened by any thread of the task."""
        return {"timeout": connect_timeout_s, "check_same_thread": False}

    def current_time(self, connection: Connection) -> datetime.datetime:
        """SQLite's clock (UTC, millisecond precision)."""
        value = connection.exec_driver_sql("SELECT strftime('%Y-%m-%d %H:%M:%f', 'now')").scalar_one()
        return as_utc(value)

    def timestamp_parameter(self, value: datetime.datetime) -> Any:
        """SQLite stores timestamps as ISO text (``YYYY-MM-DD HH:MM:SS[.ffffff]``); compare as text."""
        return value.isoformat(sep=" ")

    def int_schema(self, type_name: str) -> s.Schema | None:
        """Every SQLite INTEGER holds 64 bits."""
        return s.INT64_SCHEMA if type_name.upper() in ("INTEGER", "INT") else None

    def upsert(self, table: Table, key_columns: Sequence[str], value_columns: Sequence[str]) -> Insert:
        """``INSERT ... ON CONFLICT (keys) DO UPDATE SET col = excluded.col``."""
        statement = sqlite.insert(table)
        if not value_columns:
            return statement.on_conflict_do_nothing(index_elements=list(key_columns))
        return statement.on_conflict_do_update(
            index_elements=list(key_columns),
            set_={name: statement.excluded[name] for name in value_columns},
        )
