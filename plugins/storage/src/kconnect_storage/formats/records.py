"""What every format checks of a record before writing it, and how its errors name the record."""

from __future__ import annotations

from kconnect import SinkRecord
from kconnect.errors import DataError


def where(record: SinkRecord) -> str:
    """The record's coordinates for a message: ``topic orders partition 0 offset 42``."""
    return f"topic {record.topic} partition {record.kafka_partition} offset {record.kafka_offset}"


def no_schema_error(format_name: str) -> DataError:
    """The error `RecordFormat.writer` raises for schemaless records in a format that needs a schema
    (the engine rejects the record, naming it)."""
    return DataError(
        f"{format_name} files need a value schema, but the record has none "
        "(use a converter that gives schemas, e.g. AvroConverter or JsonConverter with schemas.enable=true)"
    )


def schemaless_error(record: SinkRecord, format_name: str) -> DataError:
    """The error for a record without a value schema in a format that needs one (Parquet, Avro)."""
    return DataError(
        f"{format_name} files need a value schema, but the record at {where(record)} has none "
        "(use a converter that gives schemas, e.g. AvroConverter or JsonConverter with schemas.enable=true)"
    )


def record_error(record: SinkRecord, format_name: str, problem: str) -> DataError:
    """An error writing one record: ``Cannot write the record at <where> as <format>: <problem>``."""
    return DataError(f"Cannot write the record at {where(record)} as {format_name}: {problem}")
