"""MaskField: replaces fields with an empty value of their type, or with a configured replacement.

Numbers become 0, booleans false, strings "", lists and maps empty, dates the epoch. With
``replacement`` set, numeric and string fields take that text converted to their type instead.
"""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Mapping
from typing import Any, ClassVar

from kconnect.config.configdef import ConfigDef, ConfigType, Importance
from kconnect.config.validators import NonEmptyString
from kconnect.data.logical import EPOCH, EPOCH_DATE
from kconnect.data.schema import Schema
from kconnect.data.struct import Struct
from kconnect.errors import DataError

from kconnect_transforms.base import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    TRANSFORMS_PACKAGE,
    R,
    Side,
    SideTransformation,
    define_replace_null_with_default,
)
from kconnect_transforms.java_values import JavaKind, java_kind, number_from_text
from kconnect_transforms.requirements import require_map, require_struct
from kconnect_transforms.validators import AnyNonDuplicateValues

FIELDS_CONFIG = "fields"
REPLACEMENT_CONFIG = "replacement"

PURPOSE = "mask fields"

_NUMERIC = (JavaKind.BYTE, JavaKind.SHORT, JavaKind.INTEGER, JavaKind.LONG, JavaKind.FLOAT, JavaKind.DOUBLE)


def _empty_of(value: Any, kind: JavaKind) -> Any:
    if kind is JavaKind.BOOLEAN:
        return False
    if kind.is_integer:
        return 0
    if kind in (JavaKind.FLOAT, JavaKind.DOUBLE):
        return 0.0
    if kind is JavaKind.BIG_DECIMAL:
        return decimal.Decimal(0)
    if kind is JavaKind.STRING:
        return ""
    if kind is JavaKind.DATE:
        if isinstance(value, datetime.datetime):
            return EPOCH
        if isinstance(value, datetime.time):
            return datetime.time(0)
        return EPOCH_DATE
    if kind is JavaKind.LIST:
        return []
    if kind is JavaKind.MAP:
        return {}
    raise DataError(f"Cannot mask value of type: class {kind.value}")


def _replacement_of(kind: JavaKind, replacement: str) -> Any:
    if kind in _NUMERIC:
        return number_from_text(replacement, kind)
    if kind is JavaKind.STRING:
        return replacement
    if kind is JavaKind.BIG_DECIMAL:
        try:
            return decimal.Decimal(replacement)
        except decimal.InvalidOperation as e:
            raise DataError(f"Unable to convert {replacement} (class java.lang.String) to number") from e
    raise DataError(f"Cannot mask value of type class {kind.value} with custom replacement.")


class MaskField(SideTransformation):
    """Kafka's MaskField: the listed fields of the key or value masked."""

    config_def: ClassVar[ConfigDef | None] = define_replace_null_with_default(
        ConfigDef()
        .define(
            FIELDS_CONFIG,
            type=ConfigType.LIST,
            validator=AnyNonDuplicateValues(empty_allowed=False, null_allowed=False),
            importance=Importance.HIGH,
            documentation="Fields to mask.",
        )
        .define(
            REPLACEMENT_CONFIG,
            type=ConfigType.STRING,
            default=None,
            validator=NonEmptyString(),
            importance=Importance.LOW,
            documentation="Text that replaces every masked numeric or string field, converted to its type.",
        )
    )

    def __init__(self) -> None:
        self.fields: set[str] = set()
        self.replacement: str | None = None
        self.replace_null_with_default = True

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Read the fields and the replacement."""
        config = self.parse_config(configs)
        self.fields = {str(name) for name in config[FIELDS_CONFIG]}
        self.replacement = config[REPLACEMENT_CONFIG]
        self.replace_null_with_default = bool(config[REPLACE_NULL_WITH_DEFAULT_CONFIG])

    def masked(self, value: Any, schema: Schema | None) -> Any:
        """The masked form of one value (None stays None)."""
        if value is None:
            return None
        kind = java_kind(value, schema)
        return _empty_of(value, kind) if self.replacement is None else _replacement_of(kind, self.replacement)

    def apply(self, record: R) -> R | None:
        """The record with the fields masked."""
        if self.side.schema_of(record) is None:
            source = require_map(self.side.value_of(record), PURPOSE)
            updated = dict(source)
            for name in self.fields:
                updated[name] = self.masked(source.get(name), None)
            return self.side.replace(record, None, updated)
        struct = require_struct(self.side.value_of(record), PURPOSE)
        result = Struct(struct.schema)
        for field in struct.schema.fields:
            current = (
                struct.get(field) if self.replace_null_with_default else struct.get_without_default(field)
            )
            result.put(field, self.masked(current, field.schema) if field.name in self.fields else current)
        return self.side.replace(record, struct.schema, result)


class MaskFieldKey(MaskField):
    """MaskField on the record key."""

    java_class_names = (f"{TRANSFORMS_PACKAGE}MaskField$Key",)
    side = Side.KEY


class MaskFieldValue(MaskField):
    """MaskField on the record value."""

    java_class_names = (f"{TRANSFORMS_PACKAGE}MaskField$Value",)
    side = Side.VALUE
