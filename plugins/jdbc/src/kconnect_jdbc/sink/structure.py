"""Destination tables: find them, create them (``auto.create``), add missing columns (``auto.evolve``).

Confluent's ``DbStructure``: the writer calls `TableStructure.ensure` before writing a batch; it
returns the reflected SQLAlchemy `Table` the statements are built on, cached until it changes.
DDL runs on its own connection (MySQL commits implicitly around DDL), before the data transaction.
A field with a default value gets a column with that ``DEFAULT`` (`default_clause`), nullable as
Confluent writes it (a default and no NULL/NOT NULL), except in the key.
"""

from __future__ import annotations

import logging
import zoneinfo
from collections.abc import Callable

from kconnect.errors import ConnectError
from sqlalchemy import Column, Engine, MetaData, PrimaryKeyConstraint, Table, TextClause, text
from sqlalchemy.exc import NoSuchTableError
from sqlalchemy.schema import CreateColumn

from kconnect_jdbc.dialect import DatabaseDialect, TableId
from kconnect_jdbc.sink.defaults import default_clause
from kconnect_jdbc.sink.fields import FieldsMetadata, SinkField

log = logging.getLogger(__name__)


class TableStructure:
    """Keeps the reflected destination tables and makes them fit the records' fields."""

    def __init__(
        self,
        engine: Engine,
        dialect: DatabaseDialect,
        *,
        auto_create: bool,
        auto_evolve: bool,
        column_name: Callable[[str], str],
        time_zone: str = "UTC",
    ) -> None:
        self.engine = engine
        self.zone = zoneinfo.ZoneInfo(time_zone)
        self.dialect = dialect
        self.auto_create = auto_create
        self.auto_evolve = auto_evolve
        self.column_name = column_name
        self._tables: dict[TableId, Table] = {}

    def forget(self) -> None:
        """Drop the cache (after a database error: the table may have changed)."""
        self._tables.clear()

    def existing(self, table_id: TableId) -> Table:
        """The table as it is (for deletes, which never change it); ConnectError when missing."""
        table = self._cached_or_reflected(table_id)
        if table is None:
            raise ConnectError(f"Table {self._quoted(table_id)} is missing: cannot delete from it")
        self._tables[table_id] = table
        return table

    def ensure(self, table_id: TableId, metadata: FieldsMetadata) -> Table:
        """The table for `metadata`'s fields, created or amended as the config allows."""
        table = self._cached_or_reflected(table_id)
        if table is None:
            if not self.auto_create:
                raise ConnectError(f"Table {self._quoted(table_id)} is missing and auto-creation is disabled")
            self._create(table_id, metadata)
            table = self._reflect(table_id)
            assert table is not None
        missing = [f for f in metadata.fields if self.column_name(f.name) not in table.c]
        if missing:
            self._amend(table_id, missing)
            table = self._reflect(table_id)
            assert table is not None
        self._tables[table_id] = table
        return table

    def _cached_or_reflected(self, table_id: TableId) -> Table | None:
        cached = self._tables.get(table_id)
        return cached if cached is not None else self._reflect(table_id)

    def _reflect(self, table_id: TableId) -> Table | None:
        try:
            with self.engine.connect() as connection:
                return Table(
                    table_id.table,
                    MetaData(),
                    schema=self.dialect.sqlalchemy_schema(table_id),
                    autoload_with=connection,
                )
        except NoSuchTableError:
            return None

    def _default(self, field: SinkField) -> TextClause | None:
        clause = default_clause(field.schema, self.dialect, self.engine.dialect, self.zone)
        return None if clause is None else text(clause)

    def _column(self, field: SinkField) -> Column[object]:
        default = self._default(field)
        return Column(
            self.column_name(field.name),
            self.dialect.column_type(field.schema, is_key=field.is_key),
            nullable=(field.schema.optional or default is not None) and not field.is_key,
            server_default=default,
            # A key column holds the record's value as is, as Confluent creates it: never a serial
            # or AUTO_INCREMENT column, which would store a key of 0 under the next number.
            autoincrement=False,
        )

    def _create(self, table_id: TableId, metadata: FieldsMetadata) -> None:
        columns = [self._column(f) for f in metadata.fields]
        keys = [self.column_name(n) for n in metadata.key_names]
        table = Table(
            table_id.table,
            MetaData(),
            *columns,
            *([PrimaryKeyConstraint(*keys)] if keys else []),
            schema=self.dialect.sqlalchemy_schema(table_id),
        )
        log.info("Creating table %s with columns %s", table_id.qualified, [c.name for c in columns])
        with self.engine.begin() as connection:
            table.create(connection, checkfirst=True)

    def _amend(self, table_id: TableId, missing: list[SinkField]) -> None:
        quoted = self._quoted(table_id)
        for field in missing:
            if not field.schema.optional and field.schema.default_value is None:
                raise ConnectError(
                    f"Cannot ALTER TABLE {quoted} to add missing field {field.name}, as the field is not "
                    "optional and does not have a default value"
                )
        if not self.auto_evolve:
            names = ", ".join(f.name for f in missing)
            raise ConnectError(f"Table {quoted} is missing fields ({names}) and auto-evolution is disabled")
        with self.engine.begin() as connection:
            for field in missing:
                column = Column(
                    self.column_name(field.name),
                    self.dialect.column_type(field.schema, is_key=False),
                    server_default=self._default(field),
                )
                definition = CreateColumn(column).compile(dialect=connection.dialect)
                log.info("Adding column %s to table %s", field.name, table_id.qualified)
                connection.execute(text(f"ALTER TABLE {quoted} ADD {definition}"))

    def _quoted(self, table_id: TableId) -> str:
        preparer = self.engine.dialect.identifier_preparer
        parts = (table_id.catalog, table_id.schema, table_id.table)
        return ".".join(preparer.quote(p) for p in parts if p)
