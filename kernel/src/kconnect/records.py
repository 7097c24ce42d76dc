"""Records as connectors see them: ConnectRecord, SourceRecord, SinkRecord and their headers."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol, TypeVar

from kconnect.data.schema import Schema, SchemaAndValue
from kconnect.frozen_init import fast_init, positional_constructor

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


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceBatch:
    """Records of one source partition, as columns: what `SourceTask.poll_batch` returns.

    kconnect's extension, the source counterpart of `SinkBatch`: a source that reads many records
    per poll (lines of a file, rows of a query) hands over their values in one list instead of a
    `SourceRecord` per record, and one offset for all of them. `values` holds one item per record
    in order; `keys`, `timestamps` and `headers`, when given, one item per record as well (None:
    no key, the producer's timestamp, no headers for every record). The topic, schemas, Kafka
    partition and source partition are the batch's.

    `source_offset` is the offset just after the batch's last record: it is committed once Kafka
    acknowledged every record of the batch, so the batch is the unit of progress (a task restarted
    after a crash resumes at a batch boundary). `record(i)` and `records()` build the
    `SourceRecord`s `poll` would have returned, the offset on the last one only.
    """

    topic: str
    values: Sequence[Any]
    value_schema: Schema | None = None
    keys: Sequence[Any] | None = None
    key_schema: Schema | None = None
    kafka_partition: int | None = None
    timestamps: Sequence[int | None] | None = None
    headers: Sequence[Headers] | None = None
    source_partition: Mapping[str, Any] | None = None
    source_offset: Mapping[str, Any] | None = None

    def __len__(self) -> int:
        return len(self.values)

    def record(self, index: int) -> SourceRecord:
        """The record at `index`; only the last one carries the batch's `source_offset`."""
        index = range(len(self.values))[index]  # a negative index counts from the end
        last = index == len(self.values) - 1
        return SourceRecord(
            topic=self.topic,
            kafka_partition=self.kafka_partition,
            key_schema=self.key_schema,
            key=self.keys[index] if self.keys is not None else None,
            value_schema=self.value_schema,
            value=self.values[index],
            timestamp=self.timestamps[index] if self.timestamps is not None else None,
            headers=self.headers[index].copy() if self.headers is not None else Headers(),
            source_partition=self.source_partition,
            source_offset=self.source_offset if last else None,
        )

    def records(self) -> list[SourceRecord]:
        """Every record of the batch, in order."""
        return [self.record(i) for i in range(len(self.values))]


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


#: A consumed message's timestamp type as the wire gives it (0, 1; anything else: none).
TIMESTAMP_TYPES_BY_CODE: Mapping[int, TimestampType] = {
    0: TimestampType.CREATE_TIME,
    1: TimestampType.LOG_APPEND_TIME,
}


class ConsumedMessage(Protocol):
    """What a `SinkBatch` reads of each message the sink's consumer fetched."""

    topic: str
    partition: int
    offset: int
    timestamp: int | None
    timestamp_type: int


_sink_record = positional_constructor(SinkRecord)


def consumed_sink_record(
    message: ConsumedMessage, key: SchemaAndValue, value: SchemaAndValue, headers: Headers
) -> SinkRecord:
    """The record a sink task receives for a consumed message, from its converted parts."""
    topic, partition, offset = message.topic, message.partition, message.offset
    return _sink_record(
        topic,
        partition,
        key.schema,
        key.value,
        value.schema,
        value.value,
        message.timestamp,
        headers,
        offset,
        TIMESTAMP_TYPES_BY_CODE.get(message.timestamp_type, TimestampType.NO_TIMESTAMP_TYPE),
        topic,
        partition,
        offset,
    )


class SinkBatch:
    """One fetch's records for `SinkTask.put_batch`: columns instead of a `SinkRecord` per record.

    The sink loop builds one when the task overrides `put_batch` and no transformation is
    configured. Each record's key and value went through the converters (and its headers, if it
    had any) exactly as for a `SinkRecord`, and a record the converters failed on was handled by
    the ``errors.*`` keys first, so the batch holds only records to deliver; what it keeps per
    record is the consumed message and the converters' answers. Each column (`values`, `keys`,
    `kafka_offsets`, ...) is a new list when read, one item per record in fetch order (each partition's
    records in offset order). `record(i)` and `records()` build the `SinkRecord`s `put` would have
    received, for a task that needs one: to report an errant record, say.
    """

    __slots__ = ("_headers", "_keys", "_messages", "_values")

    def __init__(
        self,
        messages: Sequence[ConsumedMessage],
        keys: Sequence[SchemaAndValue],
        values: Sequence[SchemaAndValue],
        headers: Mapping[int, Headers] | None = None,
    ) -> None:
        """`keys` and `values` as the converters returned them for `messages`, item by item;
        `headers` the converted headers of the records that have any, by index."""
        self._messages = messages
        self._keys = keys
        self._values = values
        self._headers: Mapping[int, Headers] = headers or {}

    def __len__(self) -> int:
        return len(self._messages)

    def __bool__(self) -> bool:
        return bool(self._messages)

    @property
    def values(self) -> list[Any]:
        """Each record's value."""
        return [converted.value for converted in self._values]

    @property
    def value_schemas(self) -> list[Schema | None]:
        """Each record's value schema."""
        return [converted.schema for converted in self._values]

    @property
    def keys(self) -> list[Any]:
        """Each record's key."""
        return [converted.value for converted in self._keys]

    @property
    def key_schemas(self) -> list[Schema | None]:
        """Each record's key schema."""
        return [converted.schema for converted in self._keys]

    @property
    def topics(self) -> list[str]:
        """The topic each record was read from."""
        return [message.topic for message in self._messages]

    @property
    def kafka_partitions(self) -> list[int]:
        """The partition each record was read from."""
        return [message.partition for message in self._messages]

    @property
    def kafka_offsets(self) -> list[int]:
        """Each record's offset."""
        return [message.offset for message in self._messages]

    @property
    def timestamps(self) -> list[int | None]:
        """Each record's timestamp (milliseconds since the epoch)."""
        return [message.timestamp for message in self._messages]

    @property
    def headers(self) -> list[Headers]:
        """Each record's headers (a new, empty `Headers` for a record without any)."""
        found = self._headers
        return [found[i].copy() if i in found else Headers() for i in range(len(self._messages))]

    def record(self, index: int) -> SinkRecord:
        """The record at `index` as `put` would have received it."""
        headers = self._headers.get(index)
        return consumed_sink_record(
            self._messages[index],
            self._keys[index],
            self._values[index],
            headers.copy() if headers is not None else Headers(),
        )

    def records(self) -> list[SinkRecord]:
        """Every record as `put` would have received them."""
        return [self.record(i) for i in range(len(self._messages))]

    def without(self, partitions: Collection[tuple[str, int]]) -> SinkBatch:
        """The records of every other partition (``TopicPartition``s are such pairs)."""
        kept = [i for i, m in enumerate(self._messages) if (m.topic, m.partition) not in partitions]
        headers = {new: self._headers[old] for new, old in enumerate(kept) if old in self._headers}
        return SinkBatch(
            [self._messages[i] for i in kept],
            [self._keys[i] for i in kept],
            [self._values[i] for i in kept],
            headers,
        )

    def __repr__(self) -> str:
        return f"SinkBatch({len(self._messages)} records)"
