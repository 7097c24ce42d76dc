"""The Avro format: container files whose schema is Confluent's AvroData schema of the value
schema, every value read back by fastavro as written, each avro.codec applied, and the errors."""

from __future__ import annotations

import binascii
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import fastavro
import pyarrow as pa
import pytest
from kconnect import SinkRecord, Struct
from kconnect.data.schema import Schema, SchemaBuilder
from kconnect.errors import DataError
from kconnect_schema_registry.avro.config import AvroDataSettings
from kconnect_schema_registry.avro.mapping import AvroMapping
from kconnect_storage.formats import avro
from kconnect_storage.formats.avro import AvroFileFormat

from plugins.storage.tests.unit.format_samples import EVERY_TYPE, expected, record

_HEADER = fastavro.parse_schema(
    {
        "type": "record",
        "name": "org.apache.avro.file.Header",
        "fields": [
            {"name": "magic", "type": {"type": "fixed", "name": "Magic", "size": 4}},
            {"name": "meta", "type": {"type": "map", "values": "bytes"}},
            {"name": "sync", "type": {"type": "fixed", "name": "Sync", "size": 16}},
        ],
    }
)


def write(records: list[SinkRecord], codec: str = "null", schema: Schema | None = None) -> bytes:
    out = io.BytesIO()
    writer = AvroFileFormat(codec).writer(out, records[0].value_schema if schema is None else schema)
    writer.write(records)
    writer.close()
    return out.getvalue()


def read(data: bytes) -> list[Any]:
    return list(fastavro.reader(io.BytesIO(data)))


def header(data: bytes) -> dict[str, Any]:
    parsed: dict[str, Any] = fastavro.schemaless_reader(io.BytesIO(data), _HEADER, None)
    return parsed


def _unsnappy(block: bytes) -> bytes:
    data, crc = block[:-4], block[-4:]
    raw: bytes = pa.Codec("snappy").decompress(data, decompressed_size=_snappy_length(data), asbytes=True)
    assert (binascii.crc32(raw) & 0xFFFFFFFF).to_bytes(4, "big") == crc
    return raw


def _snappy_length(data: bytes) -> int:
    # A raw snappy block starts with the uncompressed length as a varint.
    length, shift = 0, 0
    for byte in data:
        length |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return length
    raise AssertionError("no snappy length")


def as_null_codec(data: bytes, decompress: Callable[[bytes], bytes]) -> bytes:
    """The same file with its blocks decompressed and ``avro.codec`` null, for fastavro to read
    (fastavro reads snappy and zstandard only with packages kconnect does not need)."""
    stream = io.BytesIO(data)
    head = fastavro.schemaless_reader(stream, _HEADER, None)
    out = io.BytesIO()
    meta = dict(head["meta"], **{"avro.codec": b"null"})
    fastavro.schemaless_writer(out, _HEADER, {"magic": head["magic"], "meta": meta, "sync": head["sync"]})
    while stream.tell() < len(data):
        count = fastavro.schemaless_reader(stream, "long", None)
        size = fastavro.schemaless_reader(stream, "long", None)
        raw = decompress(stream.read(size))
        assert stream.read(16) == head["sync"]
        fastavro.schemaless_writer(out, "long", count)
        fastavro.schemaless_writer(out, "long", len(raw))
        out.write(raw + head["sync"])
    return out.getvalue()


def test_the_file_schema_is_confluents_avrodata_schema_with_connect_metadata() -> None:
    data = write([record(0)])

    text = header(data)["meta"]["avro.schema"].decode()
    assert text == AvroMapping(AvroDataSettings()).from_connect_schema(EVERY_TYPE).text()
    fields = {f["name"]: f["type"] for f in json.loads(text)["fields"]}
    assert (json.loads(text)["namespace"], json.loads(text)["name"]) == ("com.example", "EveryType")
    assert fields["i8"] == {"type": "int", "connect.type": "int8"}
    assert fields["day"]["logicalType"] == "date"
    assert fields["ts"]["logicalType"] == "timestamp-millis"
    assert fields["amount"]["logicalType"] == "decimal"
    assert fields["amount"]["precision"] == 10


@pytest.mark.parametrize("codec", ["null", "deflate", "bzip2", "xz"])
def test_every_type_reads_back_as_written_with_each_codec_fastavro_reads(codec: str) -> None:
    data = write([record(i) for i in range(12)], codec)

    reader = fastavro.reader(io.BytesIO(data))
    assert reader.codec == codec
    assert list(reader) == [expected(i) for i in range(12)]


def test_snappy_blocks_are_raw_snappy_with_the_crc_of_the_data() -> None:
    data = write([record(i) for i in range(12)], "snappy")

    assert header(data)["meta"]["avro.codec"] == b"snappy"
    assert read(as_null_codec(data, _unsnappy)) == [expected(i) for i in range(12)]


def test_zstandard_blocks_are_zstandard_frames() -> None:
    data = write([record(i) for i in range(12)], "zstandard")

    def unzstd(block: bytes) -> bytes:
        decoded: bytes = pa.Codec("zstd").decompress(
            block, decompressed_size=zstd_content_size(block), asbytes=True
        )
        return decoded

    assert header(data)["meta"]["avro.codec"] == b"zstandard"
    assert block_magic(data) == b"\x28\xb5\x2f\xfd"
    assert read(as_null_codec(data, unzstd)) == [expected(i) for i in range(12)]


