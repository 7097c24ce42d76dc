"""ByteArrayConverter: bytes pass through unchanged (Kafka's ``ByteArrayConverter``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from kconnect.config.configdef import ConfigDef
from kconnect.data.schema import OPTIONAL_BYTES_SCHEMA, Schema, SchemaAndValue, Type
from kconnect.errors import DataError
from kconnect.records import Headers

from kconnect_converters import __version__, converter_config_def


class ByteArrayConverter:
    """Writes BYTES values as they are and reads any bytes as OPTIONAL_BYTES."""

    java_class_names: ClassVar[tuple[str, ...]] = ("org.apache.kafka.connect.converters.ByteArrayConverter",)
    config_def: ClassVar[ConfigDef | None] = converter_config_def()

    @classmethod
    def version(cls) -> str:
        """The plugin's version."""
        return __version__

    def configure(self, configs: Mapping[str, Any], is_key: bool | None = None) -> None:
        """Nothing to configure."""

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        """The value's bytes; the schema, when given, must be BYTES."""
        if schema is not None and schema.type is not Type.BYTES:
            raise DataError(f"Invalid schema type for ByteArrayConverter: {schema.type}")
        if value is None or type(value) is bytes:
            return value
        if isinstance(value, (bytes, bytearray, memoryview)):
            return bytes(value)
        raise DataError(f"ByteArrayConverter is not compatible with objects of type {type(value)}")

    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        """The bytes as they are, with OPTIONAL_BYTES_SCHEMA."""
        return SchemaAndValue(OPTIONAL_BYTES_SCHEMA, value)

    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        """Serialize a header value as a record value."""
        return self.from_connect_data(topic, schema, value)

    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue:
        """Deserialize a header value as a record value."""
        return self.to_connect_data(topic, value)
