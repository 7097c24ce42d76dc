"""Source modes as queriers: each owns its SQL, its result in progress and its offset.

A querier runs its query when due, hands out up to ``batch.max.rows`` records per call to
`TableQuerier.read`, and reports `exhausted` once the result is read to its end; the task then
schedules it ``poll.interval.ms`` later. `BulkQuerier` reads the whole table each time;
`TimestampIncrementingQuerier` reads rows past its offset and moves the offset with every row
(Confluent's ``BulkTableQuerier`` and ``TimestampIncrementingTableQuerier``).
"""

from __future__ import annotations

import datetime
import logging
import zoneinfo
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kconnect import SourceRecord, Struct
from kconnect.data.logical import Timestamp
from kconnect.data.schema import Schema, SchemaBuilder, Type
from kconnect.errors import ConnectError
from sqlalchemy import Connection, CursorResult, text

from kconnect_jdbc.dialect import DatabaseDialect
from kconnect_jdbc.reflection import ColumnDefinition
from kconnect_jdbc.schemas import ValueConverter, to_utc_timestamp, value_converter
from kconnect_jdbc.source.granularity import CONNECT_LOGICAL, timestamp_field
from kconnect_jdbc.source.offsets import TimestampIncrementingOffset

log = logging.getLogger(__name__)

#: The Python type a driver value of a field's Connect type may have to need no conversion.
_NATIVE_TYPES: dict[Type, type] = {
    Type.INT8: int,
    Type.INT16: int,
    Type.INT32: int,
    Type.INT64: int,
    Type.FLOAT32: float,
    Type.FLOAT64: float,
    Type.BOOLEAN: bool,
    Type.STRING: str,
    Type.BYTES: bytes,
}


@dataclass(frozen=True)
class QuerySource:
    """What a querier selects from: a table (quoted name) or a custom query, and where records go."""

    select_sql: str
    topic: str
    partition: Mapping[str, str]
    schema_name: str | None
    #: Reflects the table's columns (each query run, so upstream changes show); None for a query.
    describe: Callable[[Connection], Sequence[ColumnDefinition] | None] | None
    #: ``query.masked``: the SQL is logged as ``<masked>``.
    masked: bool = False


class RowMapper:
    """Turns result rows into Structs of one Connect schema (built from the columns once).

    Timestamp columns take the form ``timestamp.granularity`` asks for (`timestamp_field`).
    """

    def __init__(
        self,
        schema_name: str | None,
        columns: Sequence[tuple[str, Schema | None]],
        time_zone: str,
        granularity: str = CONNECT_LOGICAL,
    ):
        zone = zoneinfo.ZoneInfo(time_zone)
        builder = SchemaBuilder.struct()
        if schema_name:
            builder.name(schema_name)
        self.positions: list[int] = []
        self.converters: list[ValueConverter] = []
        #: Per field, the driver's Python type that needs no conversion (None: always convert).
        self.native_types: list[type | None] = []
        for position, (name, schema) in enumerate(columns):
            if schema is None:
                log.warning("Ignoring column %s of %s: its type has no Connect equivalent", name, schema_name)
                continue
            converter = value_converter(schema, time_zone)
            native = None if schema.name else _NATIVE_TYPES.get(schema.type)
            rendered = (
                timestamp_field(granularity, schema.optional, zone)
                if schema.name == Timestamp.LOGICAL_NAME
                else None
            )
            if rendered is not None:
                schema, render = rendered
                converter = _composed(render, converter)
            builder.field(name, schema)
            self.positions.append(position)
            self.converters.append(converter)
            self.native_types.append(native)
        self.schema = builder.build()
        self.all_positions = self.positions == list(range(len(columns)))

    def to_structs(self, rows: Sequence[Sequence[Any]]) -> list[Struct]:
        """`rows` as Structs, converted column by column.

        A column whose values the driver already gave as the field's Python type (an int for an
        INT64, a str for a STRING, or None) is taken as it is, so a batch pays the converters only
        for the columns that need them (Decimals, timestamps, ...).
        """
        if not rows:
            return []
        if not self.positions:
            return [Struct.unchecked(self.schema, []) for _ in rows]
        columns: list[Sequence[Any]] = (
            list(zip(*rows, strict=True))
            if self.all_positions
            else [[row[p] for row in rows] for p in self.positions]
        )
        for index, (values, convert, native) in enumerate(
            zip(columns, self.converters, self.native_types, strict=True)
        ):
            if native is None or not set(map(type, values)) <= {native, type(None)}:
                columns[index] = list(map(convert, values))
        schema = self.schema
        unchecked = Struct.unchecked
        return [unchecked(schema, list(values)) for values in zip(*columns, strict=True)]


