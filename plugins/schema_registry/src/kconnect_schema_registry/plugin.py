"""Registers the registry-backed converters with kconnect (entry point ``schema_registry``)."""

from __future__ import annotations

from kconnect import hookimpl
from kconnect.plugin_host import PluginRegistry

from kconnect_schema_registry.avro.converter import AvroConverter
from kconnect_schema_registry.json_schema.converter import JsonSchemaConverter
from kconnect_schema_registry.protobuf.converter import ProtobufConverter

#: The converters this plugin adds, each under Confluent's class name and its short name.
CONVERTERS: tuple[type, ...] = (AvroConverter, JsonSchemaConverter, ProtobufConverter)


@hookimpl
def register_converters(registry: PluginRegistry) -> None:
    """Add each converter under Confluent's class name and its short name (``AvroConverter``)."""
    for cls in CONVERTERS:
        registry.add(cls, aliases=(cls.__name__,))
