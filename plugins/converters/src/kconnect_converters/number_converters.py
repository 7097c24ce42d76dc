"""Short, Integer, Long, Float, Double and Boolean converters: Kafka's fixed-width big-endian encodings.

Each writes the value as Kafka's matching serializer does (``ShortSerializer``: 2 bytes big-endian,
``FloatSerializer``: IEEE 754 single precision, ``BooleanSerializer``: one byte 0 or 1) and reads it
back with an optional schema of the type.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from typing import Any, ClassVar

from kconnect.config.configdef import ConfigDef
from kconnect.data.schema import (
    OPTIONAL_BOOLEAN_SCHEMA,
    OPTIONAL_FLOAT32_SCHEMA,
    OPTIONAL_FLOAT64_SCHEMA,
    OPTIONAL_INT16_SCHEMA,
    OPTIONAL_INT32_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    Schema,
    SchemaAndValue,
    Type,
)
from kconnect.errors import DataError
from kconnect.records import Headers

from kconnect_converters import __version__, converter_config_def


class NumberConverter:
    """Base of the fixed-width converters; subclasses set the format, the schema and Kafka's type name."""

    java_class_names: ClassVar[tuple[str, ...]] = ()
    config_def: ClassVar[ConfigDef | None] = converter_config_def()
    type_name: ClassVar[str] = ""
    schema: ClassVar[Schema]
    codec: ClassVar[struct.Struct]
    accepts: ClassVar[tuple[type, ...]] = (int,)

    @classmethod
    def version(cls) -> str:
        """The plugin's version."""
        return __version__

    def configure(self, configs: Mapping[str, Any], is_key: bool | None = None) -> None:
        """Nothing to configure beyond the converter type."""

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        """The value in the converter's width, big-endian; None stays None."""
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, self.accepts):
            raise DataError(f"Failed to serialize to {self.type_name} (was {type(value)}): ")
        try:
            return self.codec.pack(value)
        except (struct.error, OverflowError) as e:
            raise DataError(f"Failed to serialize to {self.type_name}: {e}") from e

    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        """The number the bytes hold, with the converter's optional schema."""
        if value is None:
            return SchemaAndValue(self.schema, None)
        if len(value) != self.codec.size:
            deserializer = type(self).__name__.replace("Converter", "Deserializer")
            raise DataError(
                f"Failed to deserialize {self.type_name}: Size of data received by {deserializer} "
                f"is not {self.codec.size}"
            )
        return SchemaAndValue(self.schema, self.codec.unpack(value)[0])

    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        """Serialize a header value as a record value."""
        return self.from_connect_data(topic, schema, value)

    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue:
        """Deserialize a header value as a record value."""
        return self.to_connect_data(topic, value)


class ShortConverter(NumberConverter):
    """INT16 values as 2 bytes."""

    java_class_names = ("org.apache.kafka.connect.converters.ShortConverter",)
    type_name = "short"
    schema = OPTIONAL_INT16_SCHEMA
    codec = struct.Struct(">h")


class IntegerConverter(NumberConverter):
    """INT32 values as 4 bytes."""

    java_class_names = ("org.apache.kafka.connect.converters.IntegerConverter",)
    type_name = "integer"
    schema = OPTIONAL_INT32_SCHEMA
    codec = struct.Struct(">i")


class LongConverter(NumberConverter):
    """INT64 values as 8 bytes."""

    java_class_names = ("org.apache.kafka.connect.converters.LongConverter",)
    type_name = "long"
    schema = OPTIONAL_INT64_SCHEMA
    codec = struct.Struct(">q")


class FloatConverter(NumberConverter):
    """FLOAT32 values as 4 bytes of IEEE 754."""

    java_class_names = ("org.apache.kafka.connect.converters.FloatConverter",)
    type_name = "float"
    schema = OPTIONAL_FLOAT32_SCHEMA
    codec = struct.Struct(">f")
    accepts = (float, int)


class DoubleConverter(NumberConverter):
    """FLOAT64 values as 8 bytes of IEEE 754."""

    java_class_names = ("org.apache.kafka.connect.converters.DoubleConverter",)
    type_name = "double"
    schema = OPTIONAL_FLOAT64_SCHEMA
    codec = struct.Struct(">d")
    accepts = (float, int)


class BooleanConverter(NumberConverter):
    """BOOLEAN values as one byte, 1 for true and 0 for false."""

    java_class_names = ("org.apache.kafka.connect.converters.BooleanConverter",)
    type_name = "boolean"
    schema = OPTIONAL_BOOLEAN_SCHEMA
    codec = struct.Struct(">?")

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        """One byte; the schema, when given, must be BOOLEAN."""
        if schema is not None and schema.type is not Type.BOOLEAN:
            raise DataError(f"Invalid schema type for BooleanConverter: {schema.type}")
        if value is None:
            return None
        if not isinstance(value, bool):
            raise DataError(f"BooleanConverter is not compatible with objects of type {type(value)}")
        return b"\x01" if value else b"\x00"

    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        """True for 1, False for 0."""
        if value is None:
            return SchemaAndValue(self.schema, None)
        if len(value) != 1:
            raise DataError(
                "Failed to deserialize boolean: Size of data received by BooleanDeserializer is not 1"
            )
        if value[0] not in (0, 1):
            raise DataError(
                f"Failed to deserialize boolean: Unexpected byte received by BooleanDeserializer: {value[0]}"
            )
        return SchemaAndValue(self.schema, value[0] == 1)
