"""Files the storage sink's formats write, read by Spark itself: Parquet (every Connect type, each
codec), Avro container files (spark-avro, each codec), JSON lines (also gzip-compressed) and text
lines give exactly the values written, with the types a Spark user sees."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest
from kconnect import SinkRecord, Struct
from kconnect.data.schema import SchemaBuilder
from kconnect_storage.formats import RecordFormat
from kconnect_storage.formats.config import record_format

from plugins.storage.tests.unit.format_samples import expected, record

pytestmark = pytest.mark.integration

ROWS = 30

#: What Spark makes of EVERY_TYPE in Parquet: each Connect type keeps its width and logical type.
PARQUET_SPARK_SCHEMA = (
    "struct<i8:tinyint,i16:smallint,i32:int,i64:bigint,f32:float,f64:double,flag:boolean,text:string,"
    "data:binary,opt_i32:int,opt_text:string,amount:decimal(10,2),opt_amount:decimal(20,3),day:date,"
    "opt_day:date,at:time(6),ts:timestamp,opt_ts:timestamp,inner:struct<id:int,label:string>,"
    "point:struct<x:double>,tags:array<string>,maybe_ints:array<bigint>,"
    "inners:array<struct<id:int,label:string>>,counts:map<string,int>,"
    "by_name:map<string,struct<id:int,label:string>>,level:int>"
)

#: What Spark makes of the Avro schema Confluent's AvroData gives EVERY_TYPE: int8 and int16 are
#: Avro ints, and spark-avro reads time-millis as the int it is.
AVRO_SPARK_SCHEMA = (
    PARQUET_SPARK_SCHEMA.replace("i8:tinyint", "i8:int")
    .replace("i16:smallint", "i16:int")
    .replace("at:time(6)", "at:int")
)


def write_file(directory: Path, fmt: RecordFormat, records: list[SinkRecord]) -> Path:
    """Write `records` as a file of `fmt`, named as the sink names its files, in two batches."""
    path = (
        directory / f"orders+0+{records[0].kafka_offset:010d}+{records[-1].kafka_offset:010d}{fmt.extension}"
    )
    with path.open("wb") as stream:
        writer = fmt.writer(stream, records[0].value_schema)
        half = len(records) // 2
        writer.write(records[:half])
        writer.write(records[half:])
        writer.close()
    return path


def spark_plain(v: Any) -> Any:
    """A Spark value as the samples' plain Python: bytearrays as bytes, nested Rows as dicts."""
    if isinstance(v, dict):
        return {k: spark_plain(e) for k, e in v.items()}
    if isinstance(v, list):
        return [spark_plain(e) for e in v]
    if isinstance(v, bytearray):
        return bytes(v)
    return v


def as_spark_gives(v: Any) -> Any:
    """An expected value as pyspark returns it: timestamps naive, in this process's local time."""
    if isinstance(v, datetime.datetime):
        return datetime.datetime.fromtimestamp(v.timestamp())
    if isinstance(v, dict):
        return {k: as_spark_gives(e) for k, e in v.items()}
    if isinstance(v, list):
        return [as_spark_gives(e) for e in v]
    return v


def rows_of(frame: Any) -> list[dict[str, Any]]:
    rows = [spark_plain(r.asDict(recursive=True)) for r in frame.collect()]
    return sorted(rows, key=lambda r: r["i64"])


def expected_rows(time_as_millis: bool = False) -> list[dict[str, Any]]:
    rows = []
    for i in range(ROWS):
        row = as_spark_gives(expected(i))
        if time_as_millis:
            at = row["at"]
            row["at"] = ((at.hour * 60 + at.minute) * 60 + at.second) * 1000 + at.microsecond // 1000
        rows.append(row)
    return rows


# brotli is left out: Spark reads it only with a Brotli codec jar added to its classpath.
@pytest.mark.parametrize("codec", ["snappy", "none", "gzip", "zstd", "lz4", "lz4_raw"])
def test_spark_reads_every_type_from_parquet_as_written(spark: Any, tmp_path: Path, codec: str) -> None:
    fmt = record_format(
        {"format.class": "io.confluent.connect.s3.format.parquet.ParquetFormat", "parquet.codec": codec},
        connector="s3",
    )
    path = write_file(tmp_path, fmt, [record(i) for i in range(ROWS)])

    frame = spark.read.parquet(str(path))

    assert frame.schema.simpleString() == PARQUET_SPARK_SCHEMA
    assert rows_of(frame) == expected_rows()


