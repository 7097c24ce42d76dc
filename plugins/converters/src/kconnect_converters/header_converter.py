"""SimpleHeaderConverter: Kafka's default header converter, header values as readable text."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, ClassVar

from kconnect.config.configdef import ConfigDef
from kconnect.data.schema import BYTES_SCHEMA, Schema, SchemaAndValue
from kconnect.data.values import convert_to_string, parse_string

from kconnect_converters import __version__

log = logging.getLogger(__name__)


class SimpleHeaderConverter:
    """Writes header values as text (``convert_to_string``) and parses them back with their types.

    Text that does not parse stays a STRING; bytes that are not valid UTF-8 come back as BYTES,
    as in Kafka.
    """

    java_class_names: ClassVar[tuple[str, ...]] = ("org.apache.kafka.connect.storage.SimpleHeaderConverter",)
    config_def: ClassVar[ConfigDef | None] = ConfigDef()

    @classmethod
    def version(cls) -> str:
        """The plugin's version."""
        return __version__

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Nothing to configure."""

    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        """The value's text in UTF-8; None stays None."""
        if value is None:
            return None
        text = convert_to_string(schema, value)
        return None if text is None else text.encode("utf-8")

    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue:
        """The parsed schema and value; unreadable bytes come back as BYTES."""
        if value is None:
            return SchemaAndValue.NULL
        try:
            return parse_string(bytes(value).decode("utf-8", "replace"))
        except Exception:
            log.warning(
                "Failed to deserialize value for header '%s' on topic '%s', so using byte array",
                header_key,
                topic,
                exc_info=True,
            )
            return SchemaAndValue(BYTES_SCHEMA, value)
