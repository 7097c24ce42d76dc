"""How records become a file: the `RecordFormat` protocol and its implementations.

Parquet (pyarrow), Avro container files (fastavro, schemas by Confluent's AvroData mapping), JSON
lines and raw bytes. The record's value schema becomes the file's schema; a file holds records of
one value schema only (the sink rotates the file when the schema changes).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import BinaryIO, Protocol

from kconnect import SinkRecord
from kconnect.data.schema import Schema


class RecordWriter(Protocol):
    """Writes the records of one file into a binary stream."""

    def write(self, records: Sequence[SinkRecord]) -> None:
        """Add records (all of the value schema this writer was made for)."""
        ...

    def close(self) -> None:
        """Write everything still buffered and the file's footer; the stream stays open."""
        ...


class RecordFormat(Protocol):
    """One file format, configured by the connector's keys."""

    @property
    def extension(self) -> str:
        """The file name extension, with its dot: ``.parquet``, ``.avro``, ``.json``, ``.bin``."""
        ...

    def writer(self, stream: BinaryIO, schema: Schema | None) -> RecordWriter:
        """A writer of one file into `stream` for records with this value schema (None: schemaless).

        Raises `kconnect.errors.DataError` naming the problem when the format cannot hold such
        records (Parquet and Avro need a schema)."""
        ...
