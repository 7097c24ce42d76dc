"""The header transformations: DropHeaders, InsertHeader and HeaderFrom.

Each returns a record with its own copy of the headers; the input record's headers are never
changed, as another branch of the chain may still hold that record.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from kconnect.config.configdef import ConfigDef, ConfigException, ConfigType, Importance
from kconnect.config.validators import NonNullValidator, ValidString
from kconnect.data.schema import Schema, SchemaAndValue, SchemaBuilder
from kconnect.data.struct import Struct
from kconnect.data.values import parse_string
from kconnect.errors import DataError
from kconnect.records import Headers

from kconnect_transforms.base import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    TRANSFORMS_PACKAGE,
    Plugin,
    R,
    Side,
    SideTransformation,
    define_replace_null_with_default,
)
from kconnect_transforms.requirements import require_map, require_struct
from kconnect_transforms.schemas import SchemaCache, copy_schema_basics
from kconnect_transforms.validators import AnyNonDuplicateValues, NonEmptyList

HEADERS_FIELD = "headers"
HEADER_FIELD = "header"
VALUE_LITERAL_FIELD = "value.literal"
FIELDS_FIELD = "fields"
OPERATION_FIELD = "operation"
MOVE_OPERATION = "move"
COPY_OPERATION = "copy"


class DropHeaders(Plugin):
    """Kafka's DropHeaders: removes every header whose key is listed."""

    java_class_names = (f"{TRANSFORMS_PACKAGE}DropHeaders",)
    config_def: ClassVar[ConfigDef | None] = ConfigDef().define(
        HEADERS_FIELD,
        type=ConfigType.LIST,
        validator=AnyNonDuplicateValues(empty_allowed=False, null_allowed=False),
        importance=Importance.HIGH,
        documentation="Keys of the headers to remove.",
    )

    def __init__(self) -> None:
        self.headers: set[str] = set()

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Read the header keys."""
        self.headers = {str(key) for key in self.parse_config(configs)[HEADERS_FIELD]}

    def apply(self, record: R) -> R | None:
        """The record without those headers."""
        kept = Headers(header for header in record.headers if header.key not in self.headers)
        return record.new_record(headers=kept)  # type: ignore[no-any-return]


class InsertHeader(Plugin):
    """Kafka's InsertHeader: adds one header whose value is a literal, parsed as Kafka parses header text."""

    java_class_names = (f"{TRANSFORMS_PACKAGE}InsertHeader",)
    config_def: ClassVar[ConfigDef | None] = (
        ConfigDef()
        .define(
            HEADER_FIELD,
            type=ConfigType.STRING,
            validator=NonNullValidator(),
            importance=Importance.HIGH,
            documentation="The key of the header to add.",
        )
        .define(
            VALUE_LITERAL_FIELD,
            type=ConfigType.STRING,
            validator=NonNullValidator(),
            importance=Importance.HIGH,
            documentation="The header's value, as text; numbers, booleans, lists and maps are parsed.",
        )
    )

    def __init__(self) -> None:
        self.header = ""
        self.literal = SchemaAndValue.NULL

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Read the header key and parse the literal value."""
        config = self.parse_config(configs)
        self.header = str(config[HEADER_FIELD])
        self.literal = parse_string(str(config[VALUE_LITERAL_FIELD]))

    def apply(self, record: R) -> R | None:
        """The record with the header appended."""
        headers = record.headers.copy().add(self.header, self.literal.value, self.literal.schema)
        return record.new_record(headers=headers)  # type: ignore[no-any-return]


def _header_from_config() -> ConfigDef:
    config_def = (
        ConfigDef()
        .define(
            FIELDS_FIELD,
            type=ConfigType.LIST,
            validator=NonEmptyList(),
            importance=Importance.HIGH,
            documentation="Fields of the key or value to copy or move into headers.",
        )
        .define(
            HEADERS_FIELD,
            type=ConfigType.LIST,
            validator=NonEmptyList(),
            importance=Importance.HIGH,
            documentation="Header keys, one per field, in the order of fields.",
        )
        .define(
            OPERATION_FIELD,
            type=ConfigType.STRING,
            validator=ValidString.in_(MOVE_OPERATION, COPY_OPERATION),
            importance=Importance.HIGH,
            documentation="move (the fields leave the key or value) or copy (they stay).",
        )
    )
    return define_replace_null_with_default(config_def)


class HeaderFrom(SideTransformation):
    """Kafka's HeaderFrom: fields of the key or value copied or moved into headers."""

    config_def: ClassVar[ConfigDef | None] = _header_from_config()

    def __init__(self) -> None:
        self.fields: list[str] = []
        self.headers: list[str] = []
        self.move = False
        self.replace_null_with_default = True
        self._schemas = SchemaCache()

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Read the fields, the header keys (as many) and the operation."""
        config = self.parse_config(configs)
        self.fields = [str(name) for name in config[FIELDS_FIELD]]
        self.headers = [str(name) for name in config[HEADERS_FIELD]]
        if len(self.fields) != len(self.headers):
            raise ConfigException(
                f"'{FIELDS_FIELD}' config must have the same number of elements as '{HEADERS_FIELD}' config."
            )
        self.move = config[OPERATION_FIELD] == MOVE_OPERATION
        self.replace_null_with_default = bool(config[REPLACE_NULL_WITH_DEFAULT_CONFIG])
        self._schemas = SchemaCache()

    @property
    def purpose(self) -> str:
        """What Kafka's messages call this operation."""
        return f"header {MOVE_OPERATION if self.move else COPY_OPERATION}"

    def _field_value(self, struct: Struct, name: str) -> Any:
        return struct.get(name) if self.replace_null_with_default else struct.get_without_default(name)

    def apply(self, record: R) -> R | None:
        """The record with the new headers (and, for move, without the fields)."""
        headers = record.headers.copy()
        schema = self.side.schema_of(record)
        value = self.side.value_of(record)
        if schema is None:
            source = require_map(value, self.purpose)
            updated = dict(source)
            for name, header in zip(self.fields, self.headers, strict=True):
                if self.move:
                    updated.pop(name, None)
                headers.add(header, source.get(name), None)
            return self.side.replace(record, None, updated).new_record(headers=headers)  # type: ignore[no-any-return]
        struct = require_struct(value, self.purpose)
        new_schema, new_value = schema, struct
        if self.move:
            new_schema = self._schemas.get(schema, self._moved_schema)
            new_value = Struct(new_schema)
            for kept in new_schema.fields:
                new_value.put(kept, self._field_value(struct, kept.name))
        for name, header in zip(self.fields, self.headers, strict=True):
            field = schema.field(name)
            if field is None:
                raise DataError(f"{name} is not a valid field name")
            headers.add(header, self._field_value(struct, name), field.schema)
        return self.side.replace(record, new_schema, new_value).new_record(headers=headers)  # type: ignore[no-any-return]

    def _moved_schema(self, schema: Schema) -> Schema:
        builder = copy_schema_basics(schema, SchemaBuilder.struct())
        for field in schema.fields:
            if field.name not in self.fields:
                builder.field(field.name, field.schema)
        return builder.build()


class HeaderFromKey(HeaderFrom):
    """HeaderFrom on the record key."""

    java_class_names = (f"{TRANSFORMS_PACKAGE}HeaderFrom$Key",)
    side = Side.KEY


class HeaderFromValue(HeaderFrom):
    """HeaderFrom on the record value."""

    java_class_names = (f"{TRANSFORMS_PACKAGE}HeaderFrom$Value",)
    side = Side.VALUE
