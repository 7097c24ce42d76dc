"""Avro object container files, as Confluent's AvroFormat writes them.

The file's schema is the one Confluent's ``AvroData.fromConnectSchema`` gives for the value schema
(`AvroMapping`, with the ``connect.*`` properties), its text in the header's ``avro.schema``.
Values are encoded by the schema registry plugin's compiled Avro writer (`payload_writer`), or,
for the rare pair it leaves out, by `values.compile_encoder` and fastavro's schemaless writer. The
container itself (header, blocks of about `BLOCK_BYTES`, sync markers) is written here, so every
``avro.codec`` works with the standard library and pyarrow's codecs, without fastavro's optional
codec packages.
"""

from __future__ import annotations

import binascii
import bz2
import io
import lzma
import os
import zlib
from collections.abc import Callable, Sequence
from typing import Any, BinaryIO

import fastavro
import pyarrow as pa
from kconnect import SinkRecord
from kconnect.data.schema import Schema
from kconnect.errors import DataError
from kconnect_schema_registry.avro.binary import write_long
from kconnect_schema_registry.avro.binary_writer import payload_writer
from kconnect_schema_registry.avro.config import AvroDataSettings
from kconnect_schema_registry.avro.mapping import AvroMapping
from kconnect_schema_registry.avro.schema import AvroSchema
from kconnect_schema_registry.avro.values import compile_encoder

from kconnect_storage.formats.records import no_schema_error, record_error

FORMAT_NAME = "Avro"
MAGIC = b"Obj\x01"
SYNC_SIZE = 16
#: Uncompressed bytes per block: Avro Java's default sync interval.
BLOCK_BYTES = 64_000

Compress = Callable[[bytes], bytes]


def _deflate(data: bytes) -> bytes:
    compressor = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15)  # raw, as Avro's
    return compressor.compress(data) + compressor.flush()


def _snappy(data: bytes) -> bytes:
    # Avro's snappy blocks end with the CRC32 of the uncompressed data, big-endian.
    compressed: bytes = pa.Codec("snappy").compress(data, asbytes=True)
    return compressed + (binascii.crc32(data) & 0xFFFFFFFF).to_bytes(4, "big")


def _zstandard(data: bytes) -> bytes:
    compressed: bytes = pa.Codec("zstd").compress(data, asbytes=True)
    return compressed


#: ``avro.codec`` values (Avro's ``CodecFactory`` names) and their block compression.
AVRO_CODECS: dict[str, Compress] = {  # one entry per codecs.AVRO_CODEC_NAMES
    "null": bytes,
    "deflate": _deflate,
    "snappy": _snappy,
    "bzip2": bz2.compress,
    "xz": lzma.compress,
    "zstandard": _zstandard,
}


def _encoder(mapping: AvroMapping, schema: Schema, avro: AvroSchema) -> Callable[[Any], bytes]:
    """The function from a Connect value to its Avro binary: compiled, else fastavro's."""
    compiled = payload_writer(mapping, schema, avro)
    if compiled is not None:
        return compiled
    datum = compile_encoder(mapping, schema, avro)
    parsed = fastavro.parse_schema(avro.fastavro_form())

    def encode(value: Any) -> bytes:
        out = io.BytesIO()
        fastavro.schemaless_writer(out, parsed, datum(value))
        return out.getvalue()

    return encode


class AvroRecordWriter:
    """Writes records of one value schema into an Avro container file."""

    def __init__(
        self, stream: BinaryIO, schema: Schema, codec: str, mapping: AvroMapping | None = None
    ) -> None:
        mapping = mapping or AvroMapping(AvroDataSettings())
        avro = mapping.from_connect_schema(schema)
        self._encode = _encoder(mapping, schema, avro)
        self._compress = AVRO_CODECS[codec]
        self._stream = stream
        self._sync = os.urandom(SYNC_SIZE)
        self._block: list[bytes] = []
        self._block_size = 0
        header = bytearray(MAGIC)
        metadata = {"avro.schema": avro.text().encode("utf-8"), "avro.codec": codec.encode("ascii")}
        write_long(header, len(metadata))
        for key, value in metadata.items():
            write_long(header, len(key))
            header += key.encode("ascii")
            write_long(header, len(value))
            header += value
        write_long(header, 0)
        header += self._sync
        stream.write(bytes(header))

    def write(self, records: Sequence[SinkRecord]) -> None:
        """Encode the records' values; a full block is compressed and written."""
        encode = self._encode
        block = self._block
        size = self._block_size
        for record in records:
            try:
                data = encode(record.value)
            except (DataError, TypeError, ValueError, AttributeError, KeyError, OverflowError) as e:
                self._block_size = size
                raise self._error(record, e) from e
            block.append(data)
            size += len(data)
            if size >= BLOCK_BYTES:
                self._block_size = size
                self._write_block()
                block = self._block
                size = 0
        self._block_size = size

    def _error(self, record: SinkRecord, error: Exception) -> DataError:
        if record.value is None:
            return record_error(record, FORMAT_NAME, f"a null value (tombstone) is not allowed here: {error}")
        return record_error(record, FORMAT_NAME, str(error))

    def _write_block(self) -> None:
        data = self._compress(b"".join(self._block))
        head = bytearray()
        write_long(head, len(self._block))
        write_long(head, len(data))
        self._stream.write(bytes(head) + data + self._sync)
        self._block = []
        self._block_size = 0

    def close(self) -> None:
        """Write the last block; the stream stays open."""
        if self._block:
            self._write_block()


class AvroFileFormat:
    """Avro container files (``.avro``) with the ``avro.codec`` compression; `settings` are the
    AvroData options (``connect.meta.data``, ``enhanced.avro.schema.support``)."""

    def __init__(self, codec: str, settings: AvroDataSettings | None = None) -> None:
        if codec not in AVRO_CODECS:
            raise ValueError(f"Unknown avro.codec {codec!r}")
        self._codec = codec
        self._mapping = AvroMapping(settings or AvroDataSettings())

    @property
    def extension(self) -> str:
        """``.avro``."""
        return ".avro"

    def writer(self, stream: BinaryIO, schema: Schema | None) -> AvroRecordWriter:
        """A writer of one file; raises `DataError` for schemaless records (None), which it cannot hold."""
        if schema is None:
            raise no_schema_error(FORMAT_NAME)
        return AvroRecordWriter(stream, schema, self._codec, self._mapping)
