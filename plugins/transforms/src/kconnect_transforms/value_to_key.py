"""ValueToKey: replaces the key with a Struct or map of some of the value's fields."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from kconnect.config.configdef import ConfigDef, ConfigType, Importance
from kconnect.data.schema import Schema, SchemaBuilder
from kconnect.data.struct import Struct
from kconnect.errors import DataError

from kconnect_transforms.base import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    TRANSFORMS_PACKAGE,
    Plugin,
    R,
    define_replace_null_with_default,
)
from kconnect_transforms.requirements import require_map, require_struct
from kconnect_transforms.schemas import SchemaCache
from kconnect_transforms.validators import AnyNonDuplicateValues

FIELDS_CONFIG = "fields"

PURPOSE = "copying fields from value to key"


class ValueToKey(Plugin):
    """Kafka's ValueToKey: the key becomes the listed fields of the value, in the listed order."""

    java_class_names = (f"{TRANSFORMS_PACKAGE}ValueToKey",)
    config_def: ClassVar[ConfigDef | None] = define_replace_null_with_default(
        ConfigDef().define(
            FIELDS_CONFIG,
            type=ConfigType.LIST,
            validator=AnyNonDuplicateValues(empty_allowed=False, null_allowed=False),
            importance=Importance.HIGH,
            documentation="Fields of the value that form the new key.",
        )
    )

    def __init__(self) -> None:
        self.fields: list[str] = []
        self.replace_null_with_default = True
        self._schemas = SchemaCache()

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Read the field list."""
        config = self.parse_config(configs)
        self.fields = [str(name) for name in config[FIELDS_CONFIG]]
        self.replace_null_with_default = bool(config[REPLACE_NULL_WITH_DEFAULT_CONFIG])
        self._schemas = SchemaCache()

    def apply(self, record: R) -> R | None:
        """The record with its new key (and key schema, when the value has one)."""
        if record.value_schema is None:
            value = require_map(record.value, PURPOSE)
            key = {name: value.get(name) for name in self.fields}
            return record.new_record(key_schema=None, key=key)  # type: ignore[no-any-return]
        struct = require_struct(record.value, PURPOSE)
        key_schema = self._schemas.get(struct.schema, self._key_schema)
        key_struct = Struct(key_schema)
        for name in self.fields:
            key_struct.put(
                name, struct.get(name) if self.replace_null_with_default else struct.get_without_default(name)
            )
        return record.new_record(key_schema=key_schema, key=key_struct)  # type: ignore[no-any-return]

    def _key_schema(self, schema: Schema) -> Schema:
        builder = SchemaBuilder.struct()
        for name in self.fields:
            field = schema.field(name)
            if field is None:
                raise DataError(f"Field does not exist: {name}")
            builder.field(name, field.schema)
        return builder.build()
