"""Records as connectors see them: ConnectRecord, SourceRecord, SinkRecord and their headers."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, TypeVar

from kconnect.data.schema import Schema
from kconnect.frozen_init import fast_init

T = TypeVar("T")


@fast_init
@dataclass(frozen=True, slots=True)
class Header:
    """One record header: a key, and a value with an optional schema."""

    key: str
    value: Any
    schema: Schema | None = None


_NO_HEADERS: tuple[Header, ...] = ()


class Headers:
    """An ordered, multi-valued list of headers (Kafka's ConnectHeaders).

    Duplicate keys are allowed, as in Kafka; `last(key)` gives the newest value.
    """

    __slots__ = ("_items",)

    def __init__(self, items: Iterable[Header] = _NO_HEADERS) -> None:
        # Every record builds one, mostly empty: a literal is cheaper than calling list().
        self._items: list[Header] = [] if items is _NO_HEADERS else list(items)

    def add(self, key: str, value: Any, schema: Schema | None = None) -> Headers:
        """Append a header and return self, so calls chain."""
        self._items.append(Header(key, value, schema))
        return self

    def last(self, key: str) -> Header | None:
        """The newest header with this key, or None."""
        for header in reversed(self._items):
            if header.key == key:
                return header
        return None

    def all(self, key: str) -> list[Header]:
        """Every header with this key, oldest first."""
        return [h for h in self._items if h.key == key]

    def remove(self, key: str) -> Headers:
        """Drop every header with this key and return self."""
        self._items = [h for h in self._items if h.key != key]
        return self

    def copy(self) -> Headers:
        """A shallow copy that can be changed independently."""
        return Headers(self._items)

    def __iter__(self) -> Iterator[Header]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Headers) and self._items == other._items

    def __repr__(self) -> str:
        return f"Headers({self._items!r})"


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ConnectRecord:
    """What every record has: topic, partition, key and value with schemas, timestamp and headers."""

    topic: str
    kafka_partition: int | None = None
    key_schema: Schema | None = None
    key: Any = None
    value_schema: Schema | None = None
    value: Any = None
    timestamp: int | None = None
    headers: Headers = field(default_factory=Headers)

    def new_record(self, **changes: Any) -> Any:
        """A copy with the given fields replaced (what a transformation returns)."""
        return dataclasses.replace(self, **changes)


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class SourceRecord(ConnectRecord):
    """A record a source task produced, with the source partition and offset it came from.

    `source_partition` and `source_offset` are small JSON-able dicts (Kafka: Map<String, ?>);
    the framework commits the offset once the broker has acknowledged the record.
    """

    source_partition: Mapping[str, Any] | None = None
    source_offset: Mapping[str, Any] | None = None


class TimestampType(str, Enum):
    """Where a consumed record's timestamp came from."""

    NO_TIMESTAMP_TYPE = "NoTimestampType"
    CREATE_TIME = "CreateTime"
    LOG_APPEND_TIME = "LogAppendTime"


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class SinkRecord(ConnectRecord):
    """A record a sink task receives, with the Kafka offset it was read at."""

    kafka_offset: int = 0
    timestamp_type: TimestampType = TimestampType.NO_TIMESTAMP_TYPE
    original_topic: str | None = None
    original_kafka_partition: int | None = None
    original_kafka_offset: int | None = None
