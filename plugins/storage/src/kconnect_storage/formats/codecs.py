"""The codec names the formats' keys accept: plain data, so defining the keys imports no writer."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ParquetCodec:
    """One ``parquet.codec`` value: pyarrow's compression name and parquet-mr's file extension."""

    compression: str
    extension: str


#: Confluent's ``parquet.codec`` values (parquet-mr's codec names in lower case, ``none`` for
#: UNCOMPRESSED) that pyarrow writes. ``lz4`` and ``lz4_raw`` are both written as LZ4_RAW, the
#: LZ4 codec Parquet keeps (Hadoop-framed LZ4 is deprecated).
PARQUET_CODECS: dict[str, ParquetCodec] = {
    "none": ParquetCodec("none", ""),
    "snappy": ParquetCodec("snappy", ".snappy"),
    "gzip": ParquetCodec("gzip", ".gz"),
    "brotli": ParquetCodec("brotli", ".br"),
    "lz4": ParquetCodec("lz4", ".lz4"),
    "lz4_raw": ParquetCodec("lz4_raw", ".lz4raw"),
    "zstd": ParquetCodec("zstd", ".zstd"),
}

#: Avro's codec names, as ``avro.codec`` takes them (`kconnect_storage.formats.avro` compresses with each).
AVRO_CODEC_NAMES: tuple[str, ...] = ("null", "deflate", "snappy", "bzip2", "xz", "zstandard")
