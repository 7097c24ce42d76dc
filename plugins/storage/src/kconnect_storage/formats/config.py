"""The format keys (Confluent's names and defaults) and the `RecordFormat` a config selects.

``format.class`` takes Confluent's class names of both connectors, for every connector:

==========================================================  ==========================================
``format.class``                                            file
==========================================================  ==========================================
``io.confluent.connect.hdfs.parquet.ParquetFormat``,        Parquet, ``parquet.codec`` (``.parquet``;
``io.confluent.connect.s3.format.parquet.ParquetFormat``    S3: ``.snappy.parquet`` as Confluent's S3)
``io.confluent.connect.hdfs.avro.AvroFormat``,              Avro container, ``avro.codec`` (``.avro``)
``io.confluent.connect.s3.format.avro.AvroFormat``
``io.confluent.connect.hdfs.json.JsonFormat``,              JSON lines without schemas (``.json``),
``io.confluent.connect.s3.format.json.JsonFormat``          ``json.decimal.format``
``io.confluent.connect.s3.format.bytearray.ByteArrayFormat``  raw value bytes + separator (``.bin``)
``io.confluent.connect.hdfs.string.StringFormat``           string values, one a line (``.txt``)
==========================================================  ==========================================

Defaults: HDFS Avro (Confluent's), S3 none (required, as Confluent's), StorageSinkConnector
Parquet. Confluent's other formats (ORC, CSV, SafeByteArray...) are refused at validation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from kconnect.config import (
    NO_DEFAULT,
    CaseInsensitiveValidString,
    ConfigDef,
    ConfigException,
    ConfigType,
    Importance,
    LambdaValidator,
    Range,
    Width,
)
from kconnect_schema_registry.avro.config import (
    CONNECT_META_DATA,
    ENHANCED_AVRO_SCHEMA_SUPPORT,
    AvroDataSettings,
)

from kconnect_storage.formats import RecordFormat
from kconnect_storage.formats.codecs import AVRO_CODEC_NAMES as AVRO_CODECS
from kconnect_storage.formats.codecs import PARQUET_CODECS
from kconnect_storage.formats.lines import COMPRESSION_EXTENSIONS

FORMAT_CLASS_CONFIG = "format.class"
PARQUET_CODEC_CONFIG = "parquet.codec"
AVRO_CODEC_CONFIG = "avro.codec"
FORMAT_BYTEARRAY_EXTENSION_CONFIG = "format.bytearray.extension"
FORMAT_BYTEARRAY_SEPARATOR_CONFIG = "format.bytearray.separator"
JSON_DECIMAL_FORMAT_CONFIG = "json.decimal.format"
S3_COMPRESSION_TYPE_CONFIG = "s3.compression.type"
S3_COMPRESSION_LEVEL_CONFIG = "s3.compression.level"

GROUP = "Connector"

PARQUET = "parquet"
AVRO = "avro"
JSON = "json"
BYTEARRAY = "bytearray"
STRING = "string"

#: Confluent's format class names kconnect writes, and the format each names.
FORMAT_CLASSES: dict[str, str] = {
    "io.confluent.connect.hdfs.parquet.ParquetFormat": PARQUET,
    "io.confluent.connect.hdfs.avro.AvroFormat": AVRO,
    "io.confluent.connect.hdfs.json.JsonFormat": JSON,
    "io.confluent.connect.hdfs.string.StringFormat": STRING,
    "io.confluent.connect.s3.format.parquet.ParquetFormat": PARQUET,
    "io.confluent.connect.s3.format.avro.AvroFormat": AVRO,
    "io.confluent.connect.s3.format.json.JsonFormat": JSON,
    "io.confluent.connect.s3.format.bytearray.ByteArrayFormat": BYTEARRAY,
}

#: ``format.class`` defaults per connector (None: required).
FORMAT_CLASS_DEFAULTS: dict[str, str | None] = {
    "hdfs": "io.confluent.connect.hdfs.avro.AvroFormat",
    "s3": None,
    "storage": "io.confluent.connect.s3.format.parquet.ParquetFormat",
}

#: Confluent's ``parquet.codec`` values kconnect cannot write, with the reason.
REFUSED_PARQUET_CODECS = {"lzo": "pyarrow cannot write LZO-compressed Parquet"}
PARQUET_CODEC_DEFAULT = "snappy"
AVRO_CODEC_DEFAULT = "null"
FORMAT_BYTEARRAY_EXTENSION_DEFAULT = ".bin"
FORMAT_BYTEARRAY_SEPARATOR_DEFAULT = "\n"


def _check_format_class(name: str, value: object) -> None:
    if value is None or str(value).strip() in FORMAT_CLASSES:
        return
    raise ConfigException.invalid(
        name,
        value,
        "kconnect writes only these formats: " + ", ".join(FORMAT_CLASSES),
    )


def _one_of(choices: list[str], refused: Mapping[str, str]) -> Callable[[str, object], None]:
    def check(name: str, value: object) -> None:
        text = str(value).strip()
        if text in refused:
            raise ConfigException.invalid(
                name, value, f"{text} is not supported by kconnect: {refused[text]}"
            )
        if text not in choices:
            raise ConfigException.invalid(name, value, "Value must be one of: " + ", ".join(choices))

    return check


_PARQUET_CHOICES = [*PARQUET_CODECS, *REFUSED_PARQUET_CODECS]


def define_format_keys(config_def: ConfigDef, *, connector: str) -> ConfigDef:
    """Add the format keys of `connector` ("hdfs", "s3" or "storage") to `config_def`."""
    default = FORMAT_CLASS_DEFAULTS[connector]
    if connector == "s3":
        _define_s3_compression_keys(config_def)
    return (
        config_def.define(
            FORMAT_CLASS_CONFIG,
            type=ConfigType.STRING,
            default=NO_DEFAULT if default is None else default,
            validator=LambdaValidator(_check_format_class, "[" + ", ".join(FORMAT_CLASSES) + "]"),
            importance=Importance.HIGH,
            documentation="The format class to use when writing data to the store. One of Confluent's "
            "class names: " + ", ".join(FORMAT_CLASSES) + ".",
            group=GROUP,
            order_in_group=1,
            width=Width.NONE,
            display_name="Format class",
        )
        .define(
            PARQUET_CODEC_CONFIG,
            type=ConfigType.STRING,
            default=PARQUET_CODEC_DEFAULT,
            validator=LambdaValidator(
                _one_of(list(PARQUET_CODECS), REFUSED_PARQUET_CODECS), "[" + ", ".join(PARQUET_CODECS) + "]"
            ),
            importance=Importance.LOW,
            documentation="The Parquet compression codec to be used for output files. "
            "lz4 and lz4_raw are both written as LZ4_RAW; lzo is not supported; Spark reads brotli "
            "only with a Brotli codec on its classpath.",
            group=GROUP,
            order_in_group=20,
            width=Width.LONG,
            display_name="Parquet Compression Codec",
        )
        .define(
            AVRO_CODEC_CONFIG,
            type=ConfigType.STRING,
            default=AVRO_CODEC_DEFAULT,
            validator=LambdaValidator(_one_of(list(AVRO_CODECS), {}), "[" + ", ".join(AVRO_CODECS) + "]"),
            importance=Importance.LOW,
            documentation="The Avro compression codec to be used for output files. Available values: "
            + ", ".join(AVRO_CODECS)
            + ".",
            group=GROUP,
            order_in_group=21,
            width=Width.LONG,
            display_name="Avro Compression Codec",
        )
        .define(
            FORMAT_BYTEARRAY_EXTENSION_CONFIG,
            type=ConfigType.STRING,
            default=FORMAT_BYTEARRAY_EXTENSION_DEFAULT,
            importance=Importance.LOW,
            documentation="Output file extension for ByteArrayFormat. Defaults to '.bin'",
            group=GROUP,
            order_in_group=22,
            width=Width.LONG,
            display_name="Output file extension for ByteArrayFormat",
        )
        .define(
            FORMAT_BYTEARRAY_SEPARATOR_CONFIG,
            type=ConfigType.STRING,
            default=FORMAT_BYTEARRAY_SEPARATOR_DEFAULT,
            importance=Importance.LOW,
            documentation="String inserted between records for ByteArrayFormat. Defaults to '\\n' "
            "(white space is kept as given) and may be empty.",
            group=GROUP,
            order_in_group=23,
            width=Width.LONG,
            display_name="Line separator ByteArrayFormat",
        )
        .define(
            JSON_DECIMAL_FORMAT_CONFIG,
            type=ConfigType.STRING,
            default="BASE64",
            validator=CaseInsensitiveValidString.in_("BASE64", "NUMERIC"),
            importance=Importance.LOW,
            documentation="Controls which format json converter will serialize decimals in. This value "
            "is case insensitive and can be either 'BASE64' (default) or 'NUMERIC'",
            group=GROUP,
            order_in_group=24,
            width=Width.LONG,
            display_name="Decimal Format",
        )
        .define(
            ENHANCED_AVRO_SCHEMA_SUPPORT,
            type=ConfigType.BOOLEAN,
            default=False,
            importance=Importance.MEDIUM,
            documentation="Toggle for enabling/disabling enhanced avro schema support: Enum symbol "
            "preservation and Package Name awareness (Avro files)",
        )
        .define(
            CONNECT_META_DATA,
            type=ConfigType.BOOLEAN,
            default=True,
            importance=Importance.LOW,
            documentation="Toggle for enabling/disabling connect converter to add its meta data to the "
            "output schema or not (Avro files)",
        )
    )


def _define_s3_compression_keys(config_def: ConfigDef) -> ConfigDef:
    """S3's whole-file compression of the JSON and ByteArray files (Confluent's S3 group keys)."""
    return config_def.define(
        S3_COMPRESSION_TYPE_CONFIG,
        type=ConfigType.STRING,
        default="none",
        validator=LambdaValidator(
            _one_of(list(COMPRESSION_EXTENSIONS), {}), "[" + ", ".join(COMPRESSION_EXTENSIONS) + "]"
        ),
        importance=Importance.LOW,
        documentation="Compression type for files written to S3. Applied when using JsonFormat or "
        "ByteArrayFormat. Available values: none, gzip.",
        group="S3",
        order_in_group=20,
        width=Width.LONG,
        display_name="Compression type",
    ).define(
        S3_COMPRESSION_LEVEL_CONFIG,
        type=ConfigType.INT,
        default=-1,
        validator=Range.between(-1, 9),
        importance=Importance.LOW,
        documentation="Compression level for files written to S3: -1 for the default, or 0 (no "
        "compression) to 9 (best compression). Applied when using JsonFormat or ByteArrayFormat.",
        group="S3",
        order_in_group=21,
        width=Width.LONG,
        display_name="Compression Level",
    )


def record_format(config: Mapping[str, str], *, connector: str = "storage") -> RecordFormat:
    """The format `config` selects, configured by its keys (a config validated by
    `define_format_keys`); `connector` picks the defaults and the Parquet file extension."""
    # The writers are imported here: pyarrow and the Avro codec cost every worker process time and
    # memory otherwise, and a worker imports every plugin's keys.
    from kconnect_storage.formats.avro import AvroFileFormat
    from kconnect_storage.formats.lines import ByteArrayFormat, JsonLinesFormat, StringFormat
    from kconnect_storage.formats.parquet import ParquetFormat

    parsed = define_format_keys(ConfigDef(), connector=connector).parse(config)
    kind = FORMAT_CLASSES[str(parsed[FORMAT_CLASS_CONFIG]).strip()]
    gzip_level = None
    if str(parsed.get(S3_COMPRESSION_TYPE_CONFIG, "none")).strip() == "gzip":
        gzip_level = int(parsed[S3_COMPRESSION_LEVEL_CONFIG])  # type: ignore[call-overload]
    if kind == PARQUET:
        codec = PARQUET_CODECS[str(parsed[PARQUET_CODEC_CONFIG]).strip()]
        return ParquetFormat(codec, codec_in_extension=connector == "s3")
    if kind == AVRO:
        settings = AvroDataSettings(
            connect_meta_data=bool(parsed[CONNECT_META_DATA]),
            enhanced_schema_support=bool(parsed[ENHANCED_AVRO_SCHEMA_SUPPORT]),
        )
        return AvroFileFormat(str(parsed[AVRO_CODEC_CONFIG]).strip(), settings)
    if kind == JSON:
        return JsonLinesFormat(str(parsed[JSON_DECIMAL_FORMAT_CONFIG]).upper(), gzip_level)
    if kind == BYTEARRAY:
        # White space is the point of a separator: read it as given, not as parsed (which may trim).
        separator = config.get(FORMAT_BYTEARRAY_SEPARATOR_CONFIG, FORMAT_BYTEARRAY_SEPARATOR_DEFAULT)
        return ByteArrayFormat(
            str(parsed[FORMAT_BYTEARRAY_EXTENSION_CONFIG]), separator.encode("utf-8"), gzip_level
        )
    return StringFormat()
