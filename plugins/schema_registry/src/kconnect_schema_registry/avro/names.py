"""Names, constants and shared rules of Confluent's AvroData (kafka-connect-avro-data).

The property and parameter names Confluent's converter writes, the predicates that recognise its
Connect forms of Avro enums, unions and fixed, name scrubbing (``scrub.invalid.names``), the logical
type conversions and Avro's check of field defaults, and `AvroNames`, the naming rules both
directions of the mapping share.
"""

from __future__ import annotations

import decimal
import urllib.parse
from typing import Any

from kconnect.data import logical
from kconnect.data.schema import Schema, Type
from kconnect.errors import DataError

from kconnect_schema_registry.avro.config import AvroDataSettings
from kconnect_schema_registry.avro.schema import NO_DEFAULT, AvroSchema

NAMESPACE = "io.confluent.connect.avro"
DEFAULT_SCHEMA_NAME = "ConnectDefault"
DEFAULT_SCHEMA_FULL_NAME = f"{NAMESPACE}.{DEFAULT_SCHEMA_NAME}"
MAP_ENTRY_TYPE_NAME = "MapEntry"
KEY_FIELD = "key"
VALUE_FIELD = "value"

CONNECT_NAME_PROP = "connect.name"
CONNECT_DOC_PROP = "connect.doc"
CONNECT_RECORD_DOC_PROP = "connect.record.doc"
CONNECT_ENUM_DOC_PROP = "connect.enum.doc"
CONNECT_VERSION_PROP = "connect.version"
CONNECT_DEFAULT_VALUE_PROP = "connect.default"
CONNECT_PARAMETERS_PROP = "connect.parameters"
CONNECT_INTERNAL_TYPE_NAME = "connect.internal.type"
CONNECT_TYPE_PROP = "connect.type"
AVRO_RECORD_DOC_PROP = f"{NAMESPACE}.record.doc"
AVRO_ENUM_DOC_PREFIX_PROP = f"{NAMESPACE}.enum.doc."
AVRO_FIELD_DOC_PREFIX_PROP = f"{NAMESPACE}.field.doc."
AVRO_FIELD_DEFAULT_FLAG_PROP = f"{NAMESPACE}.field.default"
AVRO_ENUM_DEFAULT_PREFIX_PROP = f"{NAMESPACE}.enum.default."
AVRO_TYPE_UNION = f"{NAMESPACE}.Union"
AVRO_TYPE_ENUM = f"{NAMESPACE}.Enum"
AVRO_PROP = "avro"
AVRO_LOGICAL_TYPE_PROP = "logicalType"
CONNECT_AVRO_FIXED_SIZE_PROP = "connect.fixed.size"
CONNECT_AVRO_DECIMAL_PRECISION_PROP = "connect.decimal.precision"
CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT = 64

AVRO_PRIMITIVE: dict[Type, str] = {
    Type.INT8: "int",
    Type.INT16: "int",
    Type.INT32: "int",
    Type.INT64: "long",
    Type.FLOAT32: "float",
    Type.FLOAT64: "double",
    Type.BOOLEAN: "boolean",
    Type.STRING: "string",
    Type.BYTES: "bytes",
}
_UNION_FIELD_NAMES: dict[Type, str] = {**AVRO_PRIMITIVE, Type.ARRAY: "array", Type.MAP: "map"}
LOGICAL_AVRO: dict[str, str] = {
    logical.Time.LOGICAL_NAME: "time-millis",
    logical.Timestamp.LOGICAL_NAME: "timestamp-millis",
    logical.Date.LOGICAL_NAME: "date",
}
NULL_SCHEMA = AvroSchema("null")


def lower_name(name: str | None) -> str | None:
    """`name` in lower case (Confluent compares logical type names ignoring case), None stays None."""
    return name.lower() if name is not None else None


def is_union_schema(schema: Schema) -> bool:
    """Whether `schema` is Confluent's Connect form of an Avro union."""
    return schema.name == AVRO_TYPE_UNION


def is_enum_schema(schema: Schema) -> bool:
    """Whether `schema` is Confluent's Connect form of an Avro enum (a string with Enum parameters)."""
    return (
        schema.type is Type.STRING and schema.parameters is not None and AVRO_TYPE_ENUM in schema.parameters
    )


def is_fixed_schema(schema: Schema) -> bool:
    """Whether `schema` is Confluent's Connect form of an Avro fixed."""
    return (
        schema.type is Type.BYTES
        and schema.name is not None
        and schema.parameters is not None
        and CONNECT_AVRO_FIXED_SIZE_PROP in schema.parameters
    )


def string_keyed(schema: Schema, allow_optional_map_keys: bool) -> bool:
    """Whether a Connect map is an Avro map (string keys) rather than an array of MapEntry records."""
    key = schema.key_schema
    assert key is not None
    return key.type is Type.STRING and (not key.optional or allow_optional_map_keys)


def scrub_name(name: str) -> str:
    """Confluent's ``doScrubName``: a valid Avro name (URL-encoded, other characters as ``_``)."""
    if not name:
        return name
    if all(c.isascii() and (c.isalnum() or c == "_") for c in name) and not name[0].isdigit():
        return name
    encoded = urllib.parse.quote_plus(name, safe="*-._")
    if encoded[0].isdigit():
        encoded = "x" + encoded
    return "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in encoded)


