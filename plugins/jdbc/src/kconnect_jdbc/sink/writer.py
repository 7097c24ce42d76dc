"""Writes a `put`'s records to their tables in one transaction (``JdbcDbWriter``/``BufferedRecords``).

Steps of `JdbcDbWriter.write`: group the records by destination table (``table.name.format``),
keeping their order; cut each table's records into runs of the same schemas and kind (a write or,
with ``delete.enabled``, a tombstone's delete); make each table fit its runs' fields
(`TableStructure`); then, in one transaction, run every run as ``batch.size`` statements at a
time (INSERT, native upsert, UPDATE or DELETE: an executemany, or the dialect's fast path such as
PostgreSQL's COPY for large INSERT and upsert batches) and commit. Nothing is
committed unless everything was, so a retried `put` never half-applies.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kconnect import SinkRecord
from kconnect.errors import ConnectError
from sqlalchemy import Connection, Table, and_, bindparam, delete, update
from sqlalchemy.sql.dml import Delete, Update

from kconnect_jdbc.connection import Database
from kconnect_jdbc.dialect import TableId
from kconnect_jdbc.sink.config import SinkSettings
from kconnect_jdbc.sink.fields import FieldsMetadata, RowExtractor, fields_metadata
from kconnect_jdbc.sink.structure import TableStructure

log = logging.getLogger(__name__)

_KEY_PREFIX = "k__"
_VALUE_PREFIX = "v__"


@dataclass
class Run:
    """Consecutive records of one table with the same schemas and kind (write or delete)."""

    table_name: str
    is_delete: bool
    records: list[SinkRecord]


class JdbcDbWriter:
    """Owns the destination tables' structure and writes batches of records to them."""

    def __init__(self, settings: SinkSettings, database: Database) -> None:
        self.settings = settings
        self.database = database
        fold: Callable[[str], str] = (
            (lambda name: name) if settings.quote_identifiers else database.dialect.fold_identifier
        )
        self.column_name = fold
        self.structure = TableStructure(
            database.engine,
            database.dialect,
            auto_create=settings.auto_create,
            auto_evolve=settings.auto_evolve,
            column_name=fold,
            time_zone=settings.db_timezone,
        )
        self._table_ids: dict[str, TableId] = {}

    def table_name(self, topic: str) -> str:
        """The destination table of `topic`'s records."""
        name = self.settings.table_name_format.replace("${topic}", topic)
        if not name.strip():
            raise ConnectError(
                f"Destination table name for topic '{topic}' is empty using the format string "
                f"'{self.settings.table_name_format}'"
            )
        return self.column_name(name)

    def write(self, records: Sequence[SinkRecord]) -> None:
        """Write `records` (already checked) in one transaction; raises SQLAlchemyError or ConnectError."""
        runs = self._runs(records)
        prepared = []
        for run in runs:
            table_id = self._table_id(run.table_name)
            first = run.records[0]
            metadata = fields_metadata(run.table_name, self.settings, first.key_schema, first.value_schema)
            table = (
                self.structure.existing(table_id)
                if run.is_delete
                else self.structure.ensure(table_id, metadata)
            )
            prepared.append((run, table, metadata))
        with self.database.engine.begin() as connection:
            for run, table, metadata in prepared:
                self._execute(connection, run, table, metadata)
        log.debug("Wrote %d records in %d runs", len(records), len(runs))

    def _table_id(self, name: str) -> TableId:
        if name not in self._table_ids:
            with self.database.engine.connect() as connection:
                self._table_ids[name] = self.database.dialect.table_id(connection, name)
        return self._table_ids[name]

    def _runs(self, records: Sequence[SinkRecord]) -> list[Run]:
        by_table: dict[str, list[Run]] = {}
        for record in records:
            name = self.table_name(record.topic)
            is_delete = record.value is None
            runs = by_table.setdefault(name, [])
            last = runs[-1] if runs else None
            if (
                last is not None
                and last.is_delete == is_delete
                and last.records[-1].key_schema == record.key_schema
                and (is_delete or last.records[-1].value_schema == record.value_schema)
            ):
                last.records.append(record)
            else:
                runs.append(Run(name, is_delete, [record]))
        return [run for runs in by_table.values() for run in runs]

    def _execute(self, connection: Connection, run: Run, table: Table, metadata: FieldsMetadata) -> None:
        extractor = RowExtractor(metadata, self.settings)
        keys = [self.column_name(n) for n in metadata.key_names]
        values = [self.column_name(n) for n in metadata.non_key_names]
        if run.is_delete:
            if not keys:
                raise ConnectError("Require primary keys to support delete")
            statement: Update | Delete = delete(table).where(_keys_match(table, keys))
            rows = [_prefixed(self._named(extractor.key(r)), _KEY_PREFIX) for r in run.records]
        elif self.settings.insert_mode == "upsert":
            if not keys:
                raise ConnectError(
                    f"Write to table '{run.table_name}' in UPSERT mode requires key field names to be known, "
                    "check the primary key configuration"
                )
            rows = [self._named(extractor.row(r)) for r in run.records]
            for batch in self._batches(rows):
                self.database.dialect.upsert_rows(connection, table, keys, values, batch)
            return
        elif self.settings.insert_mode == "update":
            statement = (
                update(table)
                .where(_keys_match(table, keys))
                .values({name: bindparam(_VALUE_PREFIX + name) for name in values})
            )
            rows = [self._update_row(extractor.row(r), keys) for r in run.records]
        else:
            rows = [self._named(extractor.row(r)) for r in run.records]
            for batch in self._batches(rows):
                self.database.dialect.insert_rows(connection, table, batch)
            return
        for batch in self._batches(rows):
            connection.execute(statement, batch)

    def _batches(self, rows: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
        """`rows` cut into ``batch.size`` rows at a time (one statement, or one COPY, each)."""
        size = self.settings.batch_size or len(rows)
        return [rows[start : start + size] for start in range(0, len(rows), size)]

    def _named(self, row: dict[str, Any]) -> dict[str, Any]:
        return {self.column_name(name): value for name, value in row.items()}

    def _update_row(self, row: dict[str, Any], keys: list[str]) -> dict[str, Any]:
        named = self._named(row)
        return {
            (_KEY_PREFIX if name in keys else _VALUE_PREFIX) + name: value for name, value in named.items()
        }


def _keys_match(table: Table, keys: list[str]) -> Any:
    return and_(*(table.c[name] == bindparam(_KEY_PREFIX + name) for name in keys))


def _prefixed(row: dict[str, Any], prefix: str) -> dict[str, Any]:
    return {prefix + name: value for name, value in row.items()}
