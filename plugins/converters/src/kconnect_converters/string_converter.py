"""StringConverter: values as text in a configurable character set (Kafka's ``StringConverter``)."""

from __future__ import annotations

import codecs
from collections.abc import Mapping
from typing import Any, ClassVar

from kconnect.config.configdef import ConfigDef, ConfigException, ConfigType, Importance
from kconnect.data.schema import OPTIONAL_STRING_SCHEMA, Schema, SchemaAndValue
from kconnect.data.values import java_to_string
from kconnect.errors import DataError
from kconnect.records import Headers

from kconnect_converters import __version__, converter_config_def, converter_type

ENCODING_CONFIG = "converter.encoding"

_BOMS = {"utf-16": codecs.BOM_UTF16_BE}


def python_codec(java_name: str) -> str:
    """The Python codec for a Java charset name; raises ConfigException naming an unknown one.

    Java's ``UTF-16`` writes a big-endian byte-order mark and reads big-endian without one,
    unlike Python's ``utf-16``, so it maps to ``utf-16-be`` plus the mark; ``UTF-32`` is big-endian.
    """
    try:
        name = codecs.lookup(java_name).name
    except LookupError as e:
        raise ConfigException(f"Unsupported encoding {java_name}") from e
    return {"utf-16": "utf-16", "utf-32": "utf-32-be"}.get(name, name)


class StringConverter:
    """Writes any value as its text (``str`` as is, others as Java's ``toString``); reads OPTIONAL_STRING.

    ``converter.encoding`` (default UTF-8) picks the character set; ``key.serializer.encoding``,
    ``value.deserializer.encoding`` and friends override it per direction, as in Kafka.
    """

    java_class_names: ClassVar[tuple[str, ...]] = ("org.apache.kafka.connect.storage.StringConverter",)
    config_def: ClassVar[ConfigDef | None] = converter_config_def().define(
        ENCODING_CONFIG,
        type=ConfigType.STRING,
        default="UTF-8",
        importance=Importance.HIGH,
        documentation="The name of the Java character set to use for encoding strings as byte arrays.",
        display_name="Encoding",
    )

    def __init__(self) -> None:
        self._encoding = "utf-8"
        self._decoding = "utf-8"

    @classmethod
    def version(cls) -> str:
        """The plugin's version."""
        return __version__

    def configure(self, configs: Mapping[str, Any], is_key: bool | None = None) -> None:
        """Pick the encodings; `is_key` None means a header converter."""
        assert self.config_def is not None
        kind = converter_type(configs, is_key)
        parsed = self.config_def.parse({**configs, "converter.type": kind})
        encoding = str(parsed[ENCODING_CONFIG])
        side = "key" if kind == "key" else "value"
        self._encoding = python_codec(str(configs.get(f"{side}.serializer.encoding") or encoding))
        self._decoding = python_codec(str(configs.get(f"{side}.deserializer.encoding") or encoding))

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        """The value's text, encoded; None stays None."""
        if value is None:
            return None
        text = java_to_string(value, schema)
        if self._encoding == "utf-8":
            return text.encode("utf-8", "replace")
        if self._encoding == "utf-16":
            return codecs.BOM_UTF16_BE + text.encode("utf-16-be", "replace")
        return text.encode(self._encoding, "replace")

    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        """The decoded text with OPTIONAL_STRING_SCHEMA (None for None)."""
        if value is None:
            return SchemaAndValue(OPTIONAL_STRING_SCHEMA, None)
        data = bytes(value)
        try:
            if self._decoding == "utf-16":
                # Java reads a byte-order mark if present, else big-endian.
                if data[:2] in (codecs.BOM_UTF16_BE, codecs.BOM_UTF16_LE):
                    return SchemaAndValue(OPTIONAL_STRING_SCHEMA, data.decode("utf-16", "replace"))
                return SchemaAndValue(OPTIONAL_STRING_SCHEMA, data.decode("utf-16-be", "replace"))
            return SchemaAndValue(OPTIONAL_STRING_SCHEMA, data.decode(self._decoding, "replace"))
        except (UnicodeError, LookupError) as e:
            raise DataError(f"Failed to deserialize string: {e}") from e

    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        """Serialize a header value as a record value."""
        return self.from_connect_data(topic, schema, value)

    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue:
        """Deserialize a header value as a record value."""
        return self.to_connect_data(topic, value)
