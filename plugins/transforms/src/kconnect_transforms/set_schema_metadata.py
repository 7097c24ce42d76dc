"""SetSchemaMetadata: sets the name and/or version of the key's or value's schema."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from kconnect.config.configdef import ConfigDef, ConfigException, ConfigType, Importance
from kconnect.data.schema import Schema, Type
from kconnect.data.struct import Struct

from kconnect_transforms.base import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    TRANSFORMS_PACKAGE,
    R,
    Side,
    SideTransformation,
    define_replace_null_with_default,
)
from kconnect_transforms.requirements import require_schema
from kconnect_transforms.schemas import fields_of

SCHEMA_NAME = "schema.name"
SCHEMA_VERSION = "schema.version"

PURPOSE = "updating schema metadata"


class SetSchemaMetadata(SideTransformation):
    """Kafka's SetSchemaMetadata: a new name or version on an otherwise unchanged schema."""

    config_def: ClassVar[ConfigDef | None] = define_replace_null_with_default(
        ConfigDef()
        .define(
            SCHEMA_NAME,
            type=ConfigType.STRING,
            default=None,
            importance=Importance.HIGH,
            documentation="The schema name to set.",
        )
        .define(
            SCHEMA_VERSION,
            type=ConfigType.INT,
            default=None,
            importance=Importance.HIGH,
            documentation="The schema version to set.",
        )
    )

    def __init__(self) -> None:
        self.schema_name: str | None = None
        self.schema_version: int | None = None
        self.replace_null_with_default = True

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Read the name and version; at least one must be set."""
        config = self.parse_config(configs)
        self.schema_name = config[SCHEMA_NAME]
        self.schema_version = config[SCHEMA_VERSION]
        self.replace_null_with_default = bool(config[REPLACE_NULL_WITH_DEFAULT_CONFIG])
        if self.schema_name is None and self.schema_version is None:
            raise ConfigException("Neither schema name nor version configured")

    def apply(self, record: R) -> R | None:
        """The record with the renamed schema; a Struct value is rebuilt on it."""
        schema = require_schema(self.side.schema_of(record), PURPOSE)
        updated = Schema(
            type=schema.type,
            optional=schema.optional,
            default_value=schema.default_value,
            name=self.schema_name if self.schema_name is not None else schema.name,
            version=self.schema_version if self.schema_version is not None else schema.version,
            doc=schema.doc,
            parameters=schema.parameters,
            fields=fields_of(schema),
            key_schema=schema.key_schema if schema.type is Type.MAP else None,
            value_schema=schema.value_schema if schema.type in (Type.MAP, Type.ARRAY) else None,
        )
        value = self.side.value_of(record)
        if isinstance(value, Struct):
            rebuilt = Struct(updated)
            for field in updated.fields:
                current = (
                    value.get(field) if self.replace_null_with_default else value.get_without_default(field)
                )
                rebuilt.put(field, current)
            value = rebuilt
        return self.side.replace(record, updated, value)


class SetSchemaMetadataKey(SetSchemaMetadata):
    """SetSchemaMetadata on the record key."""

    java_class_names = (f"{TRANSFORMS_PACKAGE}SetSchemaMetadata$Key",)
    side = Side.KEY


class SetSchemaMetadataValue(SetSchemaMetadata):
    """SetSchemaMetadata on the record value."""

    java_class_names = (f"{TRANSFORMS_PACKAGE}SetSchemaMetadata$Value",)
    side = Side.VALUE
