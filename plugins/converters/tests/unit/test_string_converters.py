"""StringConverter, ByteArrayConverter and the number converters write what Kafka's write."""

from __future__ import annotations

import math
from typing import Any

import pytest
from kconnect.data import (
    BOOLEAN_SCHEMA,
    FLOAT32_SCHEMA,
    INT32_SCHEMA,
    OPTIONAL_BYTES_SCHEMA,
    OPTIONAL_FLOAT32_SCHEMA,
    OPTIONAL_INT16_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    SchemaAndValue,
)
from kconnect.errors import DataError
from kconnect_converters.bytearray_converter import ByteArrayConverter
from kconnect_converters.number_converters import (
    BooleanConverter,
    DoubleConverter,
    FloatConverter,
    IntegerConverter,
    LongConverter,
    NumberConverter,
    ShortConverter,
)
from kconnect_converters.plugin import CONVERTERS
from kconnect_converters.string_converter import StringConverter


def string_converter(configs: dict[str, Any] | None = None, is_key: bool = False) -> StringConverter:
    converter = StringConverter()
    converter.configure(configs or {}, is_key)
    return converter


def test_string_to_bytes() -> None:
    converter = string_converter()
    assert converter.from_connect_data("t", STRING_SCHEMA, "a string") == b"a string"
    assert converter.from_connect_data("t", BOOLEAN_SCHEMA, True) == b"true"
    assert converter.from_connect_data("t", None, 1e20) == b"1.0E20"
    assert converter.from_connect_data("t", FLOAT32_SCHEMA, 1.1) == b"1.1"
    assert converter.from_connect_data("t", None, [1, None]) == b"[1, null]"
    assert converter.from_connect_data("t", OPTIONAL_STRING_SCHEMA, None) is None


def test_bytes_to_string() -> None:
    assert string_converter().to_connect_data("t", b"a string") == SchemaAndValue(
        OPTIONAL_STRING_SCHEMA, "a string"
    )
    assert string_converter().to_connect_data("t", None) == SchemaAndValue(OPTIONAL_STRING_SCHEMA, None)


def test_utf16_as_java_writes_it() -> None:
    converter = string_converter({"converter.encoding": "UTF-16"}, is_key=True)
    # Java's UTF-16 writes a big-endian byte-order mark
    assert converter.from_connect_data("t", STRING_SCHEMA, "ab") == b"\xfe\xff\x00a\x00b"
    assert converter.to_connect_data("t", b"\xfe\xff\x00a\x00b").value == "ab"
    assert converter.to_connect_data("t", b"\x00a").value == "a"


def test_serializer_encoding_overrides_per_side() -> None:
    converter = string_converter({"value.serializer.encoding": "ISO-8859-1"})
    assert converter.from_connect_data("t", STRING_SCHEMA, "é") == b"\xe9"
    assert converter.to_connect_data("t", "é".encode()).value == "é"


def test_unknown_encoding_is_a_config_error() -> None:
    from kconnect.config.configdef import ConfigException

    with pytest.raises(ConfigException, match="Unsupported encoding nope"):
        string_converter({"converter.encoding": "nope"})


def test_bytearray_converter() -> None:
    converter = ByteArrayConverter()
    assert converter.from_connect_data("t", None, b"\x01") == b"\x01"
    assert converter.from_connect_data("t", None, bytearray(b"\x01")) == b"\x01"
    assert converter.to_connect_data("t", b"\x01") == SchemaAndValue(OPTIONAL_BYTES_SCHEMA, b"\x01")
    with pytest.raises(DataError, match="Invalid schema type for ByteArrayConverter: INT32"):
        converter.from_connect_data("t", INT32_SCHEMA, b"\x01")
    with pytest.raises(DataError, match="ByteArrayConverter is not compatible with objects of type"):
        converter.from_connect_data("t", None, "x")


@pytest.mark.parametrize(
    ("converter", "value", "raw"),
    [
        (ShortConverter(), 1, b"\x00\x01"),
        (ShortConverter(), -2, b"\xff\xfe"),
        (IntegerConverter(), 256, b"\x00\x00\x01\x00"),
        (LongConverter(), -1, b"\xff" * 8),
        (FloatConverter(), 1.5, b"\x3f\xc0\x00\x00"),
        (DoubleConverter(), 1.5, b"\x3f\xf8\x00\x00\x00\x00\x00\x00"),
        (BooleanConverter(), True, b"\x01"),
        (BooleanConverter(), False, b"\x00"),
    ],
)
def test_numbers_big_endian(converter: NumberConverter, value: Any, raw: bytes) -> None:
    assert converter.from_connect_data("t", None, value) == raw
    back = converter.to_connect_data("t", raw)
    assert back.value == value and back.schema is converter.schema


def test_number_schemas_and_errors() -> None:
    assert ShortConverter.schema == OPTIONAL_INT16_SCHEMA
    assert LongConverter.schema == OPTIONAL_INT64_SCHEMA
    assert FloatConverter.schema == OPTIONAL_FLOAT32_SCHEMA
    assert ShortConverter().from_connect_data("t", None, None) is None
    assert ShortConverter().to_connect_data("t", None).value is None
    with pytest.raises(DataError, match="Failed to serialize to short"):
        ShortConverter().from_connect_data("t", None, 70000)
    with pytest.raises(DataError, match="Size of data received by IntegerDeserializer is not 4"):
        IntegerConverter().to_connect_data("t", b"\x00")
    with pytest.raises(DataError, match="Failed to serialize to long"):
        LongConverter().from_connect_data("t", None, "1")
    assert math.isnan(
        DoubleConverter()
        .to_connect_data("t", DoubleConverter().from_connect_data("t", None, math.nan) or b"")
        .value
    )


def test_every_converter_declares_its_java_name_and_version() -> None:
    for cls in CONVERTERS:
        assert cls.java_class_names and cls.java_class_names[0].startswith("org.apache.kafka.connect.")
        assert cls.version() == "0.1.0"
