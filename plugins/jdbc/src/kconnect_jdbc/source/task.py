"""JdbcSourceTask: runs the queriers of its tables (or the query) in turn, each when it is due.

Start: open the database, build one querier per table from the task's ``tables`` with the
committed offset of its partition. Poll: take the querier due first; if it is not due yet,
wait (at most a second, so stop stays prompt) and return nothing; else return its next
``batch.max.rows`` records, and once it has read its result to the end, schedule it
``poll.interval.ms`` later. Nothing here depends on which database it is.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from kconnect import SourceRecord, SourceTask
from kconnect.errors import ConnectError
from sqlalchemy import Connection
from sqlalchemy.exc import DataError, IntegrityError, NotSupportedError, ProgrammingError, SQLAlchemyError

from kconnect_jdbc.connection import Database, connect, error_text, open_database
from kconnect_jdbc.dialect import TableId
from kconnect_jdbc.reflection import describe_table
from kconnect_jdbc.source.config import (
    MODE_BULK,
    MODE_UNSPECIFIED,
    TIMESTAMP_INITIAL_CURRENT,
    SourceSettings,
)
from kconnect_jdbc.source.offsets import (
    TimestampIncrementingOffset,
    legacy_table_partition,
    query_partition,
    table_partition,
)
from kconnect_jdbc.source.querier import BulkQuerier, QuerySource, TableQuerier, TimestampIncrementingQuerier
from kconnect_jdbc.version import VERSION

log = logging.getLogger(__name__)

#: Longest a poll waits for the next querier to become due.
MAX_POLL_WAIT_S = 1.0
#: Errors of the statement itself, which a retry cannot cure (JDBC's SQLNonTransientException).
NON_TRANSIENT_ERRORS = (ProgrammingError, DataError, IntegrityError, NotSupportedError)


class JdbcSourceTask(SourceTask):
    """Copies its share of the tables (or the custom query) into Kafka."""

    java_class_names: ClassVar[tuple[str, ...]] = ("io.confluent.connect.jdbc.source.JdbcSourceTask",)

    @classmethod
    def version(cls) -> str:
        """The plugin's version."""
        return VERSION

    def start(self, config: Mapping[str, str]) -> None:
        """Open the database and build the queriers, resuming from the committed offsets."""
        self.settings = SourceSettings.parse(config)
        if self.settings.mode == MODE_UNSPECIFIED:
            raise ConnectError("Query mode must be specified")
        if not self.settings.tables and not self.settings.query:
            raise ConnectError(
                "Task is being killed because it was not assigned a table nor a query to execute"
            )
        self._stopping = threading.Event()
        # Held while poll uses the connection: stop (another thread) then leaves the closing to poll.
        self._in_poll = threading.Lock()
        self.database: Database = open_database(self.settings.connection, time_zone=self.settings.db_timezone)
        self.connection: Connection | None = connect(self.database, self.settings.isolation_mode)
        preparer = self.database.engine.dialect.identifier_preparer
        self.quote: Callable[[str], str] = (
            preparer.quote_identifier if self.settings.quote_identifiers else (lambda name: name)
        )
        try:
            self.queriers = self._build_queriers()
        finally:
            if self.connection is not None and self.connection.in_transaction():
                self.connection.commit()

    def _build_queriers(self) -> list[TableQuerier]:
        settings = self.settings
        if settings.query:
            return [self._querier(None, settings.query, settings.topic_prefix, query_partition())]
        queriers = []
        for name in settings.tables:
            table_id = self.database.dialect.table_id(self._connection(), name)
            quoted = ".".join(self.quote(p) for p in (table_id.catalog, table_id.schema, table_id.table) if p)
            queriers.append(
                self._querier(
                    table_id,
                    f"SELECT * FROM {quoted}",
                    settings.topic_prefix + table_id.table,
                    table_partition(name),
                )
            )
        return queriers

    def _querier(
        self, table_id: TableId | None, select_sql: str, topic: str, partition: dict[str, str]
    ) -> TableQuerier:
        settings = self.settings
        dialect = self.database.dialect
        describe = None
        if table_id is not None:
            tid = table_id

            def describe(connection: Connection) -> Any:
                return describe_table(connection, dialect, tid, numeric_mapping=settings.numeric_mapping)

        source = QuerySource(
            select_sql=select_sql,
            topic=topic,
            partition=partition,
            schema_name=table_id.table if table_id is not None else None,
            describe=describe,
            masked=table_id is None and settings.query_masked,
        )
        if settings.mode == MODE_BULK:
            return BulkQuerier(
                source,
                dialect,
                query_suffix=settings.query_suffix,
                time_zone=settings.db_timezone,
                timestamp_granularity=settings.timestamp_granularity,
            )
        incrementing = self._incrementing_column(table_id) if settings.uses_incrementing else None
        if table_id is not None and settings.validate_non_null:
            self._validate_non_null(table_id, incrementing)
        return TimestampIncrementingQuerier(
            source,
            dialect,
            query_suffix=settings.query_suffix,
            time_zone=settings.db_timezone,
            timestamp_granularity=settings.timestamp_granularity,
            quote=self.quote,
            incrementing_column=incrementing,
            timestamp_columns=settings.timestamp_columns if settings.uses_timestamp else (),
            offset=self._initial_offset(table_id, partition),
            timestamp_delay_ms=settings.timestamp_delay_ms,
        )

    def _incrementing_column(self, table_id: TableId | None) -> str:
        if self.settings.incrementing_column or table_id is None:
            return self.settings.incrementing_column
        columns = describe_table(self._connection(), self.database.dialect, table_id) or []
        found = [c.name for c in columns if c.autoincrement]
        if not found:
            raise ConnectError(
                f"Cannot find an auto-incrementing column in {table_id.qualified}: "
                "set incrementing.column.name"
            )
        return found[0]

    def _validate_non_null(self, table_id: TableId, incrementing: str | None) -> None:
        columns = {
            c.name.lower(): c
            for c in describe_table(self._connection(), self.database.dialect, table_id) or []
        }
        if incrementing and incrementing.lower() in columns and columns[incrementing.lower()].nullable:
            raise ConnectError(
                f"Cannot make incremental queries using incrementing column {incrementing} on "
                f"{table_id.qualified} because this column is nullable."
            )
        timestamps = self.settings.timestamp_columns if self.settings.uses_timestamp else ()
        if timestamps and all(columns[t.lower()].nullable for t in timestamps if t.lower() in columns):
            raise ConnectError(
                f"Cannot make incremental queries using timestamp columns {','.join(timestamps)} on "
                f"{table_id.qualified} because all of these columns are nullable."
            )

    def _initial_offset(
        self, table_id: TableId | None, partition: dict[str, str]
    ) -> TimestampIncrementingOffset:
        candidates: list[Mapping[str, Any]] = [partition]
        if table_id is not None:
            candidates.append(legacy_table_partition(table_id.table))
        committed = None
        for _, stored in self.context.offset_storage_reader.offsets(candidates):
            if stored:
                committed = stored
                break
        offset = TimestampIncrementingOffset.from_map(committed)
        initial = self.settings.timestamp_initial
        if offset.timestamp is None and self.settings.uses_timestamp and initial is not None:
            start = (
                self.database.dialect.current_time(self._connection())
                if initial == TIMESTAMP_INITIAL_CURRENT
                else TimestampIncrementingOffset.from_map({"timestamp": initial}).timestamp
            )
            offset = TimestampIncrementingOffset(start, offset.incrementing)
        log.info("Starting %s from offset %s", partition, offset.to_map())
        return offset

    def poll(self) -> list[SourceRecord] | None:
        """The next batch of the querier due first; [] while none is due."""
        with self._in_poll:
            if self._stopping.is_set():
                self._close()
                return None
            try:
                return self._poll_once()
            finally:
                if self._stopping.is_set():
                    self._close()

    def _poll_once(self) -> list[SourceRecord]:
        querier = min(self.queriers, key=lambda q: q.next_due)
        wait = querier.next_due - time.monotonic()
        if wait > 0:
            self._stopping.wait(min(wait, MAX_POLL_WAIT_S))
            return []
        try:
            records = querier.read(self._connection(), self.settings.batch_max_rows)
        except SQLAlchemyError as e:
            self._query_failed(querier, e)
            return []
        querier.failed_attempts = 0
        if querier.exhausted:
            querier.next_due = time.monotonic() + self.settings.poll_interval_ms / 1000
        return records

    def _connection(self) -> Connection:
        """The task's connection, opened again after a database error dropped it."""
        if self.connection is None:
            self.connection = connect(self.database, self.settings.isolation_mode)
        return self.connection

    def _query_failed(self, querier: TableQuerier, error: SQLAlchemyError) -> None:
        """Drop the connection; fail the task on a non-transient error or after the retries, else retry later.

        Confluent's rule: errors of the statement itself (syntax, missing column, constraint) fail at
        once; others (the connection lost, the server restarting) retry the query after
        ``poll.interval.ms``, ``query.retry.attempts`` times (-1: forever).
        """
        text = error_text(error, self.settings.connection)
        querier.abandon()
        connection, self.connection = self.connection, None
        if connection is not None:
            try:
                connection.close()
            except SQLAlchemyError:
                pass
        if isinstance(error, NON_TRANSIENT_ERRORS):
            raise ConnectError(f"Failed to query {querier.source.topic}: {text}") from None
        attempts = self.settings.query_retry_attempts
        if 0 <= attempts <= querier.failed_attempts:
            raise ConnectError(f"Failed to query table after retries: {text}") from None
        querier.failed_attempts += 1
        log.warning(
            "Error while querying for %s, attempt %d of %s: %s",
            querier.source.topic,
            querier.failed_attempts,
            "unlimited" if attempts < 0 else attempts,
            text,
        )
        querier.next_due = time.monotonic() + self.settings.poll_interval_ms / 1000

    def stop(self) -> None:
        """Close the database now, or, while a poll is using it, have that poll close it when it returns.

        Called once, possibly from another thread than `poll`'s.
        """
        stopping = getattr(self, "_stopping", None)
        if stopping is None:
            return
        stopping.set()
        if self._in_poll.acquire(blocking=False):
            try:
                self._close()
            finally:
                self._in_poll.release()

    def _close(self) -> None:
        connection = getattr(self, "connection", None)
        if connection is not None:
            try:
                connection.close()
            except SQLAlchemyError as e:
                log.warning(
                    "Error closing the source connection: %s", error_text(e, self.settings.connection)
                )
            self.connection = None
        database = getattr(self, "database", None)
        if database is not None:
            database.dispose()
            self.database = None  # type: ignore[assignment]
