"""Confluent's JsonSchemaConverter: Connect data as JSON with its JSON Schema in the registry.

The converter names the class and its keys; the mapping and the codecs are the JSON Schema
`SchemaFormat` (`kconnect_schema_registry.json_schema.format`), built when the converter is configured.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from kconnect.config.configdef import ConfigDef
from kconnect.data.schema import Schema
from kconnect_schema_registry.config import serde_config_def
from kconnect_schema_registry.converter import RegistryConverter
from kconnect_schema_registry.json_schema.config import (
    SCHEMAS_CACHE_SIZE,
    json_schema_config_def,
    options_from_parsed,
)

if TYPE_CHECKING:
    from kconnect_schema_registry.client import SchemaText
    from kconnect_schema_registry.json_schema.format import JsonSchemaDoc, JsonSchemaFormat


class JsonSchemaConverter(RegistryConverter["JsonSchemaDoc"]):
    """Confluent's ``io.confluent.connect.json.JsonSchemaConverter``."""

    java_class_names: ClassVar[tuple[str, ...]] = ("io.confluent.connect.json.JsonSchemaConverter",)
    config_def: ClassVar[ConfigDef | None] = json_schema_config_def(serde_config_def())

    def new_format(self, parsed: Mapping[str, Any], is_key: bool) -> JsonSchemaFormat:
        """The format with the JsonSchemaDataConfig options of `parsed`."""
        # Imported here, as the registry client is (`RegistryConverter.configure`): jsonschema costs
        # every worker process (which imports every plugin's converters) time and memory otherwise.
        from kconnect_schema_registry.json_schema.format import JsonSchemaFormat

        return JsonSchemaFormat(options_from_parsed(parsed), max(1, int(parsed[SCHEMAS_CACHE_SIZE])))

    def writes_null(self, schema: Schema | None) -> bool:
        """Confluent writes a null with a default as the default and a null optional as JSON ``null``.

        Only a null without schema, or of a required schema without default, is a tombstone.
        """
        if schema is None:
            return False
        from kconnect_schema_registry.json_schema.format import JsonSchemaFormat

        fmt = self._ready()[0]
        assert isinstance(fmt, JsonSchemaFormat)
        uses_default = schema.default_value is not None and not fmt.options.ignore_default_for_nullables
        return uses_default or schema.optional

    def reader_connect_schema(self, topic: str, text: SchemaText, schema: JsonSchemaDoc) -> Schema | None:
        """The writer's Connect schema, with its subject version as Confluent's deserializer sets it."""
        from kconnect_schema_registry.json_schema.format import JsonSchemaFormat

        fmt, client, _ = self._ready()
        assert isinstance(fmt, JsonSchemaFormat)
        version = client.version_of(self.subject_for(topic, schema), text)
        return fmt.to_connect_schema(schema, version)
