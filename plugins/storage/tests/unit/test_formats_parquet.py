"""The Parquet format: Connect schemas as Arrow types, every value read back by pyarrow as written,
parquet.codec applied, chunks, and the errors that name the record."""

from __future__ import annotations

import decimal
import io
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from kconnect import SinkRecord, Struct
from kconnect.data import logical
from kconnect.data.schema import SchemaBuilder
from kconnect.errors import DataError
from kconnect_storage.formats import parquet
from kconnect_storage.formats.arrow import arrow_schema, arrow_type
from kconnect_storage.formats.codecs import PARQUET_CODECS
from kconnect_storage.formats.parquet import ParquetFormat

from plugins.storage.tests.unit.format_samples import EVERY_TYPE, expected, record


def write(records: list[SinkRecord], codec: str = "snappy", stream: Any = None) -> bytes:
    out = io.BytesIO() if stream is None else stream
    writer = ParquetFormat(PARQUET_CODECS[codec]).writer(out, records[0].value_schema)
    writer.write(records)
    writer.close()
    return out.getvalue() if stream is None else b""


def plain_row(row: dict[str, Any]) -> dict[str, Any]:
    """pyarrow's maps are lists of (key, value) pairs: as dicts, like the samples."""
    return {k: _plain(v) for k, v in row.items()}


def _plain(v: Any) -> Any:
    if isinstance(v, list) and v and isinstance(v[0], tuple):
        return {k: _plain(e) for k, e in v}
    if isinstance(v, list):
        return [_plain(e) for e in v]
    if isinstance(v, dict):
        return {k: _plain(e) for k, e in v.items()}
    return v


@pytest.mark.parametrize(
    ("schema", "expected_type"),
    [
        (SchemaBuilder.int8().build(), pa.int8()),
        (SchemaBuilder.int16().build(), pa.int16()),
        (SchemaBuilder.int32().build(), pa.int32()),
        (SchemaBuilder.int64().build(), pa.int64()),
        (SchemaBuilder.float32().build(), pa.float32()),
        (SchemaBuilder.float64().build(), pa.float64()),
        (SchemaBuilder.bool().build(), pa.bool_()),
        (SchemaBuilder.string().build(), pa.string()),
        (SchemaBuilder.bytes().build(), pa.binary()),
        (logical.Decimal.schema(4), pa.decimal128(38, 4)),
        (logical.Decimal.builder(2).parameter("connect.decimal.precision", "5").build(), pa.decimal128(5, 2)),
        (
            logical.Decimal.builder(0).parameter("connect.decimal.precision", "50").build(),
            pa.decimal256(50, 0),
        ),
        (logical.Date.SCHEMA, pa.date32()),
        (logical.Time.SCHEMA, pa.time64("us")),
        (logical.Timestamp.SCHEMA, pa.timestamp("ms", tz="UTC")),
        (
            SchemaBuilder.array(SchemaBuilder.int32().optional().build()).build(),
            pa.list_(pa.field("element", pa.int32(), nullable=True)),
        ),
        (
            SchemaBuilder.map(SchemaBuilder.string().build(), SchemaBuilder.int64().build()).build(),
            pa.map_(pa.string(), pa.field("value", pa.int64(), nullable=False)),
        ),
        (
            SchemaBuilder.struct().field("a", SchemaBuilder.int8().optional().build()).build(),
            pa.struct([pa.field("a", pa.int8(), nullable=True)]),
        ),
    ],
)
def test_each_connect_type_has_its_arrow_type(schema: Any, expected_type: pa.DataType) -> None:
    assert arrow_type(schema) == expected_type


def test_optional_fields_are_nullable_and_required_ones_not() -> None:
    schema = arrow_schema(EVERY_TYPE)

    assert schema.field("i32").nullable is False
    assert schema.field("opt_i32").nullable is True
    assert schema.field("inner").nullable is True
    assert schema.field("inner").type.field("id").nullable is False


def test_a_value_schema_that_is_not_a_struct_is_refused() -> None:
    with pytest.raises(DataError, match="Parquet files need a STRUCT value schema, not STRING"):
        ParquetFormat(PARQUET_CODECS["none"]).writer(io.BytesIO(), SchemaBuilder.string().build())


def test_a_struct_without_fields_is_refused() -> None:
    empty = SchemaBuilder.struct().name("Empty").optional().build()

    with pytest.raises(DataError, match="Parquet cannot hold a struct without fields: Empty"):
        ParquetFormat(PARQUET_CODECS["none"]).writer(
            io.BytesIO(), SchemaBuilder.struct().field("e", empty).build()
        )
    with pytest.raises(DataError, match="Parquet cannot hold a struct without fields: the value schema"):
        ParquetFormat(PARQUET_CODECS["none"]).writer(io.BytesIO(), SchemaBuilder.struct().build())


def test_every_type_reads_back_as_written() -> None:
    data = write([record(i) for i in range(12)])

    table = pq.read_table(io.BytesIO(data))

    assert table.schema == arrow_schema(EVERY_TYPE)
    assert [plain_row(r) for r in table.to_pylist()] == [expected(i) for i in range(12)]


def test_a_real_file_is_written_through_its_stream_and_left_open(tmp_path: Path) -> None:
    path = tmp_path / "orders+0+0000000100+0000000104.parquet"
    with path.open("wb") as stream:
        write([record(i) for i in range(5)], stream=stream)
        assert not stream.closed
        assert stream.tell() > 0

    assert [plain_row(r) for r in pq.read_table(path).to_pylist()] == [expected(i) for i in range(5)]


