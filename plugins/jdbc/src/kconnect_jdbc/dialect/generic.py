"""What most databases do alike (Confluent's ``GenericDatabaseDialect``): the dialects' shared base."""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping, Sequence
from typing import Any

from kconnect.data.schema import Schema
from sqlalchemy import Connection, Engine, Table, create_engine, event, insert, inspect
from sqlalchemy.engine import URL
from sqlalchemy.sql.dml import Insert
from sqlalchemy.types import TypeEngine

from kconnect_jdbc.dialect.base import QueryColumn, TableId
from kconnect_jdbc.schemas import generic_column_type, schema_of_python_value


def like_to_regex(pattern: str) -> re.Pattern[str]:
    """A SQL LIKE pattern (``%``, ``_``, backslash escapes) as a full-match regex."""
    out = []
    escaped = False
    for char in pattern:
        if escaped:
            out.append(re.escape(char))
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "%":
            out.append(".*")
        elif char == "_":
            out.append(".")
        else:
            out.append(re.escape(char))
    return re.compile("".join(out), re.DOTALL)


def matches_like(pattern: str | None, value: str | None) -> bool:
    """Whether `value` matches the LIKE `pattern`; a None pattern matches everything."""
    if pattern is None:
        return True
    return value is not None and like_to_regex(pattern).fullmatch(value) is not None


class GenericDialect:
    """The shared parts of every dialect; subclasses override what their database does differently."""

    name = "GenericDatabaseDialect"

    def create_engine(self, url: URL, *, connect_timeout_s: int, time_zone: str) -> Engine:
        """An engine with a bounded connect time whose sessions use `time_zone`."""
        engine = create_engine(
            url, connect_args=self.connect_args(connect_timeout_s), pool_pre_ping=True, pool_size=2
        )
        event.listen(
            engine, "connect", lambda dbapi_connection, _: self.on_connect(dbapi_connection, time_zone)
        )
        return engine

    def connect_args(self, connect_timeout_s: int) -> dict[str, Any]:
        """The DB-API ``connect()`` arguments that bound the connect time."""
        return {"connect_timeout": connect_timeout_s}

    def on_connect(self, dbapi_connection: Any, time_zone: str) -> None:
        """Set up a new DB-API connection (session time zone); nothing by default."""

    def table_ids(
        self,
        connection: Connection,
        *,
        catalog_pattern: str | None,
        schema_pattern: str | None,
        table_types: Sequence[str],
    ) -> list[TableId]:
        """Tables (and views, when asked) of the schemas matching `schema_pattern`, sorted."""
        inspector = inspect(connection)
        schemas = self.candidate_schemas(connection, schema_pattern or catalog_pattern)
        found: list[TableId] = []
        for schema in schemas:
            names: list[str] = []
            if "TABLE" in table_types:
                names += inspector.get_table_names(schema=schema)
            if "VIEW" in table_types:
                names += inspector.get_view_names(schema=schema)
            found += [self.make_table_id(schema, name) for name in names]
        return sorted(found)

    def candidate_schemas(self, connection: Connection, pattern: str | None) -> list[str | None]:
        """The schemas to list tables of; by default only the connection's own."""
        return [None]

    def make_table_id(self, schema: str | None, name: str) -> TableId:
        """The id of table `name` found in SQLAlchemy schema `schema`."""
        return TableId(None, schema, name)

    def sqlalchemy_schema(self, table_id: TableId) -> str | None:
        """The schema SQLAlchemy takes for `table_id`: its schema level."""
        return table_id.schema

    def table_id(self, connection: Connection, name: str) -> TableId:
        """`name` split at its last dot into schema and table."""
        schema, _, table = name.rpartition(".")
        return self.make_table_id(schema or None, table)

    def current_time(self, connection: Connection) -> datetime.datetime:
        """``SELECT CURRENT_TIMESTAMP``, read as UTC when the driver returns a naive value."""
        value = connection.exec_driver_sql("SELECT CURRENT_TIMESTAMP").scalar_one()
        return as_utc(value)

    def timestamp_parameter(self, value: datetime.datetime) -> Any:
        """Drivers bind a datetime as a timestamp."""
        return value

    def query_columns(
        self, description: Sequence[Sequence[Any]], rows: Sequence[Sequence[Any]]
    ) -> list[QueryColumn]:
        """Schemas guessed from the first non-null value of each column (all optional)."""
        columns = []
        for index, column in enumerate(description):
            sample = next((row[index] for row in rows if row[index] is not None), None)
            columns.append(QueryColumn(str(column[0]), schema_of_python_value(sample)))
        return columns

    def int_schema(self, type_name: str) -> Schema | None:
        """No override: the generic integer mapping applies."""
        return None

    def insert_rows(self, connection: Connection, table: Table, rows: Sequence[Mapping[str, Any]]) -> None:
        """One executemany of ``INSERT INTO table (...) VALUES (...)``."""
        connection.execute(insert(table), list(rows))

    def upsert_rows(
        self,
        connection: Connection,
        table: Table,
        key_columns: Sequence[str],
        value_columns: Sequence[str],
        rows: Sequence[Mapping[str, Any]],
    ) -> None:
        """One executemany of the native upsert (`upsert`)."""
        connection.execute(self.upsert(table, key_columns, value_columns), list(rows))

    def upsert(self, table: Table, key_columns: Sequence[str], value_columns: Sequence[str]) -> Insert:
        """The database's native upsert; every dialect has its own."""
        raise NotImplementedError

    def column_type(self, schema: Schema, *, is_key: bool) -> TypeEngine[Any]:
        """The generic SQL type of a Connect schema (Confluent's ``getSqlType``)."""
        return generic_column_type(schema)

    def binary_literal(self, value: bytes) -> str:
        """The standard hexadecimal literal, ``X'0aff'`` (Confluent's ``appendBinaryLiteral``)."""
        return f"X'{value.hex()}'"

    def fold_identifier(self, name: str) -> str:
        """Unquoted identifiers are kept as written."""
        return name

    @staticmethod
    def schema_matches(pattern: str | None, schema: str) -> bool:
        """Whether `schema` matches the LIKE `pattern` (None: any)."""
        return matches_like(pattern, schema)


def as_utc(value: object) -> datetime.datetime:
    """A server time value as an aware UTC datetime (naive values are taken as UTC)."""
    if isinstance(value, str):
        value = datetime.datetime.fromisoformat(value)
    if not isinstance(value, datetime.datetime):
        raise TypeError(f"not a timestamp: {value!r}")
    if value.tzinfo is None:
        return value.replace(tzinfo=datetime.timezone.utc)
    return value.astimezone(datetime.timezone.utc)
