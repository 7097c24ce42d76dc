"""HoistField: wraps the key or value in a Struct (with a schema) or a map (without) of one field."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from kconnect.config.configdef import ConfigDef, ConfigType, Importance
from kconnect.data.schema import Schema, SchemaBuilder
from kconnect.data.struct import Struct

from kconnect_transforms.base import TRANSFORMS_PACKAGE, R, Side, SideTransformation
from kconnect_transforms.schemas import SchemaCache

FIELD_CONFIG = "field"


class HoistField(SideTransformation):
    """Kafka's HoistField: the key or value becomes the only field of a new Struct or map."""

    config_def: ClassVar[ConfigDef | None] = ConfigDef().define(
        FIELD_CONFIG,
        type=ConfigType.STRING,
        importance=Importance.MEDIUM,
        documentation="Name of the one field of the Struct or map that wraps the key or value.",
    )

    def __init__(self) -> None:
        self.field_name = ""
        self._schemas = SchemaCache()

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Read the field name."""
        self.field_name = str(self.parse_config(configs)[FIELD_CONFIG])
        self._schemas = SchemaCache()

    def apply(self, record: R) -> R | None:
        """The record with its key or value wrapped."""
        schema = self.side.schema_of(record)
        value = self.side.value_of(record)
        if schema is None:
            return self.side.replace(record, None, {self.field_name: value})
        wrapper = self._schemas.get(schema, self._wrapper_schema)
        return self.side.replace(record, wrapper, Struct(wrapper).put(self.field_name, value))

    def _wrapper_schema(self, schema: Schema) -> Schema:
        return SchemaBuilder.struct().field(self.field_name, schema).build()


class HoistFieldKey(HoistField):
    """HoistField on the record key."""

    java_class_names = (f"{TRANSFORMS_PACKAGE}HoistField$Key",)
    side = Side.KEY


class HoistFieldValue(HoistField):
    """HoistField on the record value."""

    java_class_names = (f"{TRANSFORMS_PACKAGE}HoistField$Value",)
    side = Side.VALUE
