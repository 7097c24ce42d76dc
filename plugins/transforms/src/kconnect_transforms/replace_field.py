"""ReplaceField: keeps, drops and renames top-level fields of a Struct or a schemaless map.

``exclude`` wins over ``include``; an empty ``include`` keeps every field not excluded.
``renames`` is a list of ``old:new`` pairs. A null key or value passes through unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from kconnect.config.configdef import ConfigDef, ConfigException, ConfigType, Importance
from kconnect.config.rules import LambdaValidator
from kconnect.data.schema import Schema, SchemaBuilder
from kconnect.data.struct import Struct

from kconnect_transforms.base import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    TRANSFORMS_PACKAGE,
    R,
    Side,
    SideTransformation,
    define_replace_null_with_default,
)
from kconnect_transforms.java_text import java_split
from kconnect_transforms.requirements import require_map, require_struct
from kconnect_transforms.schemas import SchemaCache, copy_schema_basics
from kconnect_transforms.validators import AnyNonDuplicateValues

EXCLUDE = "exclude"
INCLUDE = "include"
RENAMES = "renames"

PURPOSE = "field replacement"


def parse_rename_mappings(mappings: list[str]) -> dict[str, str]:
    """``["a:b", ...]`` as ``{"a": "b"}``; a pair not of the form ``old:new`` is a ConfigException."""
    renames: dict[str, str] = {}
    for mapping in mappings:
        parts = java_split(mapping, ":")
        if len(parts) != 2:
            raise ConfigException.invalid(RENAMES, mappings, f"Invalid rename mapping: {mapping}")
        renames[parts[0]] = parts[1]
    return renames


def _check_renames(name: str, value: object) -> None:
    if isinstance(value, list) and value:
        parse_rename_mappings([str(item) for item in value])


def _define_config() -> ConfigDef:
    config_def = ConfigDef()
    for name, what in (
        (EXCLUDE, "Fields to drop; wins over include."),
        (INCLUDE, "Fields to keep; when set, every other field is dropped."),
    ):
        config_def.define(
            name,
            type=ConfigType.LIST,
            default=[],
            validator=AnyNonDuplicateValues(empty_allowed=True, null_allowed=False),
            importance=Importance.MEDIUM,
            documentation=what,
        )
    config_def.define(
        RENAMES,
        type=ConfigType.LIST,
        default=[],
        validator=LambdaValidator(
            _check_renames, "list of colon-delimited pairs, e.g. <code>foo:bar,abc:xyz</code>"
        ),
        importance=Importance.MEDIUM,
        documentation="Renames, as old:new pairs.",
    )
    return define_replace_null_with_default(config_def)


class ReplaceField(SideTransformation):
    """Kafka's ReplaceField: filter and rename the fields of the key or value."""

    config_def: ClassVar[ConfigDef | None] = _define_config()

    def __init__(self) -> None:
        self.exclude: list[str] = []
        self.include: list[str] = []
        self.renames: dict[str, str] = {}
        self.reverse_renames: dict[str, str] = {}
        self.replace_null_with_default = True
        self._schemas = SchemaCache()

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Read the field lists and the rename pairs."""
        config = self.parse_config(configs)
        self.exclude = list(config[EXCLUDE])
        self.include = list(config[INCLUDE])
        self.renames = parse_rename_mappings(list(config[RENAMES]))
        self.reverse_renames = {new: old for old, new in self.renames.items()}
        self.replace_null_with_default = bool(config[REPLACE_NULL_WITH_DEFAULT_CONFIG])
        self._schemas = SchemaCache()

    def keeps(self, name: str) -> bool:
        """Whether the field `name` stays: not excluded, and included if there is an include list."""
        return name not in self.exclude and (not self.include or name in self.include)

    def apply(self, record: R) -> R | None:
        """The record with fields filtered and renamed; a null key or value passes through."""
        value = self.side.value_of(record)
        if value is None:
            return record
        if self.side.schema_of(record) is None:
            source = require_map(value, PURPOSE)
            updated = {self.renames.get(k, k): v for k, v in source.items() if self.keeps(k)}
            return self.side.replace(record, None, updated)
        struct = require_struct(value, PURPOSE)
        schema = self._schemas.get(struct.schema, self._updated_schema)
        result = Struct(schema)
        for field in schema.fields:
            original = self.reverse_renames.get(field.name, field.name)
            if self.replace_null_with_default:
                result.put(field.name, struct.get(original))
            else:
                result.put(field.name, struct.get_without_default(original))
        return self.side.replace(record, schema, result)

    def _updated_schema(self, schema: Schema) -> Schema:
        builder = copy_schema_basics(schema, SchemaBuilder.struct())
        for field in schema.fields:
            if self.keeps(field.name):
                builder.field(self.renames.get(field.name, field.name), field.schema)
        return builder.build()


class ReplaceFieldKey(ReplaceField):
    """ReplaceField on the record key."""

    java_class_names = (f"{TRANSFORMS_PACKAGE}ReplaceField$Key",)
    side = Side.KEY


class ReplaceFieldValue(ReplaceField):
    """ReplaceField on the record value."""

    java_class_names = (f"{TRANSFORMS_PACKAGE}ReplaceField$Value",)
    side = Side.VALUE