@pytest.mark.parametrize("codec", ["null", "deflate", "snappy", "bzip2", "xz", "zstandard"])
def test_spark_reads_every_type_from_avro_as_written(spark: Any, tmp_path: Path, codec: str) -> None:
    fmt = record_format(
        {"format.class": "io.confluent.connect.hdfs.avro.AvroFormat", "avro.codec": codec}, connector="hdfs"
    )
    path = write_file(tmp_path, fmt, [record(i) for i in range(ROWS)])

    frame = spark.read.format("avro").load(str(path))

    assert frame.schema.simpleString() == AVRO_SPARK_SCHEMA
    assert rows_of(frame) == expected_rows(time_as_millis=True)


JSON_SCHEMA = (
    SchemaBuilder.struct()
    .field("id", SchemaBuilder.int64().build())
    .field("name", SchemaBuilder.string().optional().build())
    .field("price", SchemaBuilder.float64().build())
    .field("flag", SchemaBuilder.bool().build())
    .field("tags", SchemaBuilder.array(SchemaBuilder.string().build()).build())
    .field(
        "inner",
        SchemaBuilder.struct()
        .field("id", SchemaBuilder.int32().build())
        .field("label", SchemaBuilder.string().optional().build())
        .build(),
    )
    .build()
)

#: Spark's inferred schema of those lines: JSON numbers as bigint and double, fields sorted by name.
JSON_SPARK_SCHEMA = (
    "struct<flag:boolean,id:bigint,inner:struct<id:bigint,label:string>,name:string,price:double,"
    "tags:array<string>>"
)


def json_value(i: int) -> dict[str, Any]:
    return {
        "id": i,
        "name": None if i % 3 == 0 else f"name {i} ✓",
        "price": i + 0.25,
        "flag": i % 2 == 0,
        "tags": [f"t{j}" for j in range(i % 4)],
        "inner": {"id": -i, "label": None if i % 2 else "x"},
    }


def json_struct(i: int) -> Struct:
    plain = json_value(i)
    inner_schema = JSON_SCHEMA.field("inner").schema  # type: ignore[union-attr]
    inner = Struct(inner_schema).put("id", plain["inner"]["id"]).put("label", plain["inner"]["label"])
    value = Struct(JSON_SCHEMA)
    for name in ("id", "name", "price", "flag", "tags"):
        value.put(name, plain[name])
    return value.put("inner", inner)


@pytest.mark.parametrize(("with_schema", "compression"), [(True, "none"), (False, "none"), (True, "gzip")])
def test_spark_reads_json_lines_as_written(
    spark: Any, tmp_path: Path, with_schema: bool, compression: str
) -> None:
    records = [
        SinkRecord(
            topic="orders",
            kafka_partition=0,
            kafka_offset=i,
            value_schema=JSON_SCHEMA if with_schema else None,
            value=json_struct(i) if with_schema else json_value(i),
        )
        for i in range(ROWS)
    ]
    fmt = record_format(
        {
            "format.class": "io.confluent.connect.s3.format.json.JsonFormat",
            "s3.compression.type": compression,
        },
        connector="s3",
    )
    path = write_file(tmp_path, fmt, records)

    frame = spark.read.json(str(path))  # a .gz file is read through Hadoop's gzip codec

    assert path.name.endswith(".json.gz" if compression == "gzip" else ".json")
    assert frame.schema.simpleString() == JSON_SPARK_SCHEMA
    assert sorted((r.asDict(recursive=True) for r in frame.collect()), key=lambda r: r["id"]) == [
        json_value(i) for i in range(ROWS)
    ]


@pytest.mark.parametrize(
    ("class_name", "value"),
    [
        ("io.confluent.connect.s3.format.bytearray.ByteArrayFormat", lambda i: f"line {i} é".encode()),
        ("io.confluent.connect.hdfs.string.StringFormat", lambda i: f"line {i} é"),
    ],
)
def test_spark_reads_bytearray_and_string_files_as_text_lines(
    spark: Any, tmp_path: Path, class_name: str, value: Any
) -> None:
    records = [
        SinkRecord(topic="orders", kafka_partition=0, kafka_offset=i, value=value(i)) for i in range(ROWS)
    ]
    path = write_file(tmp_path, record_format({"format.class": class_name}, connector="hdfs"), records)

    lines = [r.value for r in spark.read.text(str(path)).collect()]

    assert lines == [f"line {i} é" for i in range(ROWS)]