def zstd_content_size(frame: bytes) -> int:
    """The content size a zstd frame header declares (pyarrow's zstd wants the exact size)."""
    assert frame[:4] == b"\x28\xb5\x2f\xfd"
    descriptor = frame[4]
    single_segment = bool(descriptor & 0x20)
    size_bytes = {0: 1 if single_segment else 0, 1: 2, 2: 4, 3: 8}[descriptor >> 6]
    start = 5 + (0 if single_segment else 1) + {0: 0, 1: 1, 2: 2, 3: 4}[descriptor & 0x03]
    size = int.from_bytes(frame[start : start + size_bytes], "little")
    return size + 256 if size_bytes == 2 else size


def block_magic(data: bytes) -> bytes:
    stream = io.BytesIO(data)
    fastavro.schemaless_reader(stream, _HEADER, None)
    fastavro.schemaless_reader(stream, "long", None)
    fastavro.schemaless_reader(stream, "long", None)
    return stream.read(4)


def test_compression_makes_the_file_smaller() -> None:
    records = [record(i) for i in range(200)]

    sizes = {codec: len(write(records, codec)) for codec in avro.AVRO_CODECS}

    assert all(sizes[codec] < sizes["null"] for codec in sizes if codec != "null")


def test_blocks_are_cut_at_the_block_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(avro, "BLOCK_BYTES", 1000)
    data = write([record(i) for i in range(40)], "deflate")

    blocks = [list(block) for block in fastavro.block_reader(io.BytesIO(data))]
    assert len(blocks) > 3
    assert [r for block in blocks for r in block] == [expected(i) for i in range(40)]


def test_a_real_file_is_written_through_its_stream_and_left_open(tmp_path: Path) -> None:
    path = tmp_path / "orders+0+0000000100+0000000102.avro"
    with path.open("wb") as stream:
        writer = AvroFileFormat("deflate").writer(stream, EVERY_TYPE)
        writer.write([record(i) for i in range(3)])
        writer.close()
        assert not stream.closed

    with path.open("rb") as stream:
        assert list(fastavro.reader(stream)) == [expected(i) for i in range(3)]


def test_a_primitive_value_schema_is_written_as_that_avro_type() -> None:
    schema = SchemaBuilder.string().optional().build()
    records = [
        SinkRecord(topic="t", kafka_partition=0, kafka_offset=o, value_schema=schema, value=v)
        for o, v in enumerate(["a", None, "c"])
    ]

    data = write(records)

    assert json.loads(header(data)["meta"]["avro.schema"]) == ["null", "string"]
    assert read(data) == ["a", None, "c"]


def test_an_optional_struct_may_be_null() -> None:
    schema = SchemaBuilder.struct().name("r").field("a", SchemaBuilder.int32().build()).optional().build()
    records = [
        SinkRecord(topic="t", kafka_partition=0, kafka_offset=0, value_schema=schema, value=None),
        SinkRecord(
            topic="t",
            kafka_partition=0,
            kafka_offset=1,
            value_schema=schema,
            value=Struct(schema).put("a", 1),
        ),
    ]

    assert read(write(records)) == [None, {"a": 1}]


def test_a_writer_for_schemaless_records_is_refused() -> None:
    with pytest.raises(DataError) as raised:
        AvroFileFormat("null").writer(io.BytesIO(), None)

    assert str(raised.value).startswith("Avro files need a value schema, but the record has none")


def test_a_value_not_of_the_files_schema_is_a_data_error_naming_its_record() -> None:
    writer = AvroFileFormat("null").writer(io.BytesIO(), EVERY_TYPE)
    schemaless = SinkRecord(topic="orders", kafka_partition=2, kafka_offset=9, value={"a": 1})

    with pytest.raises(
        DataError, match=r"^Cannot write the record at topic orders partition 2 offset 9 as Avro: "
    ):
        writer.write([record(0), schemaless])


def test_a_tombstone_of_a_required_schema_is_a_data_error_naming_it() -> None:
    writer = AvroFileFormat("null").writer(io.BytesIO(), EVERY_TYPE)
    tombstone = SinkRecord(
        topic="orders", kafka_partition=0, kafka_offset=5, value_schema=EVERY_TYPE, value=None
    )

    with pytest.raises(
        DataError, match=r"^Cannot write the record at topic orders partition 0 offset 5 as Avro: a null"
    ):
        writer.write([record(0), tombstone])


def test_values_the_compiled_writer_leaves_out_are_written_by_fastavro_alike(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    compiled = write([record(i) for i in range(6)])
    monkeypatch.setattr(avro, "payload_writer", lambda *args: None)

    by_fastavro = write([record(i) for i in range(6)])

    assert read(by_fastavro) == read(compiled) == [expected(i) for i in range(6)]
    assert len(by_fastavro) == len(compiled)


def test_every_codec_the_key_accepts_has_a_compressor() -> None:
    from kconnect_storage.formats.codecs import AVRO_CODEC_NAMES

    assert tuple(avro.AVRO_CODECS) == AVRO_CODEC_NAMES