def to_avro_logical(schema: Schema, value: Any) -> Any:
    """A logical value (Decimal, date, time, datetime) as its primitive; other values unchanged."""
    name = schema.name
    if value is None or name is None:
        return value
    if name == logical.Decimal.LOGICAL_NAME:
        if not isinstance(value, decimal.Decimal):
            raise DataError(f"Invalid type for Decimal, expected BigDecimal but was {type(value).__name__}")
        return logical.Decimal.from_logical(schema, value)
    if name == logical.Date.LOGICAL_NAME:
        return logical.Date.from_logical(schema, value)
    if name == logical.Time.LOGICAL_NAME:
        return logical.Time.from_logical(schema, value)
    if name == logical.Timestamp.LOGICAL_NAME:
        return logical.Timestamp.from_logical(schema, value)
    return value


def to_connect_logical(schema: Schema, value: Any) -> Any:
    """A primitive as the logical value its schema names; other values unchanged."""
    name = schema.name
    if value is None or name is None:
        return value
    if name == logical.Decimal.LOGICAL_NAME:
        return logical.Decimal.to_logical(schema, bytes(value))
    if name == logical.Date.LOGICAL_NAME:
        return logical.Date.to_logical(schema, int(value))
    if name == logical.Time.LOGICAL_NAME:
        return logical.Time.to_logical(schema, int(value))
    if name == logical.Timestamp.LOGICAL_NAME:
        return logical.Timestamp.to_logical(schema, int(value))
    return value


def is_valid_default(schema: AvroSchema, value: Any) -> bool:
    """Avro 1.12's check of a field default (a union default may match any branch)."""
    kind = schema.type
    if kind == "union":
        return any(is_valid_default(b, value) for b in schema.branches)
    if kind in ("string", "bytes", "enum", "fixed"):
        return isinstance(value, str)
    if kind in ("int", "long"):
        return isinstance(value, int) and not isinstance(value, bool)
    if kind in ("float", "double"):
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    if kind == "array":
        assert schema.element is not None
        return isinstance(value, list) and all(is_valid_default(schema.element, v) for v in value)
    if kind == "map":
        assert schema.element is not None
        return isinstance(value, dict) and all(is_valid_default(schema.element, v) for v in value.values())
    if kind == "record":
        if not isinstance(value, dict):
            return False
        for f in schema.fields:
            if f.name in value:
                member = value[f.name]
            elif f.default is not NO_DEFAULT:
                member = f.default
            else:
                return False
            if not is_valid_default(f.schema, member):
                return False
        return True
    return False


class AvroNames:
    """The naming rules of one converter's settings (the base of both mapping directions)."""

    def __init__(self, settings: AvroDataSettings | None = None) -> None:
        self.settings = settings or AvroDataSettings()

    # --- names ----------------------------------------------------------------------------------

    def scrub(self, name: str) -> str:
        """`name` made a valid Avro name when ``scrub.invalid.names`` is set, else as it is."""
        return scrub_name(name) if self.settings.scrub_invalid_names else name

    def split_name(self, full_name: str | None) -> tuple[str | None, str | None]:
        """(namespace, name) of a dotted name, each part scrubbed when ``scrub.invalid.names``."""
        if not full_name:
            return None, full_name
        parts = [self.scrub(p) for p in full_name.split(".")]
        while len(parts) > 1 and parts[-1] == "":  # Java's split drops trailing empty strings
            parts.pop()
        if len(parts) <= 1:
            return None, parts[0]
        return ".".join(parts[:-1]), parts[-1]

    def scrub_full_name(self, name: str | None) -> str | None:
        """A dotted name with each part scrubbed when ``scrub.invalid.names`` is set, else as it is."""
        if name is None or not self.settings.scrub_invalid_names:
            return name
        space, simple = self.split_name(name)
        return simple if space is None else f"{space}.{simple}"

    def _name_or_default(self, ctx: Any, name: str | None) -> tuple[str | None, str]:
        if name is not None:
            space, simple = self.split_name(name)
            return space, simple or ""
        ctx.name_index += 1
        return NAMESPACE, DEFAULT_SCHEMA_NAME + (str(ctx.name_index) if ctx.name_index > 1 else "")

    @staticmethod
    def _full(space: str | None, name: str) -> str:
        return f"{space}.{name}" if space else name

    def union_member_field_name(self, schema: Schema) -> str:
        """The Connect field name of a union member (Confluent's ``unionMemberFieldName``)."""
        if schema.type is Type.STRUCT or is_enum_schema(schema) or is_fixed_schema(schema):
            if self.settings.enhanced_schema_support:
                return self.scrub_full_name(schema.name) or ""
            return self.split_name(schema.name)[1] or ""
        return _UNION_FIELD_NAMES[schema.type]

    def avro_union_member_field_name(self, schema: AvroSchema) -> str:
        """The Connect field name of an Avro union branch."""
        if schema.is_named:
            if self.settings.enhanced_schema_support:
                return schema.full_name or ""
            return self.split_name(schema.name)[1] or ""
        return schema.type