def _composed(outer: Callable[[Any], Any], inner: ValueConverter) -> ValueConverter:
    return lambda value: outer(inner(value))


class TableQuerier(ABC):
    """One table or query being copied; `read` is called by the task's poll when it is due."""

    def __init__(
        self,
        source: QuerySource,
        dialect: DatabaseDialect,
        *,
        query_suffix: str,
        time_zone: str,
        timestamp_granularity: str = CONNECT_LOGICAL,
    ) -> None:
        self.source = source
        self.timestamp_granularity = timestamp_granularity
        self.dialect = dialect
        self.query_suffix = query_suffix
        self.time_zone = time_zone
        self.zone = zoneinfo.ZoneInfo(time_zone)
        self.next_due = 0.0
        self.exhausted = True
        #: Failed runs of the query since the last one that worked (``query.retry.attempts``).
        self.failed_attempts = 0
        self._result: CursorResult[Any] | None = None
        self._mapper: RowMapper | None = None

    @abstractmethod
    def statement(self, connection: Connection) -> tuple[str, dict[str, Any]]:
        """The SQL to run now and its parameters."""

    @abstractmethod
    def record_offset(self, row: Sequence[Any]) -> Mapping[str, Any] | None:
        """Move the offset past `row` and return the offset map its record carries."""

    def prepare(self, description: Sequence[Sequence[Any]]) -> None:  # noqa: B027  (optional hook)
        """Learn column positions from the result's description (after the first execution)."""

    def read(self, connection: Connection, max_rows: int) -> list[SourceRecord]:
        """Up to `max_rows` records: runs the query if none is open, else continues it."""
        if self._result is None or self._mapper is None:
            sql, params = self.statement(connection)
            log.debug("Querying for %s: %s", self.source.topic, "<masked>" if self.source.masked else sql)
            self._result = connection.execution_options(stream_results=True, max_row_buffer=max_rows).execute(
                text(sql), params
            )
            self.exhausted = False
            description = self._result.cursor.description or []
            self.prepare(description)
            rows = self._result.fetchmany(max_rows)
            self._mapper = self._build_mapper(connection, description, rows)
        else:
            rows = self._result.fetchmany(max_rows)
        return self._to_records(rows, connection, max_rows)

    def _to_records(self, rows: Sequence[Any], connection: Connection, max_rows: int) -> list[SourceRecord]:
        assert self._mapper is not None
        topic, schema, partition = self.source.topic, self._mapper.schema, self.source.partition
        records = [
            SourceRecord(
                topic=topic,
                value_schema=schema,
                value=struct,
                source_partition=partition,
                source_offset=self.record_offset(row),
            )
            for row, struct in zip(rows, self._mapper.to_structs(rows), strict=True)
        ]
        if len(rows) < max_rows:
            self.close(connection)
        return records

    def _build_mapper(
        self, connection: Connection, description: Sequence[Sequence[Any]], rows: Sequence[Any]
    ) -> RowMapper:
        names = [str(column[0]) for column in description]
        table_columns = self.source.describe(connection) if self.source.describe is not None else None
        if table_columns is not None:
            by_name = {c.name: c.schema for c in table_columns}
            columns = [(name, by_name.get(name)) for name in names]
        else:
            columns = [(c.name, c.schema) for c in self.dialect.query_columns(description, rows)]
        return RowMapper(self.source.schema_name, columns, self.time_zone, self.timestamp_granularity)

    def close(self, connection: Connection) -> None:
        """End the result in progress and its transaction; the querier is exhausted until next due."""
        if self._result is not None:
            self._result.close()
            self._result = None
        self._mapper = None
        if connection.in_transaction():
            connection.commit()
        self.exhausted = True

    def abandon(self) -> None:
        """Forget the result in progress after a database error (the connection is being replaced)."""
        self._result = None
        self._mapper = None
        self.exhausted = True

    def column_position(self, description: Sequence[Sequence[Any]], name: str) -> int:
        """The result position of column `name`; ConnectError when the result lacks it."""
        for position, column in enumerate(description):
            if str(column[0]) == name:
                return position
        for position, column in enumerate(description):
            if str(column[0]).lower() == name.lower():
                return position
        raise ConnectError(f"Column {name} is not in the result of {self.source.topic}'s query")


