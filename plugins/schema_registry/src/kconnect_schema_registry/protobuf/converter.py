"""``io.confluent.connect.protobuf.ProtobufConverter``: Connect data as Protobuf in Confluent's wire format.

The converter names the class and its keys; the mapping and the codecs are the Protobuf
`SchemaFormat` (`kconnect_schema_registry.protobuf.format`), built when the converter is configured.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from kconnect.data.schema import Schema

from kconnect_schema_registry.converter import RegistryConverter
from kconnect_schema_registry.protobuf.options import ProtobufOptions, protobuf_config_def

if TYPE_CHECKING:
    from kconnect_schema_registry.client import SchemaText
    from kconnect_schema_registry.protobuf.format import ProtobufFormat
    from kconnect_schema_registry.protobuf.schema import ProtobufSchema


class ProtobufConverter(RegistryConverter["ProtobufSchema"]):
    """Confluent's ``io.confluent.connect.protobuf.ProtobufConverter``: Connect data <-> Protobuf."""

    java_class_names: ClassVar[tuple[str, ...]] = ("io.confluent.connect.protobuf.ProtobufConverter",)
    config_def = protobuf_config_def()

    def new_format(self, parsed: Mapping[str, Any], is_key: bool) -> ProtobufFormat:
        """The Protobuf format with Confluent's ProtobufDataConfig switches read from `parsed`."""
        # Imported here, as the registry client is (`RegistryConverter.configure`): protobuf's runtime
        # costs every worker process (which imports every plugin's converters) time and memory otherwise.
        from kconnect_schema_registry.protobuf.format import ProtobufFormat

        return ProtobufFormat(ProtobufOptions.from_parsed(parsed))

    def reader_connect_schema(self, topic: str, text: SchemaText, schema: ProtobufSchema) -> Schema | None:
        """The writer's Connect schema, with its subject version as Confluent's deserializer sets it."""
        from kconnect_schema_registry.protobuf.format import ProtobufFormat

        fmt, client, _ = self._ready()
        assert isinstance(fmt, ProtobufFormat)
        version = client.version_of(self.subject_for(topic, schema), text)
        return fmt.to_connect_schema(schema, version)
