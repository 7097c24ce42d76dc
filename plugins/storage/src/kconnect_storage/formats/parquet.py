"""Parquet files by pyarrow: records buffered and converted a column at a time.

Confluent's ParquetFormat goes through Avro (``AvroParquetWriter``), so int8 and int16 become
INT32 there; here every Connect type keeps its Arrow type (`kconnect_storage.formats.arrow`).
The writer keeps up to `CHUNK_ROWS` values, then turns them into one record batch, written as a
row group; `close` writes the rest and the footer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, BinaryIO

import pyarrow as pa
import pyarrow.parquet as pq
from kconnect import SinkRecord
from kconnect.data.schema import Schema
from kconnect.data.struct import Struct
from kconnect.errors import DataError

from kconnect_storage.formats.arrow import arrow_schema, struct_columns
from kconnect_storage.formats.codecs import ParquetCodec
from kconnect_storage.formats.records import no_schema_error, record_error, schemaless_error

FORMAT_NAME = "Parquet"
#: Rows converted and written per row group: large enough for pyarrow's per-call cost to vanish,
#: small enough to bound the memory a file's buffer takes.
CHUNK_ROWS = 32_768


class _KeepOpen:
    """The stream as pyarrow sees it: closing the Parquet writer must leave the staged file open."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self.closed = False

    def write(self, data: Any) -> int:
        return self._stream.write(data)

    def tell(self) -> int:
        return self._stream.tell()

    def flush(self) -> None:
        self._stream.flush()

    def close(self) -> None:
        self.closed = True


class ParquetRecordWriter:
    """Writes records of one STRUCT value schema into a Parquet file."""

    def __init__(self, stream: BinaryIO, schema: Schema, codec: ParquetCodec) -> None:
        self._schema = schema
        self._arrow_schema = arrow_schema(schema)
        self._columns = struct_columns(schema)
        self._stream = _KeepOpen(stream)
        self._writer = pq.ParquetWriter(self._stream, self._arrow_schema, compression=codec.compression)
        self._values: list[Struct] = []
        self._records: list[SinkRecord] = []

    def write(self, records: Sequence[SinkRecord]) -> None:
        """Buffer the records' values; a full chunk is converted and written."""
        schema = self._schema
        values = self._values
        for record in records:
            value = record.value
            if type(value) is not Struct or (value.schema is not schema and value.schema != schema):
                raise self._bad_value(record)
            values.append(value)
        self._records.extend(records)
        if len(values) >= CHUNK_ROWS:
            self._write_chunk()

    def _bad_value(self, record: SinkRecord) -> DataError:
        if record.value_schema is None:
            return schemaless_error(record, FORMAT_NAME)
        if record.value is None:
            return record_error(record, FORMAT_NAME, "a null value (tombstone) is not a row")
        return record_error(
            record,
            FORMAT_NAME,
            f"the value is not a Struct of the file's schema: {type(record.value).__name__}",
        )

    def _write_chunk(self) -> None:
        values, records = self._values, self._records
        self._values, self._records = [], []
        for start in range(0, len(values), CHUNK_ROWS):
            chunk = values[start : start + CHUNK_ROWS]
            try:
                batch = pa.RecordBatch.from_arrays(self._columns(chunk), schema=self._arrow_schema)
            except (pa.ArrowException, DataError, TypeError, ValueError) as e:
                raise self._conversion_error(records[start : start + CHUNK_ROWS], e) from e
            self._writer.write_batch(batch)

    def _conversion_error(self, records: Sequence[SinkRecord], error: Exception) -> DataError:
        """The error naming the first record of a chunk that does not convert on its own."""
        for record in records:
            try:
                pa.RecordBatch.from_arrays(self._columns([record.value]), schema=self._arrow_schema)
            except (pa.ArrowException, DataError, TypeError, ValueError) as e:
                return record_error(record, FORMAT_NAME, str(e))
        return DataError(f"Cannot write {len(records)} records as {FORMAT_NAME}: {error}")

    def close(self) -> None:
        """Write the buffered rows and the footer; the stream stays open."""
        if self._values:
            self._write_chunk()
        self._writer.close()


class ParquetFormat:
    """Parquet files (``.parquet``; on S3 ``.<codec>.parquet`` as Confluent's S3 sink names them)."""

    def __init__(self, codec: ParquetCodec, *, codec_in_extension: bool = False) -> None:
        self._codec = codec
        self._extension = (codec.extension if codec_in_extension else "") + ".parquet"

    @property
    def extension(self) -> str:
        """``.parquet``, or with the codec's extension first (``.snappy.parquet``)."""
        return self._extension

    def writer(self, stream: BinaryIO, schema: Schema | None) -> ParquetRecordWriter:
        """A writer of one file; raises `DataError` for schemaless records (None), which it cannot hold."""
        if schema is None:
            raise no_schema_error(FORMAT_NAME)
        return ParquetRecordWriter(stream, schema, self._codec)
