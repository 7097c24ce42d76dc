"""The formats that write one record after another, each followed by a separator.

* JSON (Confluent's JsonFormat, ``.json``): each value as Kafka's JsonConverter writes it with
  ``schemas.enable=false`` (no schema envelope), then a newline; schemaless values too.
* ByteArray (Confluent's S3 ByteArrayFormat, ``format.bytearray.extension``, ``.bin``): each value's
  bytes as they are, then ``format.bytearray.separator``.
* String (Confluent's HDFS StringFormat, ``.txt``): each value, a string, in UTF-8, then a newline.

Records are joined in memory and written with one `write` per batch. On S3, JSON and ByteArray
files may be gzip-compressed as a whole (``s3.compression.type=gzip``, ``.json.gz``), as Confluent's
S3 sink does for the formats without compression of their own.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from typing import Any, BinaryIO

from kconnect import SinkRecord
from kconnect.data.schema import Schema
from kconnect.errors import DataError
from kconnect_converters.json_converter import JsonConverter

from kconnect_storage.formats.records import record_error

Encode = Callable[[SinkRecord], bytes]


#: ``s3.compression.type`` values (Confluent's S3 ``CompressionType``) and their file extension.
COMPRESSION_EXTENSIONS = {"none": "", "gzip": ".gz"}
GZIP_WBITS = 16 + zlib.MAX_WBITS  # zlib writes a gzip member with this window setting


class LinesWriter:
    """Writes each record's encoding followed by a separator, gzip-compressed when a level is given
    (-1: zlib's default, 0-9)."""

    def __init__(
        self, stream: BinaryIO, encode: Encode, separator: bytes, gzip_level: int | None = None
    ) -> None:
        self._stream = stream
        self._encode = encode
        self._separator = separator
        self._gzip = None if gzip_level is None else zlib.compressobj(gzip_level, zlib.DEFLATED, GZIP_WBITS)

    def write(self, records: Sequence[SinkRecord]) -> None:
        """Encode every record, then write them at once (nothing is written if one fails)."""
        if not records:
            return
        encode = self._encode
        separator = self._separator
        data = separator.join([encode(r) for r in records]) + separator
        if self._gzip is not None:
            data = self._gzip.compress(data)
        self._stream.write(data)

    def close(self) -> None:
        """Write the end of the gzip stream, if any; the stream stays open."""
        if self._gzip is not None:
            self._stream.write(self._gzip.flush())
            self._gzip = None


class JsonLinesFormat:
    """JSON lines: each value as JsonConverter writes it without schemas (``json.decimal.format``)."""

    FORMAT_NAME = "JSON"

    def __init__(self, decimal_format: str = "BASE64", gzip_level: int | None = None) -> None:
        self._decimal_format = decimal_format
        self._gzip_level = gzip_level

    @property
    def extension(self) -> str:
        """``.json`` (``.json.gz`` when gzip-compressed)."""
        return ".json" if self._gzip_level is None else ".json.gz"

    def writer(self, stream: BinaryIO, schema: Schema | None) -> LinesWriter:
        """A writer of one file of values of `schema` (None: schemaless values)."""
        converter = JsonConverter()
        converter.configure({"schemas.enable": False, "decimal.format": self._decimal_format}, is_key=False)

        def encode(record: SinkRecord) -> bytes:
            try:
                data = converter.from_connect_data(record.topic, record.value_schema, record.value)
            except DataError as e:
                raise record_error(record, self.FORMAT_NAME, str(e)) from e
            return b"null" if data is None else data

        return LinesWriter(stream, encode, b"\n", self._gzip_level)


def _value_bytes(record: SinkRecord, format_name: str) -> bytes:
    value: Any = record.value
    if isinstance(value, bytes):
        return value
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    got = "null (a tombstone)" if value is None else type(value).__name__
    raise record_error(record, format_name, f"the value must be bytes, got {got}")


class ByteArrayFormat:
    """Raw value bytes, each followed by the separator (Confluent's S3 ByteArrayFormat)."""

    FORMAT_NAME = "ByteArray"

    def __init__(
        self, extension: str = ".bin", separator: bytes = b"\n", gzip_level: int | None = None
    ) -> None:
        self._extension = extension + ("" if gzip_level is None else ".gz")
        self._separator = separator
        self._gzip_level = gzip_level

    @property
    def extension(self) -> str:
        """``format.bytearray.extension`` (``.bin``), ``.gz`` added when gzip-compressed."""
        return self._extension

    def writer(self, stream: BinaryIO, schema: Schema | None) -> LinesWriter:
        """A writer of one file; a value that is not bytes is a `DataError` naming its record."""
        return LinesWriter(
            stream, lambda r: _value_bytes(r, self.FORMAT_NAME), self._separator, self._gzip_level
        )


def _value_text(record: SinkRecord) -> bytes:
    value: Any = record.value
    if not isinstance(value, str):
        got = "null (a tombstone)" if value is None else type(value).__name__
        raise record_error(record, StringFormat.FORMAT_NAME, f"the value must be a string, got {got}")
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise record_error(record, StringFormat.FORMAT_NAME, str(e)) from e


class StringFormat:
    """Text lines: each value, a string, then a newline (Confluent's HDFS StringFormat)."""

    FORMAT_NAME = "String"

    @property
    def extension(self) -> str:
        """``.txt``."""
        return ".txt"

    def writer(self, stream: BinaryIO, schema: Schema | None) -> LinesWriter:
        """A writer of one file; a value that is not a string is a `DataError` naming its record."""
        return LinesWriter(stream, _value_text, b"\n")
