"""Source partitions and offsets in the shapes Confluent's JDBC source writes (pure).

Partition of a table: ``{"protocol": "1", "table": "<qualified name>"}`` (PostgreSQL
``public.orders``, MySQL ``shop.orders``, SQLite ``orders``); of a custom query: ``{"query":
"query"}``. Offset: ``{"incrementing": N}``, ``{"timestamp": epoch_ms, "timestamp_nanos":
nanos_of_second}`` or both; bulk mode writes none. KIP-875 recipes written for Confluent's
connector (PATCH an ``incrementing`` value to replay, DELETE to re-snapshot) therefore work here.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

TABLE_NAME_KEY = "table"
QUERY_NAME_KEY = "query"
QUERY_NAME_VALUE = "query"
PROTOCOL_KEY = "protocol"
PROTOCOL_VERSION_ONE = "1"
INCREMENTING_FIELD = "incrementing"
TIMESTAMP_FIELD = "timestamp"
TIMESTAMP_NANOS_FIELD = "timestamp_nanos"

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def table_partition(qualified_name: str) -> dict[str, str]:
    """The source partition of a table (Confluent's offset protocol 1)."""
    return {TABLE_NAME_KEY: qualified_name, PROTOCOL_KEY: PROTOCOL_VERSION_ONE}


def legacy_table_partition(table_name: str) -> dict[str, str]:
    """The protocol-0 partition (unqualified name), still read when no protocol-1 offset exists."""
    return {TABLE_NAME_KEY: table_name}


def query_partition() -> dict[str, str]:
    """The source partition of the custom query."""
    return {QUERY_NAME_KEY: QUERY_NAME_VALUE}


@dataclass(frozen=True)
class TimestampIncrementingOffset:
    """Where a timestamp/incrementing querier is: the last row's timestamp and/or incrementing value."""

    timestamp: datetime.datetime | None = None
    incrementing: int | None = None

    @property
    def incrementing_or_default(self) -> int:
        """The last incrementing value, -1 before the first row (Confluent's starting point)."""
        return -1 if self.incrementing is None else self.incrementing

    @property
    def timestamp_or_epoch(self) -> datetime.datetime:
        """The last timestamp, the epoch before the first row."""
        return _EPOCH if self.timestamp is None else self.timestamp

    def to_map(self) -> dict[str, Any]:
        """The offset map committed with each record."""
        out: dict[str, Any] = {}
        if self.incrementing is not None:
            out[INCREMENTING_FIELD] = self.incrementing
        if self.timestamp is not None:
            millis, nanos = to_millis_and_nanos(self.timestamp)
            out[TIMESTAMP_FIELD] = millis
            out[TIMESTAMP_NANOS_FIELD] = nanos
        return out

    @classmethod
    def from_map(cls, offset: Mapping[str, Any] | None) -> TimestampIncrementingOffset:
        """Read a committed offset (None or empty: the start)."""
        if not offset:
            return cls()
        incrementing = offset.get(INCREMENTING_FIELD)
        millis = offset.get(TIMESTAMP_FIELD)
        timestamp = None
        if millis is not None:
            nanos = offset.get(TIMESTAMP_NANOS_FIELD)
            timestamp = from_millis_and_nanos(int(millis), None if nanos is None else int(nanos))
        return cls(timestamp, None if incrementing is None else int(incrementing))


def to_millis_and_nanos(value: datetime.datetime) -> tuple[int, int]:
    """Epoch milliseconds and nanoseconds within the second, as ``java.sql.Timestamp`` holds them."""
    delta = value.astimezone(datetime.timezone.utc) - _EPOCH
    micros = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    return micros // 1000, (micros % 1_000_000) * 1000


def from_millis_and_nanos(millis: int, nanos: int | None) -> datetime.datetime:
    """The instant of `millis`, refined by `nanos` (nanoseconds within the second) when given."""
    if nanos is None:
        return _EPOCH + datetime.timedelta(milliseconds=millis)
    seconds = millis // 1000
    return _EPOCH + datetime.timedelta(seconds=seconds, microseconds=nanos // 1000)
