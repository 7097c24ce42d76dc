"""PostgreSQL through psycopg 3 (Confluent's ``PostgreSqlDatabaseDialect``)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

import psycopg
from kconnect.data import schema as s
from kconnect.data.logical import Date, Decimal, Time, Timestamp
from sqlalchemy import Connection, Table, text
from sqlalchemy.dialects import postgresql
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql.dml import Insert

from kconnect_jdbc.dialect.base import QueryColumn
from kconnect_jdbc.dialect.generic import GenericDialect

#: Schemas that hold the system catalogs, never copied.
SYSTEM_SCHEMAS = ("pg_catalog", "information_schema", "pg_toast")

#: Connect schemas of the type OIDs a custom query's result columns commonly have.
_OID_SCHEMAS: dict[int, s.Schema] = {
    16: s.OPTIONAL_BOOLEAN_SCHEMA,
    17: s.OPTIONAL_BYTES_SCHEMA,
    20: s.OPTIONAL_INT64_SCHEMA,
    21: s.OPTIONAL_INT16_SCHEMA,
    23: s.OPTIONAL_INT32_SCHEMA,
    25: s.OPTIONAL_STRING_SCHEMA,
    700: s.OPTIONAL_FLOAT32_SCHEMA,
    701: s.OPTIONAL_FLOAT64_SCHEMA,
    1042: s.OPTIONAL_STRING_SCHEMA,
    1043: s.OPTIONAL_STRING_SCHEMA,
    1082: Date.builder().optional().build(),
    1083: Time.builder().optional().build(),
    1114: Timestamp.builder().optional().build(),
    1184: Timestamp.builder().optional().build(),
    2950: s.OPTIONAL_STRING_SCHEMA,
    114: s.OPTIONAL_STRING_SCHEMA,
    3802: s.OPTIONAL_STRING_SCHEMA,
}
_NUMERIC_OID = 1700

#: Rows from which a sink batch goes through ``COPY`` rather than a pipelined executemany.
COPY_MIN_ROWS = 64


class PostgreSqlDialect(GenericDialect):
    """PostgreSQL: schemas matter, sessions run in ``db.timezone``, upsert is ``ON CONFLICT``."""

    name = "PostgreSqlDatabaseDialect"

    def on_connect(self, dbapi_connection: Any, time_zone: str) -> None:
        """Run the session in `time_zone`, so naive timestamps compare as the connector reads them."""
        with dbapi_connection.cursor() as cursor:
            cursor.execute("SELECT set_config('TimeZone', %s, false)", (time_zone,))
        dbapi_connection.commit()

    def candidate_schemas(self, connection: Connection, pattern: str | None) -> list[str | None]:
        """Every non-system schema matching `pattern` (unset: all of them, as Confluent lists them)."""
        names = connection.execute(
            text("SELECT nspname FROM pg_namespace WHERE nspname !~ '^pg_(temp|toast)'")
        ).scalars()
        return sorted(n for n in names if n not in SYSTEM_SCHEMAS and self.schema_matches(pattern, n))

    def table_id(self, connection: Connection, name: str) -> Any:
        """``schema.table``, or ``table`` in the first schema of the search path."""
        schema, _, table = name.rpartition(".")
        if not schema:
            schema = connection.exec_driver_sql("SELECT current_schema()").scalar_one()
        return self.make_table_id(schema, table)

    def query_columns(
        self, description: Sequence[Sequence[Any]], rows: Sequence[Sequence[Any]]
    ) -> list[QueryColumn]:
        """Schemas from each column's type OID (numeric: Decimal at the column's scale)."""
        columns = []
        for column in description:
            oid = getattr(column, "type_code", None)
            schema = _OID_SCHEMAS.get(oid) if isinstance(oid, int) else None
            scale = getattr(column, "scale", None)
            if oid == _NUMERIC_OID:
                schema = (
                    Decimal.builder(scale).optional().build()
                    if scale is not None
                    else s.OPTIONAL_FLOAT64_SCHEMA
                )
            columns.append(QueryColumn(str(column[0]), schema))
        return columns

    def upsert(self, table: Table, key_columns: Sequence[str], value_columns: Sequence[str]) -> Insert:
        """``INSERT ... ON CONFLICT (keys) DO UPDATE SET col = EXCLUDED.col``."""
        statement = postgresql.insert(table)
        if not value_columns:
            return statement.on_conflict_do_nothing(index_elements=list(key_columns))
        return statement.on_conflict_do_update(
            index_elements=list(key_columns),
            set_={name: statement.excluded[name] for name in value_columns},
        )

    def insert_rows(self, connection: Connection, table: Table, rows: Sequence[Mapping[str, Any]]) -> None:
        """``COPY table FROM STDIN`` for `COPY_MIN_ROWS` rows or more, else an executemany.

        COPY is all or nothing like the executemany it replaces: a row that breaks a constraint
        fails the COPY, and with it the writer's transaction.
        """
        if len(rows) < COPY_MIN_ROWS:
            super().insert_rows(connection, table, rows)
            return
        self._copy(connection, self._quoted_table(connection, table), table, rows)

    def upsert_rows(
        self,
        connection: Connection,
        table: Table,
        key_columns: Sequence[str],
        value_columns: Sequence[str],
        rows: Sequence[Mapping[str, Any]],
    ) -> None:
        """Large batches: COPY into a temporary table, then one ``INSERT ... SELECT ... ON CONFLICT``.

        One statement cannot touch a row twice, so the batch keeps one row per key first: the
        last one (``DO UPDATE``) or the first one (``DO NOTHING``, no value columns), the row a
        one-by-one upsert would leave.
        """
        if len(rows) < COPY_MIN_ROWS:
            super().upsert_rows(connection, table, key_columns, value_columns, rows)
            return
        by_key: dict[tuple[Any, ...], Mapping[str, Any]] = {}
        for row in rows:
            key = tuple(row[name] for name in key_columns)
            if value_columns or key not in by_key:
                by_key[key] = row
        quote = connection.dialect.identifier_preparer.quote
        target = self._quoted_table(connection, table)
        # One staging table per target and transaction (dropped at its end); later batches reuse it.
        staging = quote("kconnect_stage_" + hashlib.sha1(target.encode()).hexdigest()[:16])
        columns = ", ".join(quote(name) for name in rows[0])
        connection.exec_driver_sql(
            f"CREATE TEMPORARY TABLE IF NOT EXISTS {staging} (LIKE {target} INCLUDING DEFAULTS) "
            "ON COMMIT DROP"
        )
        connection.exec_driver_sql(f"TRUNCATE {staging}")
        self._copy(connection, staging, table, list(by_key.values()))
        keys = ", ".join(quote(name) for name in key_columns)
        action = (
            "DO UPDATE SET " + ", ".join(f"{quote(n)} = EXCLUDED.{quote(n)}" for n in value_columns)
            if value_columns
            else "DO NOTHING"
        )
        connection.exec_driver_sql(
            f"INSERT INTO {target} ({columns}) SELECT {columns} FROM {staging} ON CONFLICT ({keys}) {action}"
        )

    @staticmethod
    def _quoted_table(connection: Connection, table: Table) -> str:
        return connection.dialect.identifier_preparer.format_table(table)

    @staticmethod
    def _copy(connection: Connection, target: str, table: Table, rows: Sequence[Mapping[str, Any]]) -> None:
        """``COPY target (columns) FROM STDIN`` of `rows`, values bound as SQLAlchemy would bind them."""
        names = list(rows[0])
        quote = connection.dialect.identifier_preparer.quote
        processors = [
            table.c[name].type.dialect_impl(connection.dialect).bind_processor(connection.dialect)
            for name in names
        ]
        columns = [[row[name] for row in rows] for name in names]
        for index, process in enumerate(processors):
            if process is not None:
                columns[index] = [process(value) for value in columns[index]]
        sql = f"COPY {target} ({', '.join(quote(name) for name in names)}) FROM STDIN"
        cursor = connection.connection.driver_connection.cursor()  # type: ignore[union-attr]
        try:
            with cursor.copy(sql) as copy:
                for values in zip(*columns, strict=True):
                    copy.write_row(values)
        except psycopg.Error as e:
            # The same error SQLAlchemy raises for a failed statement, so callers retry or fail alike.
            raise DBAPIError.instance(sql, None, e, psycopg.Error) from e

    def binary_literal(self, value: bytes) -> str:
        """A bytea literal, ``'\\x0aff'::bytea`` (``X'0aff'`` is a bit string in PostgreSQL)."""
        return f"'\\x{value.hex()}'::bytea"

    def fold_identifier(self, name: str) -> str:
        """PostgreSQL folds unquoted identifiers to lower case."""
        return name.lower()
