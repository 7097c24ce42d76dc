"""TimestampConverter: converts a timestamp between text, Unix time and Connect's Date, Time, Timestamp.

``target.type`` is ``string`` (formatted with ``format``, a Java date pattern, in UTC), ``unix``
(a number in ``unix.precision``), ``Date``, ``Time`` or ``Timestamp``. ``field`` names the field
holding the timestamp, or is empty when the whole key or value is the timestamp. The source type
comes from the schema (a logical type, STRING or INT64), or from the value when schemaless.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, ClassVar

from kconnect.config.configdef import ConfigDef, ConfigException, ConfigType, Importance
from kconnect.config.validators import ValidString
from kconnect.data.logical import EPOCH, EPOCH_DATE, MILLIS_PER_DAY, Date, Time, Timestamp, epoch_millis
from kconnect.data.schema import (
    INT64_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    Schema,
    SchemaBuilder,
    Type,
)
from kconnect.data.struct import Struct
from kconnect.errors import ConnectError, DataError

from kconnect_transforms.base import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    TRANSFORMS_PACKAGE,
    R,
    Side,
    SideTransformation,
    define_replace_null_with_default,
)
from kconnect_transforms.requirements import java_class_name, require_map, require_struct_or_null
from kconnect_transforms.schemas import SchemaCache, copy_schema_basics, fields_of
from kconnect_transforms.simple_date_format import SimpleDateFormat

FIELD_CONFIG = "field"
TARGET_TYPE_CONFIG = "target.type"
FORMAT_CONFIG = "format"
UNIX_PRECISION_CONFIG = "unix.precision"

TYPE_STRING, TYPE_UNIX, TYPE_DATE, TYPE_TIME, TYPE_TIMESTAMP = "string", "unix", "Date", "Time", "Timestamp"
PRECISIONS = ("nanoseconds", "microseconds", "milliseconds", "seconds")

PURPOSE = "converting timestamp formats"

_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1

_SCHEMAS = {
    TYPE_STRING: (STRING_SCHEMA, OPTIONAL_STRING_SCHEMA),
    TYPE_UNIX: (INT64_SCHEMA, OPTIONAL_INT64_SCHEMA),
    TYPE_DATE: (Date.SCHEMA, Date.builder().optional().build()),
    TYPE_TIME: (Time.SCHEMA, Time.builder().optional().build()),
    TYPE_TIMESTAMP: (Timestamp.SCHEMA, Timestamp.builder().optional().build()),
}


def _truncating_div(a: int, b: int) -> int:
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b > 0) else -quotient


def _saturating(number: int) -> int:
    return max(_LONG_MIN, min(_LONG_MAX, number))


def _define_config() -> ConfigDef:
    config_def = (
        ConfigDef()
        .define(
            FIELD_CONFIG,
            type=ConfigType.STRING,
            default="",
            importance=Importance.HIGH,
            documentation="The field holding the timestamp; empty when the whole key or value is one.",
        )
        .define(
            TARGET_TYPE_CONFIG,
            type=ConfigType.STRING,
            validator=ValidString.in_(TYPE_STRING, TYPE_UNIX, TYPE_DATE, TYPE_TIME, TYPE_TIMESTAMP),
            importance=Importance.HIGH,
            documentation="What to convert to: string, unix, Date, Time or Timestamp.",
        )
        .define(
            FORMAT_CONFIG,
            type=ConfigType.STRING,
            default="",
            importance=Importance.MEDIUM,
            documentation="A java.text.SimpleDateFormat pattern, for reading or writing string timestamps.",
        )
        .define(
            UNIX_PRECISION_CONFIG,
            type=ConfigType.STRING,
            default="milliseconds",
            validator=ValidString.in_(*PRECISIONS),
            importance=Importance.LOW,
            documentation="The unit of unix timestamps: seconds, milliseconds, microseconds or nanoseconds.",
        )
    )
    return define_replace_null_with_default(config_def)


class TimestampConverter(SideTransformation):
    """Kafka's TimestampConverter on a field, or on the whole key or value."""

    config_def: ClassVar[ConfigDef | None] = _define_config()

    def __init__(self) -> None:
        self.field = ""
        self.target = TYPE_TIMESTAMP
        self.format: SimpleDateFormat | None = None
        self.precision = "milliseconds"
        self.replace_null_with_default = True
        self._schemas = SchemaCache()

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Read the config; a string target needs a format, and a format must be a valid pattern."""
        config = self.parse_config(configs)
        self.field = str(config[FIELD_CONFIG])
        self.target = str(config[TARGET_TYPE_CONFIG])
        pattern = str(config[FORMAT_CONFIG])
        self.precision = str(config[UNIX_PRECISION_CONFIG])
        self.replace_null_with_default = bool(config[REPLACE_NULL_WITH_DEFAULT_CONFIG])
        self._schemas = SchemaCache()
        if self.target == TYPE_STRING and not pattern.strip():
            raise ConfigException(
                "TimestampConverter requires format option to be specified when using string timestamps"
            )
        self.format = None
        if pattern.strip():
            try:
                self.format = SimpleDateFormat(pattern)
            except ValueError as e:
                # Kafka passes (message, cause) to ConfigException's (name, value) constructor.
                raise ConfigException(
                    f"Invalid value java.lang.IllegalArgumentException: {e} for configuration "
                    "TimestampConverter requires a SimpleDateFormat-compatible pattern for string "
                    f"timestamps: {pattern}"
                ) from e

    # --- the timestamp types, each read into and written from epoch milliseconds ------------------

    def _to_millis(self, kind: str, value: Any) -> int:
        if kind == TYPE_STRING:
            assert self.format is not None
            try:
                return self.format.parse_millis(str(value))
            except ValueError as e:
                raise DataError(
                    f"Could not parse timestamp: value ({value}) does not match pattern "
                    f"({self.format.pattern})"
                ) from e
        if kind == TYPE_UNIX:
            number = int(value)
            if self.precision == "seconds":
                return _saturating(number * 1000)
            if self.precision == "microseconds":
                return _truncating_div(number, 1000)
            if self.precision == "nanoseconds":
                return _truncating_div(number, 1_000_000)
            return number
        if not isinstance(value, (datetime.date, datetime.time)):
            found = java_class_name(value)
            raise DataError(f"Expected {kind} to be a java.util.Date, but found class {found}")
        if isinstance(value, datetime.datetime):
            return epoch_millis(value)
        if isinstance(value, datetime.time):
            return Time.from_logical(Time.SCHEMA, value)
        return Date.from_logical(Date.SCHEMA, value) * MILLIS_PER_DAY

    def _from_millis(self, millis: int) -> Any:
        if self.target == TYPE_STRING:
            assert self.format is not None
            return self.format.format_millis(millis)
        if self.target == TYPE_UNIX:
            if self.precision == "seconds":
                return _truncating_div(millis, 1000)
            if self.precision == "microseconds":
                return _saturating(millis * 1000)
            if self.precision == "nanoseconds":
                return _saturating(millis * 1_000_000)
            return millis
        if self.target == TYPE_DATE:
            return EPOCH_DATE + datetime.timedelta(days=millis // MILLIS_PER_DAY)
        if self.target == TYPE_TIME:
            return Time.to_logical(Time.SCHEMA, millis % MILLIS_PER_DAY)
        return EPOCH + datetime.timedelta(milliseconds=millis)

    def convert(self, value: Any, kind: str | None) -> Any:
        """`value`, of timestamp type `kind` (None: inferred from the value), as the target type."""
        if value is None:
            return None
        if kind is None:
            if isinstance(value, (datetime.date, datetime.time)):
                kind = TYPE_TIMESTAMP
            elif isinstance(value, int) and not isinstance(value, bool):
                kind = TYPE_UNIX
            elif isinstance(value, str):
                kind = TYPE_STRING
            else:
                found = java_class_name(value)
                raise DataError(f"TimestampConverter does not support class {found} objects as timestamps")
        return self._from_millis(self._to_millis(kind, value))

    @staticmethod
    def kind_of(schema: Schema) -> str:
        """The timestamp type a schema holds: its logical type, else STRING text or INT64 Unix time."""
        by_name = {
            Timestamp.LOGICAL_NAME: TYPE_TIMESTAMP,
            Date.LOGICAL_NAME: TYPE_DATE,
            Time.LOGICAL_NAME: TYPE_TIME,
        }
        if schema.name in by_name:
            return by_name[schema.name]
        if schema.type is Type.STRING:
            return TYPE_STRING
        if schema.type is Type.INT64:
            return TYPE_UNIX
        raise ConnectError(f"Schema {schema} does not correspond to a known timestamp type format")

    def _target_schema(self, optional: bool) -> Schema:
        required, optional_schema = _SCHEMAS[self.target]
        return optional_schema if optional else required

    # --- the record -----------------------------------------------------------------------------

    def apply(self, record: R) -> R | None:
        """The record with the timestamp converted."""
        schema = self.side.schema_of(record)
        value = self.side.value_of(record)
        if schema is None:
            if value is None or not self.field:
                return self.side.replace(record, None, self.convert(value, None))
            updated = dict(require_map(value, PURPOSE))
            updated[self.field] = self.convert(updated.get(self.field), None)
            return self.side.replace(record, None, updated)
        if not self.field:
            return self.side.replace(
                record, self._target_schema(schema.optional), self.convert(value, self.kind_of(schema))
            )
        struct = require_struct_or_null(value, PURPOSE)
        new_schema = self._schemas.get(schema, self._updated_schema)
        return self.side.replace(record, new_schema, self._convert_struct(struct, new_schema))

    def _updated_schema(self, schema: Schema) -> Schema:
        builder = copy_schema_basics(schema, SchemaBuilder.struct())
        for field in fields_of(schema):
            if field.name == self.field:
                builder.field(field.name, self._target_schema(field.schema.optional))
            else:
                builder.field(field.name, field.schema)
        if schema.optional:
            builder.optional()
        if isinstance(schema.default_value, Struct):
            builder.default_value(self._convert_struct(schema.default_value, builder.build()))
        return builder.build()

    def _convert_struct(self, struct: Struct | None, schema: Schema) -> Struct | None:
        if struct is None:
            return None
        result = Struct(schema)
        for field in struct.schema.fields:
            current = (
                struct.get(field) if self.replace_null_with_default else struct.get_without_default(field)
            )
            if field.name == self.field:
                current = self.convert(current, self.kind_of(field.schema))
            result.put(field.name, current)
        return result


class TimestampConverterKey(TimestampConverter):
    """TimestampConverter on the record key."""

    java_class_names = (f"{TRANSFORMS_PACKAGE}TimestampConverter$Key",)
    side = Side.KEY


class TimestampConverterValue(TimestampConverter):
    """TimestampConverter on the record value."""

    java_class_names = (f"{TRANSFORMS_PACKAGE}TimestampConverter$Value",)
    side = Side.VALUE
