"""Converters: between Connect's data (schema + value) and the bytes in Kafka."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Protocol, runtime_checkable

from kconnect.config import ConfigDef
from kconnect.data.schema import Schema, SchemaAndValue
from kconnect.records import Headers


@runtime_checkable
class Converter(Protocol):
    """Converts record keys or values (Kafka's org.apache.kafka.connect.storage.Converter).

    The task loop calls `configure` once, then `from_connect_data` for every record a source task
    produces and `to_connect_data` for every record a sink task consumes.
    """

    config_def: ClassVar[ConfigDef | None]

    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None:
        """Configure with the converter's properties (prefix stripped) for keys or values."""
        ...

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        """Serialize a Connect value to the bytes written to `topic`."""
        ...

    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        """Deserialize bytes read from `topic` into a Connect schema and value."""
        ...


@runtime_checkable
class HeaderConverter(Protocol):
    """Converts header values (Kafka's org.apache.kafka.connect.storage.HeaderConverter)."""

    config_def: ClassVar[ConfigDef | None]

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Configure with the header converter's properties (prefix stripped)."""
        ...

    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        """Serialize one header value."""
        ...

    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue:
        """Deserialize one header value."""
        ...
