"""The one interface every database speaks through (Confluent's ``DatabaseDialect``), and `TableId`.

Everything a database does differently sits behind `DatabaseDialect`: how to connect with a
bounded timeout, which tables exist, what a table is called in an offset, what time it is on the
server, how a query's columns are typed, how to upsert. The queriers, the writer and the tasks
only call these methods; none of them asks which database it is talking to.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from kconnect.data.schema import Schema

if TYPE_CHECKING:
    from sqlalchemy import Connection, Engine, Table
    from sqlalchemy.engine import URL
    from sqlalchemy.sql.dml import Insert
    from sqlalchemy.types import TypeEngine


@dataclass(frozen=True, order=True)
class TableId:
    """A table's catalog, schema and name, each None where the database has no such level.

    PostgreSQL: schema and name (``public.orders``); MySQL/MariaDB: catalog (the database) and
    name (``shop.orders``); SQLite: the name alone. `qualified` is the dotted, unquoted form
    Confluent's connector writes into its source partitions.
    """

    catalog: str | None
    schema: str | None
    table: str

    @property
    def qualified(self) -> str:
        """``catalog.schema.table`` without the levels that are None, unquoted."""
        return ".".join(part for part in (self.catalog, self.schema, self.table) if part)

    def matches(self, name: str) -> bool:
        """Whether a ``table.whitelist``/``table.blacklist`` entry names this table."""
        schema_qualified = ".".join(part for part in (self.schema, self.table) if part)
        return name in (self.qualified, schema_qualified, self.table)


@dataclass(frozen=True)
class QueryColumn:
    """One column of a custom query's result: its name and Connect schema (None: not supported)."""

    name: str
    schema: Schema | None


class DatabaseDialect(Protocol):
    """What the connectors need of a database; one implementation per database."""

    #: Confluent's dialect name (``dialect.name``), e.g. ``PostgreSqlDatabaseDialect``.
    name: str

    def create_engine(self, url: URL, *, connect_timeout_s: int, time_zone: str) -> Engine:
        """An engine whose connections time out after `connect_timeout_s` and use `time_zone`."""
        ...

    def table_ids(
        self,
        connection: Connection,
        *,
        catalog_pattern: str | None,
        schema_pattern: str | None,
        table_types: Sequence[str],
    ) -> list[TableId]:
        """The tables (and views, if asked) visible through `connection`, sorted."""
        ...

    def sqlalchemy_schema(self, table_id: TableId) -> str | None:
        """The ``schema=`` SQLAlchemy reflection and DDL take for `table_id`."""
        ...

    def table_id(self, connection: Connection, name: str) -> TableId:
        """The id of table `name` (``table``, ``schema.table`` or ``catalog.table``) for the sink."""
        ...

    def current_time(self, connection: Connection) -> datetime.datetime:
        """The database server's current time, as an aware UTC datetime."""
        ...

    def timestamp_parameter(self, value: datetime.datetime) -> Any:
        """A naive timestamp as the driver should bind it to compare with a timestamp column."""
        ...

    def query_columns(
        self, description: Sequence[Sequence[Any]], rows: Sequence[Sequence[Any]]
    ) -> list[QueryColumn]:
        """The Connect schemas of a custom query's result, from the cursor description (or the rows)."""
        ...

    def int_schema(self, type_name: str) -> Schema | None:
        """A database-specific override of an integer column's Connect schema (None: the generic one)."""
        ...

    def upsert(self, table: Table, key_columns: Sequence[str], value_columns: Sequence[str]) -> Insert:
        """An INSERT that updates `value_columns` of the row with the same key (native upsert)."""
        ...

    def insert_rows(self, connection: Connection, table: Table, rows: Sequence[Mapping[str, Any]]) -> None:
        """INSERT `rows` (each a ``{column: value}`` of the same columns) in `connection`'s transaction.

        Called by the sink's writer once per ``batch.size`` rows; a row that fails fails the call
        (and so the transaction), whichever fast path the database takes.
        """
        ...

    def upsert_rows(
        self,
        connection: Connection,
        table: Table,
        key_columns: Sequence[str],
        value_columns: Sequence[str],
        rows: Sequence[Mapping[str, Any]],
    ) -> None:
        """Upsert `rows` in order (the last row of a key wins), as `upsert` would one by one."""
        ...

    def column_type(self, schema: Schema, *, is_key: bool) -> TypeEngine[Any]:
        """The column type ``auto.create``/``auto.evolve`` give a field of Connect schema `schema`."""
        ...

    def binary_literal(self, value: bytes) -> str:
        """The SQL literal of bytes, as a BYTES field's column default (``auto.create``)."""
        ...

    def fold_identifier(self, name: str) -> str:
        """How the database stores an unquoted identifier (``quote.sql.identifiers=never``)."""
        ...
