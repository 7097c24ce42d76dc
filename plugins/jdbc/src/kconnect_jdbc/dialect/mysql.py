"""MySQL and MariaDB through PyMySQL (Confluent's ``MySqlDatabaseDialect``)."""

from __future__ import annotations

import datetime
import logging
import zoneinfo
from collections.abc import Sequence
from typing import Any

import pymysql
from kconnect.data import schema as s
from kconnect.data.logical import Date, Decimal, Time, Timestamp
from sqlalchemy import Connection, Table
from sqlalchemy.dialects import mysql
from sqlalchemy.sql.dml import Insert
from sqlalchemy.types import TypeEngine

from kconnect_jdbc.dialect.base import QueryColumn, TableId
from kconnect_jdbc.dialect.generic import GenericDialect, as_utc

log = logging.getLogger(__name__)

SYSTEM_DATABASES = ("information_schema", "mysql", "performance_schema", "sys")

# PyMySQL's FIELD_TYPE codes of a custom query's result columns.
_FIELD_SCHEMAS: dict[int, s.Schema] = {
    1: s.OPTIONAL_INT8_SCHEMA,
    2: s.OPTIONAL_INT16_SCHEMA,
    3: s.OPTIONAL_INT32_SCHEMA,
    4: s.OPTIONAL_FLOAT32_SCHEMA,
    5: s.OPTIONAL_FLOAT64_SCHEMA,
    7: Timestamp.builder().optional().build(),
    8: s.OPTIONAL_INT64_SCHEMA,
    9: s.OPTIONAL_INT32_SCHEMA,
    10: Date.builder().optional().build(),
    11: Time.builder().optional().build(),
    12: Timestamp.builder().optional().build(),
    15: s.OPTIONAL_STRING_SCHEMA,
    245: s.OPTIONAL_STRING_SCHEMA,
    252: s.OPTIONAL_BYTES_SCHEMA,
    253: s.OPTIONAL_STRING_SCHEMA,
    254: s.OPTIONAL_STRING_SCHEMA,
}
_NEWDECIMAL = 246
_BINARY_CHARSET = 63


class MySqlDialect(GenericDialect):
    """MySQL/MariaDB: a catalog is a database, upsert is ``ON DUPLICATE KEY UPDATE``."""

    name = "MySqlDatabaseDialect"

    def connect_args(self, connect_timeout_s: int) -> dict[str, Any]:
        """PyMySQL's connect timeout."""
        return {"connect_timeout": connect_timeout_s}

    def on_connect(self, dbapi_connection: Any, time_zone: str) -> None:
        """Run the session in `time_zone`; a server without zone tables gets the zone's current offset."""
        zone = "+00:00" if time_zone.upper() in ("UTC", "Z", "GMT") else time_zone
        with dbapi_connection.cursor() as cursor:
            try:
                cursor.execute("SET time_zone = %s", (zone,))
            except pymysql.err.MySQLError:
                offset = _current_offset(time_zone)
                log.warning(
                    "The server does not know time zone %s (no zone tables): using its current offset %s",
                    time_zone,
                    offset,
                )
                cursor.execute("SET time_zone = %s", (offset,))

    def current_time(self, connection: Connection) -> datetime.datetime:
        """``UTC_TIMESTAMP(6)``: the server's clock in UTC, whatever the session's zone."""
        return as_utc(connection.exec_driver_sql("SELECT UTC_TIMESTAMP(6)").scalar_one())

    def candidate_schemas(self, connection: Connection, pattern: str | None) -> list[str | None]:
        """The connection's database, or every user database matching the catalog pattern."""
        if pattern is None:
            return [connection.exec_driver_sql("SELECT DATABASE()").scalar_one()]
        names = connection.exec_driver_sql("SHOW DATABASES").scalars()
        return sorted(n for n in names if n not in SYSTEM_DATABASES and self.schema_matches(pattern, n))

    def make_table_id(self, schema: str | None, name: str) -> TableId:
        """MySQL's databases are JDBC catalogs: ``db.table``."""
        return TableId(schema, None, name)

    def sqlalchemy_schema(self, table_id: TableId) -> str | None:
        """SQLAlchemy calls a MySQL database a schema."""
        return table_id.catalog

    def table_id(self, connection: Connection, name: str) -> TableId:
        """``db.table``, or ``table`` in the connection's database."""
        database, _, table = name.rpartition(".")
        if not database:
            database = connection.exec_driver_sql("SELECT DATABASE()").scalar_one()
        return TableId(database, None, table)

    def query_columns(
        self, description: Sequence[Sequence[Any]], rows: Sequence[Sequence[Any]]
    ) -> list[QueryColumn]:
        """Schemas from PyMySQL's field type codes (NEWDECIMAL: Decimal at the column's scale)."""
        columns = []
        for column in description:
            code = column[1]
            schema = _FIELD_SCHEMAS.get(code)
            if code == _NEWDECIMAL:
                schema = Decimal.builder(int(column[5] or 0)).optional().build()
            columns.append(QueryColumn(str(column[0]), schema))
        return columns

    def column_type(self, schema: s.Schema, *, is_key: bool) -> TypeEngine[Any]:
        """MySQL's: keys cannot be TEXT/BLOB, decimals need a precision, DATETIME keeps milliseconds."""
        if schema.name == Decimal.LOGICAL_NAME:
            return mysql.DECIMAL(65, Decimal.scale(schema))
        if schema.name == Timestamp.LOGICAL_NAME:
            return mysql.DATETIME(fsp=3)
        if schema.name == Time.LOGICAL_NAME:
            return mysql.TIME(fsp=3)
        if schema.type is s.Type.STRING and is_key:
            return mysql.VARCHAR(256)
        if schema.type is s.Type.BYTES and is_key:
            return mysql.VARBINARY(767)
        if schema.type is s.Type.STRING:
            return mysql.TEXT()
        if schema.type is s.Type.INT8:
            return mysql.TINYINT()
        return super().column_type(schema, is_key=is_key)

    def upsert(self, table: Table, key_columns: Sequence[str], value_columns: Sequence[str]) -> Insert:
        """``INSERT ... ON DUPLICATE KEY UPDATE col = VALUES(col)``."""
        statement = mysql.insert(table)
        updated = value_columns or key_columns[:1]
        return statement.on_duplicate_key_update({name: statement.inserted[name] for name in updated})


def _current_offset(time_zone: str) -> str:
    offset = datetime.datetime.now(zoneinfo.ZoneInfo(time_zone)).utcoffset() or datetime.timedelta(0)
    minutes = int(offset.total_seconds() // 60)
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
