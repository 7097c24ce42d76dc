"""The format keys: Confluent's class names for every connector, defaults per connector, the
codecs, the ByteArray keys, and the refusals that name the key."""

from __future__ import annotations

import gzip
import io

import pyarrow.parquet as pq
import pytest
from kconnect import SinkRecord
from kconnect.config import ConfigDef
from kconnect_storage.formats.avro import AvroFileFormat
from kconnect_storage.formats.config import define_format_keys, record_format
from kconnect_storage.formats.lines import ByteArrayFormat, JsonLinesFormat, StringFormat
from kconnect_storage.formats.parquet import ParquetFormat

from plugins.storage.tests.unit.format_samples import EVERY_TYPE, record

CONNECTORS = ["hdfs", "s3", "storage"]


def errors(connector: str, config: dict[str, str]) -> dict[str, list[str]]:
    values = define_format_keys(ConfigDef(), connector=connector).validate(config)
    return {name: value.errors for name, value in values.items() if value.errors}


@pytest.mark.parametrize("connector", CONNECTORS)
@pytest.mark.parametrize(
    ("class_name", "kind", "extension"),
    [
        ("io.confluent.connect.hdfs.parquet.ParquetFormat", ParquetFormat, ".parquet"),
        ("io.confluent.connect.s3.format.parquet.ParquetFormat", ParquetFormat, ".parquet"),
        ("io.confluent.connect.hdfs.avro.AvroFormat", AvroFileFormat, ".avro"),
        ("io.confluent.connect.s3.format.avro.AvroFormat", AvroFileFormat, ".avro"),
        ("io.confluent.connect.hdfs.json.JsonFormat", JsonLinesFormat, ".json"),
        ("io.confluent.connect.s3.format.json.JsonFormat", JsonLinesFormat, ".json"),
        ("io.confluent.connect.s3.format.bytearray.ByteArrayFormat", ByteArrayFormat, ".bin"),
        ("io.confluent.connect.hdfs.string.StringFormat", StringFormat, ".txt"),
    ],
)
def test_every_confluent_class_name_works_for_every_connector(
    connector: str, class_name: str, kind: type, extension: str
) -> None:
    config = {"format.class": class_name}

    fmt = record_format(config, connector=connector)

    assert errors(connector, config) == {}
    assert isinstance(fmt, kind)
    expected = ".snappy.parquet" if connector == "s3" and kind is ParquetFormat else extension
    assert fmt.extension == expected


def test_the_default_format_is_avro_for_hdfs_parquet_for_storage_and_none_for_s3() -> None:
    assert isinstance(record_format({}, connector="hdfs"), AvroFileFormat)
    assert isinstance(record_format({}, connector="storage"), ParquetFormat)
    assert errors("s3", {}) == {
        "format.class": ['Missing required configuration "format.class" which has no default value.']
    }


@pytest.mark.parametrize(
    "class_name",
    [
        "io.confluent.connect.hdfs.orc.OrcFormat",
        "io.confluent.connect.s3.format.csv.CsvFormat",
        "io.confluent.connect.s3.format.bytearray.SafeByteArrayFormat",
        "com.example.MyFormat",
    ],
)
def test_other_format_classes_are_refused_naming_what_works(class_name: str) -> None:
    assert errors("hdfs", {"format.class": class_name}) == {
        "format.class": [
            f"Invalid value {class_name} for configuration format.class: kconnect writes only these formats: "
            "io.confluent.connect.hdfs.parquet.ParquetFormat, io.confluent.connect.hdfs.avro.AvroFormat, "
            "io.confluent.connect.hdfs.json.JsonFormat, io.confluent.connect.hdfs.string.StringFormat, "
            "io.confluent.connect.s3.format.parquet.ParquetFormat, "
            "io.confluent.connect.s3.format.avro.AvroFormat, "
            "io.confluent.connect.s3.format.json.JsonFormat, "
            "io.confluent.connect.s3.format.bytearray.ByteArrayFormat"
        ]
    }


@pytest.mark.parametrize(
    ("codec", "written", "s3_extension"),
    [
        (None, "SNAPPY", ".snappy.parquet"),
        ("none", "UNCOMPRESSED", ".parquet"),
        ("gzip", "GZIP", ".gz.parquet"),
        ("brotli", "BROTLI", ".br.parquet"),
        ("lz4", "LZ4", ".lz4.parquet"),
        ("zstd", "ZSTD", ".zstd.parquet"),
    ],
)
def test_parquet_codec_is_applied(codec: str | None, written: str, s3_extension: str) -> None:
    config = {"format.class": "io.confluent.connect.s3.format.parquet.ParquetFormat"}
    if codec is not None:
        config["parquet.codec"] = codec
    fmt = record_format(config, connector="s3")
    out = io.BytesIO()
    writer = fmt.writer(out, EVERY_TYPE)
    writer.write([record(0)])
    writer.close()

    assert pq.ParquetFile(io.BytesIO(out.getvalue())).metadata.row_group(0).column(0).compression == written
    assert fmt.extension == s3_extension


