"""What every format checks of a record before writing it, and how its errors name the record."""

from __future__ import annotations

from collections.abc import Sequence

from kconnect import SinkRecord
from kconnect.errors import DataError


def where(record: SinkRecord) -> str:
    """The record's coordinates for a message: ``topic orders partition 0 offset 42``."""
    return f"topic {record.topic} partition {record.kafka_partition} offset {record.kafka_offset}"


def schemaless_error(record: SinkRecord, format_name: str) -> DataError:
    """The error for a record without a value schema in a format that needs one (Parquet, Avro)."""
    return DataError(
        f"{format_name} files need a value schema, but the record at {where(record)} has none "
        "(use a converter that gives schemas, e.g. AvroConverter or JsonConverter with schemas.enable=true)"
    )


def record_error(record: SinkRecord, format_name: str, problem: str) -> DataError:
    """An error writing one record: ``Cannot write the record at <where> as <format>: <problem>``."""
    return DataError(f"Cannot write the record at {where(record)} as {format_name}: {problem}")


class SchemalessWriter:
    """The writer a schema-needing format gives for schemaless records: it refuses the first one
    with a `DataError` naming its topic, partition and offset, and writes nothing."""

    def __init__(self, format_name: str) -> None:
        self._format_name = format_name

    def write(self, records: Sequence[SinkRecord]) -> None:
        """Raise for the first record."""
        if records:
            raise schemaless_error(records[0], self._format_name)

    def close(self) -> None:
        """Nothing was written."""