class BulkQuerier(TableQuerier):
    """``mode=bulk``: the whole table (or query result) every time; records carry no offset."""

    def statement(self, connection: Connection) -> tuple[str, dict[str, Any]]:
        """``SELECT * FROM table`` (or the query), then ``query.suffix``."""
        return _with_suffix(self.source.select_sql, self.query_suffix), {}

    def record_offset(self, row: Sequence[Any]) -> Mapping[str, Any] | None:
        """Bulk mode keeps no offset."""
        return None


class TimestampIncrementingQuerier(TableQuerier):
    """``incrementing``, ``timestamp`` and ``timestamp+incrementing``: rows past the offset, in order."""

    def __init__(
        self,
        source: QuerySource,
        dialect: DatabaseDialect,
        *,
        query_suffix: str,
        time_zone: str,
        quote: Any,
        incrementing_column: str | None,
        timestamp_columns: Sequence[str],
        offset: TimestampIncrementingOffset,
        timestamp_delay_ms: int,
        timestamp_granularity: str = CONNECT_LOGICAL,
    ) -> None:
        super().__init__(
            source,
            dialect,
            query_suffix=query_suffix,
            time_zone=time_zone,
            timestamp_granularity=timestamp_granularity,
        )
        self.quote = quote
        self.incrementing_column = incrementing_column
        self.timestamp_columns = list(timestamp_columns)
        self.offset = offset
        self.timestamp_delay = datetime.timedelta(milliseconds=timestamp_delay_ms)
        self._incrementing_position = -1
        self._timestamp_positions: list[int] = []

    def statement(self, connection: Connection) -> tuple[str, dict[str, Any]]:
        """The SELECT with Confluent's WHERE/ORDER BY for the mode, and the offset as parameters."""
        clauses: list[str] = []
        params: dict[str, Any] = {}
        order: list[str] = []
        if self.timestamp_columns:
            timestamp_sql = self._timestamp_expression()
            end = self.dialect.current_time(connection) - self.timestamp_delay
            params["ts_end"] = self._db_time(end)
            params["ts_last"] = self._db_time(self.offset.timestamp_or_epoch)
            if self.incrementing_column:
                inc = self.quote(self.incrementing_column)
                params["inc_last"] = self.offset.incrementing_or_default
                clauses.append(
                    f"{timestamp_sql} < :ts_end AND "
                    f"(({timestamp_sql} = :ts_last AND {inc} > :inc_last) OR {timestamp_sql} > :ts_last)"
                )
                order = [timestamp_sql, inc]
            else:
                clauses.append(f"{timestamp_sql} > :ts_last AND {timestamp_sql} < :ts_end")
                order = [timestamp_sql]
        elif self.incrementing_column:
            inc = self.quote(self.incrementing_column)
            params["inc_last"] = self.offset.incrementing_or_default
            clauses.append(f"{inc} > :inc_last")
            order = [inc]
        ordering = ", ".join(f"{column} ASC" for column in order)
        sql = f"{self.source.select_sql} WHERE {' AND '.join(clauses)} ORDER BY {ordering}"
        return _with_suffix(sql, self.query_suffix), params

    def prepare(self, description: Sequence[Sequence[Any]]) -> None:
        """Find the offset columns in the result."""
        if self.incrementing_column:
            self._incrementing_position = self.column_position(description, self.incrementing_column)
        self._timestamp_positions = [self.column_position(description, c) for c in self.timestamp_columns]

    def record_offset(self, row: Sequence[Any]) -> Mapping[str, Any] | None:
        """The offset after `row`: its incrementing value and/or its (first non-null) timestamp."""
        incrementing = self.offset.incrementing
        timestamp = self.offset.timestamp
        if self._incrementing_position >= 0:
            value = row[self._incrementing_position]
            incrementing = int(value) if value is not None else incrementing
        for position in self._timestamp_positions:
            value = row[position]
            if value is not None:
                timestamp = to_utc_timestamp(value, self.zone)
                break
        self.offset = TimestampIncrementingOffset(timestamp, incrementing)
        return self.offset.to_map()

    def _timestamp_expression(self) -> str:
        quoted = [self.quote(c) for c in self.timestamp_columns]
        return quoted[0] if len(quoted) == 1 else f"COALESCE({', '.join(quoted)})"

    def _db_time(self, instant: datetime.datetime) -> Any:
        """`instant` as the naive time of ``db.timezone`` a timestamp column without zone compares with."""
        return self.dialect.timestamp_parameter(instant.astimezone(self.zone).replace(tzinfo=None))


def _with_suffix(sql: str, suffix: str) -> str:
    return f"{sql} {suffix}" if suffix.strip() else sql