def test_parquet_codecs_kconnect_cannot_write_or_that_do_not_exist_are_refused() -> None:
    assert errors(
        "s3", {"format.class": "io.confluent.connect.s3.format.json.JsonFormat", "parquet.codec": "lzo"}
    ) == {
        "parquet.codec": [
            "Invalid value lzo for configuration parquet.codec: lzo is not supported by kconnect: "
            "pyarrow cannot write LZO-compressed Parquet"
        ]
    }
    assert errors("hdfs", {"parquet.codec": "snapy"}) == {
        "parquet.codec": [
            "Invalid value snapy for configuration parquet.codec: Value must be one of: "
            "none, snappy, gzip, brotli, lz4, lz4_raw, zstd"
        ]
    }


@pytest.mark.parametrize("codec", ["null", "deflate", "snappy", "bzip2", "xz", "zstandard"])
def test_every_avro_codec_is_accepted_and_written_into_the_header(codec: str) -> None:
    config = {"avro.codec": codec}
    fmt = record_format(config, connector="hdfs")
    out = io.BytesIO()
    fmt.writer(out, EVERY_TYPE).close()

    assert errors("hdfs", config) == {}
    assert b"avro.codec" + bytes([len(codec) * 2]) + codec.encode() in out.getvalue()


def test_an_unknown_avro_codec_is_refused() -> None:
    assert errors("hdfs", {"avro.codec": "lz4"}) == {
        "avro.codec": [
            "Invalid value lz4 for configuration avro.codec: Value must be one of: "
            "null, deflate, snappy, bzip2, xz, zstandard"
        ]
    }


def test_bytearray_keys_are_confluents_and_the_separator_keeps_its_white_space() -> None:
    config = {
        "format.class": "io.confluent.connect.s3.format.bytearray.ByteArrayFormat",
        "format.bytearray.extension": ".csv",
        "format.bytearray.separator": " \n",
    }
    fmt = record_format(config, connector="s3")
    out = io.BytesIO()
    writer = fmt.writer(out, None)
    writer.write([SinkRecord(topic="t", kafka_partition=0, kafka_offset=0, value=b"x")])

    assert fmt.extension == ".csv"
    assert out.getvalue() == b"x \n"


def test_json_decimal_format_is_validated_as_kafkas_decimal_format() -> None:
    assert errors(
        "s3",
        {"format.class": "io.confluent.connect.s3.format.json.JsonFormat", "json.decimal.format": "text"},
    ) == {
        "json.decimal.format": [
            "Invalid value text for configuration json.decimal.format: "
            "String must be one of (case insensitive): NUMERIC, BASE64"
        ]
    }
    assert (
        errors(
            "s3",
            {
                "format.class": "io.confluent.connect.s3.format.json.JsonFormat",
                "json.decimal.format": "numeric",
            },
        )
        == {}
    )


def test_connect_meta_data_false_leaves_the_connect_properties_out_of_the_avro_schema() -> None:
    def schema_text(config: dict[str, str]) -> str:
        out = io.BytesIO()
        record_format(config, connector="hdfs").writer(out, EVERY_TYPE).close()
        return out.getvalue().decode("latin-1")

    assert '"connect.type":"int8"' in schema_text({})
    assert '"connect.type"' not in schema_text({"connect.meta.data": "false"})
    assert errors("hdfs", {"connect.meta.data": "false", "enhanced.avro.schema.support": "true"}) == {}


def test_s3_compression_type_gzip_compresses_json_and_bytearray_files() -> None:
    json_gz = record_format(
        {"format.class": "io.confluent.connect.s3.format.json.JsonFormat", "s3.compression.type": "gzip"},
        connector="s3",
    )
    out = io.BytesIO()
    writer = json_gz.writer(out, None)
    writer.write([SinkRecord(topic="t", kafka_partition=0, kafka_offset=0, value={"a": 1})])
    writer.close()

    assert json_gz.extension == ".json.gz"
    assert gzip.decompress(out.getvalue()) == b'{"a":1}\n'
    assert (
        record_format(
            {
                "format.class": "io.confluent.connect.s3.format.bytearray.ByteArrayFormat",
                "s3.compression.type": "gzip",
                "s3.compression.level": "9",
            },
            connector="s3",
        ).extension
        == ".bin.gz"
    )


def test_s3_compression_keys_are_validated_and_only_s3_has_them() -> None:
    assert errors(
        "s3",
        {
            "format.class": "io.confluent.connect.s3.format.json.JsonFormat",
            "s3.compression.type": "zip",
            "s3.compression.level": "10",
        },
    ) == {
        "s3.compression.type": [
            "Invalid value zip for configuration s3.compression.type: Value must be one of: none, gzip"
        ],
        "s3.compression.level": [
            "Invalid value 10 for configuration s3.compression.level: Value must be no more than 9"
        ],
    }
    assert "s3.compression.type" not in define_format_keys(ConfigDef(), connector="hdfs").config_keys