@pytest.mark.parametrize(
    ("codec", "written"),
    [
        ("none", "UNCOMPRESSED"),
        ("snappy", "SNAPPY"),
        ("gzip", "GZIP"),
        ("brotli", "BROTLI"),
        ("zstd", "ZSTD"),
        ("lz4", "LZ4"),
    ],
)
def test_the_codec_is_applied_to_every_column(codec: str, written: str) -> None:
    metadata = pq.ParquetFile(io.BytesIO(write([record(i) for i in range(3)], codec))).metadata

    group = metadata.row_group(0)
    assert {group.column(c).compression for c in range(group.num_columns)} == {written}


def test_the_extension_carries_the_codec_only_where_confluents_s3_sink_puts_it() -> None:
    assert ParquetFormat(PARQUET_CODECS["snappy"]).extension == ".parquet"
    assert ParquetFormat(PARQUET_CODECS["snappy"], codec_in_extension=True).extension == ".snappy.parquet"
    assert ParquetFormat(PARQUET_CODECS["gzip"], codec_in_extension=True).extension == ".gz.parquet"
    assert ParquetFormat(PARQUET_CODECS["none"], codec_in_extension=True).extension == ".parquet"


def test_records_are_written_a_chunk_at_a_time_as_row_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parquet, "CHUNK_ROWS", 4)
    out = io.BytesIO()
    writer = ParquetFormat(PARQUET_CODECS["none"]).writer(out, EVERY_TYPE)
    writer.write([record(i) for i in range(3)])
    size_before = len(out.getvalue())
    writer.write([record(i) for i in range(3, 10)])
    written_by_second_write = len(out.getvalue()) > size_before
    writer.close()

    file = pq.ParquetFile(io.BytesIO(out.getvalue()))
    assert written_by_second_write
    assert [file.metadata.row_group(g).num_rows for g in range(file.metadata.num_row_groups)] == [4, 4, 2]
    assert [plain_row(r) for r in file.read().to_pylist()] == [expected(i) for i in range(10)]


def test_an_empty_file_has_the_schema_and_no_rows() -> None:
    out = io.BytesIO()
    writer = ParquetFormat(PARQUET_CODECS["snappy"]).writer(out, EVERY_TYPE)
    writer.close()

    table = pq.read_table(io.BytesIO(out.getvalue()))
    assert table.num_rows == 0
    assert table.schema == arrow_schema(EVERY_TYPE)


def test_a_writer_for_schemaless_records_is_refused() -> None:
    with pytest.raises(DataError) as raised:
        ParquetFormat(PARQUET_CODECS["snappy"]).writer(io.BytesIO(), None)

    assert str(raised.value).startswith("Parquet files need a value schema, but the record has none")
    assert "\n" not in str(raised.value)


def test_a_schemaless_record_given_to_a_writer_is_a_data_error_naming_it() -> None:
    schemaless = SinkRecord(topic="orders", kafka_partition=3, kafka_offset=42, value={"a": 1})
    writer = ParquetFormat(PARQUET_CODECS["snappy"]).writer(io.BytesIO(), EVERY_TYPE)

    with pytest.raises(DataError) as raised:
        writer.write([record(0), schemaless])

    assert str(raised.value).startswith(
        "Parquet files need a value schema, but the record at topic orders partition 3 offset 42 has none"
    )
    assert "\n" not in str(raised.value)


def test_a_tombstone_is_a_data_error_naming_it() -> None:
    tombstone = SinkRecord(
        topic="orders", kafka_partition=0, kafka_offset=7, value_schema=EVERY_TYPE, value=None
    )
    writer = ParquetFormat(PARQUET_CODECS["snappy"]).writer(io.BytesIO(), EVERY_TYPE)

    with pytest.raises(
        DataError, match="record at topic orders partition 0 offset 7 as Parquet: a null value"
    ):
        writer.write([record(0), tombstone])


def test_a_value_that_does_not_convert_is_a_data_error_naming_its_record() -> None:
    schema = (
        SchemaBuilder.struct()
        .field("amount", logical.Decimal.builder(2).parameter("connect.decimal.precision", "3").build())
        .build()
    )
    records = [
        SinkRecord(
            topic="t",
            kafka_partition=1,
            kafka_offset=o,
            value_schema=schema,
            value=Struct(schema).put("amount", decimal.Decimal(text)),
        )
        for o, text in [(5, "1.25"), (6, "123.45")]
    ]
    writer = ParquetFormat(PARQUET_CODECS["snappy"]).writer(io.BytesIO(), schema)
    writer.write(records)

    with pytest.raises(
        DataError, match=r"^Cannot write the record at topic t partition 1 offset 6 as Parquet: "
    ):
        writer.close()


def test_maps_with_int_keys_and_arrays_of_null_structs_read_back() -> None:
    inner = SchemaBuilder.struct().field("x", SchemaBuilder.int32().build()).optional().build()
    schema = (
        SchemaBuilder.struct()
        .field(
            "m",
            SchemaBuilder.map(
                SchemaBuilder.int32().build(), SchemaBuilder.array(inner).optional().build()
            ).build(),
        )
        .build()
    )
    values = [{1: [Struct(inner).put("x", 5), None], 2: None}, {}, {-3: []}]
    records = [
        SinkRecord(
            topic="t",
            kafka_partition=0,
            kafka_offset=o,
            value_schema=schema,
            value=Struct(schema).put("m", v),
        )
        for o, v in enumerate(values)
    ]

    table = pq.read_table(io.BytesIO(write(records)))

    assert table.column("m").to_pylist() == [[(1, [{"x": 5}, None]), (2, None)], [], [(-3, [])]]
