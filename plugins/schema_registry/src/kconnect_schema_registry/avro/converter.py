"""Confluent's ``io.confluent.connect.avro.AvroConverter``: Connect data as Avro in Confluent's wire format.

Writing, the record's Connect schema is mapped to Avro by Confluent's rules (`AvroMapping`), its text
(Avro's ``Schema.toString()``) registered or looked up, and the value written with fastavro's
schemaless writer. Reading uses the writer's schema from the id in the message, as Confluent's
converter does, maps it to a Connect schema (versioned with the subject's version of it when the
schema carries no ``connect.version``) and decodes with fastavro. Both directions are compiled once
per schema and cached.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from kconnect.config.configdef import ConfigDef
from kconnect.data.schema import Schema

from kconnect_schema_registry import __version__
from kconnect_schema_registry.avro.config import AvroDataSettings, avro_data_config_def
from kconnect_schema_registry.config import serde_config_def
from kconnect_schema_registry.converter import RegistryConverter

if TYPE_CHECKING:
    from kconnect_schema_registry.avro.format import AvroFormat, ParsedAvro
    from kconnect_schema_registry.client import SchemaText


class AvroConverter(RegistryConverter["ParsedAvro"]):
    """Confluent's AvroConverter (``io.confluent.connect.avro.AvroConverter``)."""

    java_class_names: ClassVar[tuple[str, ...]] = ("io.confluent.connect.avro.AvroConverter",)
    config_def: ClassVar[ConfigDef | None] = avro_data_config_def(serde_config_def())

    @classmethod
    def version(cls) -> str:
        """The plugin's version."""
        return __version__

    def new_format(self, parsed: Mapping[str, Any], is_key: bool) -> AvroFormat:
        """The Avro format with the AvroDataConfig keys of `parsed`."""
        # Imported here, as the registry client is (`RegistryConverter.configure`): fastavro and the
        # Avro codecs cost every worker process (which imports every plugin's converters) time otherwise.
        from kconnect_schema_registry.avro.format import AvroFormat

        return AvroFormat(AvroDataSettings.from_parsed(parsed))

    def reader_connect_schema(self, topic: str, text: SchemaText, schema: ParsedAvro) -> Schema | None:
        """The Connect schema read, its top level versioned with the subject's version of the writer
        schema unless it has ``connect.version`` (Confluent's deserializer asks the registry)."""
        from kconnect_schema_registry.avro.format import AvroFormat

        fmt, client, _ = self._ready()
        assert isinstance(fmt, AvroFormat)
        version = client.version_of(self.subject_for(topic, schema), text)
        return fmt.to_connect_schema_versioned(schema, version)
