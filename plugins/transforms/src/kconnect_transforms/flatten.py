"""Flatten: nested Structs or maps become top-level fields named by their path (``a.b.c``).

The delimiter between path steps is ``delimiter`` (``.`` by default). With a schema, a field
nested in an optional Struct becomes optional, and defaults of parent Structs carry down. A null
key or value passes through (with a schema, its schema is still flattened).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from kconnect.config.configdef import ConfigDef, ConfigType, Importance
from kconnect.data.schema import Schema, SchemaBuilder, Type
from kconnect.data.struct import Struct
from kconnect.errors import DataError

from kconnect_transforms.base import TRANSFORMS_PACKAGE, R, Side, SideTransformation
from kconnect_transforms.java_values import JavaKind, java_kind
from kconnect_transforms.requirements import require_map, require_struct_or_null
from kconnect_transforms.schemas import SchemaCache, copy_schema_basics

DELIMITER_CONFIG = "delimiter"
DELIMITER_DEFAULT = "."

PURPOSE = "flattening"

_KEPT_SCHEMALESS = (
    JavaKind.BYTE,
    JavaKind.SHORT,
    JavaKind.INTEGER,
    JavaKind.LONG,
    JavaKind.FLOAT,
    JavaKind.DOUBLE,
    JavaKind.BOOLEAN,
    JavaKind.STRING,
    JavaKind.BYTES,
    JavaKind.LIST,
)


class Flatten(SideTransformation):
    """Kafka's Flatten: nested fields of the key or value lifted to the top level."""

    config_def: ClassVar[ConfigDef | None] = ConfigDef().define(
        DELIMITER_CONFIG,
        type=ConfigType.STRING,
        default=DELIMITER_DEFAULT,
        importance=Importance.MEDIUM,
        documentation="Text placed between the names of a field's path in the new field name.",
    )

    def __init__(self) -> None:
        self.delimiter = DELIMITER_DEFAULT
        self._schemas = SchemaCache()

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Read the delimiter."""
        self.delimiter = str(self.parse_config(configs)[DELIMITER_CONFIG])
        self._schemas = SchemaCache()

    def _name(self, prefix: str, name: str) -> str:
        return name if not prefix else prefix + self.delimiter + name

    def apply(self, record: R) -> R | None:
        """The record with its key or value flattened."""
        value = self.side.value_of(record)
        if value is None:
            return record
        schema = self.side.schema_of(record)
        if schema is None:
            flat: dict[str, Any] = {}
            self._flatten_map(require_map(value, PURPOSE), "", flat)
            return self.side.replace(record, None, flat)
        struct = require_struct_or_null(value, PURPOSE)
        updated = self._schemas.get(schema, self._flat_schema)
        if struct is None:
            return self.side.replace(record, updated, None)
        result = Struct(updated)
        self._flatten_struct(struct, "", result)
        return self.side.replace(record, updated, result)

    def _flatten_map(self, source: Mapping[str, Any], prefix: str, out: dict[str, Any]) -> None:
        for key, value in source.items():
            name = self._name(prefix, key)
            if value is None:
                out[name] = None
                continue
            kind = java_kind(value)
            if kind in _KEPT_SCHEMALESS:
                out[name] = value
            elif kind is JavaKind.MAP:
                self._flatten_map(require_map(value, PURPOSE), name, out)
            elif kind is JavaKind.STRUCT:
                raise DataError(
                    f"Flatten transformation does not support class {kind.value} for record without "
                    f"schemas (for field {name})."
                )
            else:
                raise DataError(
                    f"Flatten transformation was passed a value of type class {kind.value} which is not "
                    "supported by Connect's data API"
                )

    def _flat_schema(self, schema: Schema) -> Schema:
        builder = copy_schema_basics(schema, SchemaBuilder.struct())
        default = schema.default_value if isinstance(schema.default_value, Struct) else None
        self._add_fields(schema, "", builder, schema.optional, default)
        return builder.build()

    def _add_fields(
        self,
        schema: Schema,
        prefix: str,
        builder: SchemaBuilder,
        optional: bool,
        parent_default: Struct | None,
    ) -> None:
        for field in schema.fields:
            name = self._name(prefix, field.name)
            field_optional = optional or field.schema.optional
            default: Any = field.schema.default_value
            if default is None and parent_default is not None:
                default = parent_default.get(field)
            if field.schema.type is Type.STRUCT:
                self._add_fields(
                    field.schema,
                    name,
                    builder,
                    field_optional,
                    default if isinstance(default, Struct) else None,
                )
                continue
            if field.schema.type is Type.MAP:
                raise DataError(
                    f"Flatten transformation does not support {field.schema.type} for record with schemas "
                    f"(for field {name})."
                )
            field_builder = copy_schema_basics(field.schema)
            if field_optional:
                field_builder.optional()
            if default is not None:
                field_builder.default_value(default)
            builder.field(name, field_builder.build())

    def _flatten_struct(self, struct: Struct | None, prefix: str, out: Struct) -> None:
        if struct is None:
            return
        for field in struct.schema.fields:
            name = self._name(prefix, field.name)
            if field.schema.type is Type.STRUCT:
                self._flatten_struct(struct.get(field), name, out)
            else:
                out.put(name, struct.get(field))


class FlattenKey(Flatten):
    """Flatten on the record key."""

    java_class_names = (f"{TRANSFORMS_PACKAGE}Flatten$Key",)
    side = Side.KEY


class FlattenValue(Flatten):
    """Flatten on the record value."""

    java_class_names = (f"{TRANSFORMS_PACKAGE}Flatten$Value",)
    side = Side.VALUE
