"""ExtractField: replaces the key or value with one of its fields (nested ones with syntax V2).

A null key or value passes through. With a schema, a field the schema lacks is an error; without
one, a missing field gives null.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from kconnect.config.configdef import ConfigDef, ConfigType, Importance

from kconnect_transforms.base import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    TRANSFORMS_PACKAGE,
    R,
    Side,
    SideTransformation,
    define_replace_null_with_default,
)
from kconnect_transforms.field_path import FieldSyntaxVersion, SingleFieldPath
from kconnect_transforms.requirements import require_map_or_null, require_struct_or_null

FIELD_CONFIG = "field"

PURPOSE = "field extraction"


def _define_config() -> ConfigDef:
    config_def = ConfigDef().define(
        FIELD_CONFIG,
        type=ConfigType.STRING,
        importance=Importance.MEDIUM,
        documentation="Name (or, with field.syntax.version V2, dotted path) of the field to extract.",
    )
    return FieldSyntaxVersion.define_on(define_replace_null_with_default(config_def))


class ExtractField(SideTransformation):
    """Kafka's ExtractField: the key or value becomes one of its fields."""

    config_def: ClassVar[ConfigDef | None] = _define_config()

    def __init__(self) -> None:
        self.path = SingleFieldPath("", FieldSyntaxVersion.V1)
        self.replace_null_with_default = True

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Read the field path and its syntax version."""
        config = self.parse_config(configs)
        self.path = SingleFieldPath(str(config[FIELD_CONFIG]), FieldSyntaxVersion.from_config(config))
        self.replace_null_with_default = bool(config[REPLACE_NULL_WITH_DEFAULT_CONFIG])

    def apply(self, record: R) -> R | None:
        """The record whose key or value is the field's value (and, with a schema, the field's schema)."""
        schema = self.side.schema_of(record)
        if schema is None:
            source = require_map_or_null(self.side.value_of(record), PURPOSE)
            return self.side.replace(
                record, None, None if source is None else self.path.value_from_map(source)
            )
        struct = require_struct_or_null(self.side.value_of(record), PURPOSE)
        field = self.path.field_from(schema)
        if field is None:
            raise ValueError(f"Unknown field: {self.path.path}")
        value = (
            None if struct is None else self.path.value_from_struct(struct, self.replace_null_with_default)
        )
        return self.side.replace(record, field.schema, value)


class ExtractFieldKey(ExtractField):
    """ExtractField on the record key."""

    java_class_names = (f"{TRANSFORMS_PACKAGE}ExtractField$Key",)
    side = Side.KEY


class ExtractFieldValue(ExtractField):
    """ExtractField on the record value."""

    java_class_names = (f"{TRANSFORMS_PACKAGE}ExtractField$Value",)
    side = Side.VALUE
