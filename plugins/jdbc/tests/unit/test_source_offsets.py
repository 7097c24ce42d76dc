"""Source partitions and offsets in Confluent's shapes."""

from __future__ import annotations

import datetime

from kconnect_jdbc.source.offsets import (
    TimestampIncrementingOffset,
    query_partition,
    table_partition,
    to_millis_and_nanos,
)

UTC = datetime.timezone.utc


def test_partitions() -> None:
    assert table_partition("public.orders") == {"table": "public.orders", "protocol": "1"}
    assert query_partition() == {"query": "query"}


def test_offset_maps_round_trip() -> None:
    instant = datetime.datetime(2024, 5, 1, 12, 0, 0, 250001, tzinfo=UTC)
    offset = TimestampIncrementingOffset(instant, 42)
    assert offset.to_map() == {"incrementing": 42, "timestamp": 1714564800250, "timestamp_nanos": 250001000}
    assert TimestampIncrementingOffset.from_map(offset.to_map()) == offset


def test_missing_offsets_start_at_minus_one_and_the_epoch() -> None:
    empty = TimestampIncrementingOffset.from_map(None)
    assert empty.to_map() == {}
    assert empty.incrementing_or_default == -1
    assert empty.timestamp_or_epoch == datetime.datetime(1970, 1, 1, tzinfo=UTC)
    assert TimestampIncrementingOffset.from_map({"incrementing": 7}).to_map() == {"incrementing": 7}


def test_a_timestamp_without_nanos_is_read_from_its_millis() -> None:
    offset = TimestampIncrementingOffset.from_map({"timestamp": 1500})
    assert offset.timestamp == datetime.datetime(1970, 1, 1, 0, 0, 1, 500000, tzinfo=UTC)


def test_times_before_the_epoch() -> None:
    assert to_millis_and_nanos(datetime.datetime(1969, 12, 31, 23, 59, 59, 500000, tzinfo=UTC)) == (
        -500,
        500000000,
    )
