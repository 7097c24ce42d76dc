"""Cast: casts fields of a Struct or map, or the whole key or value, to another primitive type.

``spec`` is ``field:type`` pairs, or a single type for the whole key or value. Types are int8,
int16, int32, int64, float32, float64, boolean and string; casts come from those (by the value's
schema, or its Java class when schemaless) and from bytes, which cast to base64 text. Date, Time
and Timestamp values cast to numbers as their encoded form, and to text as Kafka formats them.
"""

from __future__ import annotations

import base64
import datetime
import decimal
from collections.abc import Mapping
from typing import Any, ClassVar

from kconnect.config.configdef import ConfigDef, ConfigException, ConfigType, Importance
from kconnect.config.rules import LambdaValidator
from kconnect.data.java_text import java_decimal_str, java_double_repr, java_float_repr, to_float32
from kconnect.data.logical import EPOCH, Date, Time, Timestamp, epoch_millis
from kconnect.data.schema import Schema, SchemaBuilder, Type
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
from kconnect_transforms.java_text import java_split
from kconnect_transforms.java_values import (
    JavaKind,
    java_kind,
    narrow_number,
    parse_java_floating,
    parse_java_integer,
)
from kconnect_transforms.requirements import require_map, require_struct
from kconnect_transforms.schemas import SchemaCache, copy_schema_basics, fields_of

SPEC_CONFIG = "spec"
WHOLE_VALUE_CAST: None = None

PURPOSE = "cast types"

SUPPORTED_INPUT = (
    Type.INT8,
    Type.INT16,
    Type.INT32,
    Type.INT64,
    Type.FLOAT32,
    Type.FLOAT64,
    Type.BOOLEAN,
    Type.STRING,
    Type.BYTES,
)
SUPPORTED_OUTPUT = SUPPORTED_INPUT[:-1]

_KIND_OF_TYPE = {
    Type.INT8: JavaKind.BYTE,
    Type.INT16: JavaKind.SHORT,
    Type.INT32: JavaKind.INTEGER,
    Type.INT64: JavaKind.LONG,
    Type.FLOAT32: JavaKind.FLOAT,
    Type.FLOAT64: JavaKind.DOUBLE,
}

_TYPE_OF_KIND = {
    JavaKind.BYTE: Type.INT8,
    JavaKind.SHORT: Type.INT16,
    JavaKind.INTEGER: Type.INT32,
    JavaKind.LONG: Type.INT64,
    JavaKind.FLOAT: Type.FLOAT32,
    JavaKind.DOUBLE: Type.FLOAT64,
    JavaKind.BOOLEAN: Type.BOOLEAN,
    JavaKind.STRING: Type.STRING,
    JavaKind.BYTES: Type.BYTES,
    JavaKind.LIST: Type.ARRAY,
    JavaKind.MAP: Type.MAP,
    JavaKind.STRUCT: Type.STRUCT,
}


def _type_list(types: tuple[Type, ...]) -> str:
    return "[" + ", ".join(t.name for t in types) + "]"


def _output_type(text: str) -> Type:
    """The target type a spec names; IllegalArgument-like ValueError for an unknown name."""
    name = text.strip().upper()
    if name not in Type.__members__:
        raise ValueError(f"No enum constant org.apache.kafka.connect.data.Schema.Type.{name}")
    target = Type[name]
    if target not in SUPPORTED_OUTPUT:
        raise ConfigException(
            f"Cast transformation does not support casting to {target.name}; supported types are "
            f"{_type_list(SUPPORTED_OUTPUT)}"
        )
    return target


def parse_field_types(mappings: list[str]) -> dict[str | None, Type]:
    """The spec as {field: type}, with the key None for a whole-value cast; ConfigException when wrong."""
    casts: dict[str | None, Type] = {}
    whole_value = False
    for mapping in mappings:
        parts = java_split(mapping, ":")
        if len(parts) > 2:
            raise ConfigException.invalid("renames", mappings, f"Invalid rename mapping: {mapping}")
        if len(parts) == 1:
            casts[WHOLE_VALUE_CAST] = _output_type(parts[0])
            whole_value = True
            continue
        try:
            target = _output_type(parts[1])
        except ValueError as e:
            if isinstance(e, ConfigException):
                raise
            # Kafka passes (message, cause) to ConfigException's (name, value) constructor.
            raise ConfigException(
                f"Invalid value java.lang.IllegalArgumentException: {e} for configuration "
                f"Invalid type found in casting spec: {parts[1].strip()}"
            ) from e
        casts[parts[0].strip()] = target
    if whole_value and len(mappings) > 1:
        raise ConfigException(
            "Cast transformations that specify a type to cast the entire value to may only specify a "
            "single cast in their spec"
        )
    return casts


def _check_spec(name: str, value: object) -> None:
    if not isinstance(value, list) or not value:
        raise ConfigException("Must specify at least one field to cast.")
    parse_field_types([str(item) for item in value])


def _builder_for(target: Type) -> SchemaBuilder:
    if target not in SUPPORTED_OUTPUT:
        raise DataError(f"Unexpected type in Cast transformation: {target.name}")
    return SchemaBuilder(target)


def _temporal_millis(value: datetime.date | datetime.time) -> int:
    if isinstance(value, datetime.datetime):
        return epoch_millis(value)
    if isinstance(value, datetime.time):
        return Time.from_logical(Time.SCHEMA, value)
    return Date.from_logical(Date.SCHEMA, value) * 86_400_000


def format_date(millis: int) -> str:
    """Kafka's ``Values.dateFormatFor(date).format(date)``: time, date or timestamp text in UTC."""
    moment = EPOCH + datetime.timedelta(milliseconds=millis)
    if millis < 86_400_000:
        return moment.strftime("%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    if millis % 86_400_000 == 0:
        return moment.strftime("%Y-%m-%d")
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _encode_logical(schema: Schema, value: Any) -> Any:
    if schema.name == Date.LOGICAL_NAME:
        return Date.from_logical(schema, value)
    if schema.name == Time.LOGICAL_NAME:
        return Time.from_logical(schema, value)
    if schema.name == Timestamp.LOGICAL_NAME:
        return Timestamp.from_logical(schema, value)
    return value


def _to_text(value: Any, kind: JavaKind) -> str:
    if isinstance(value, (datetime.date, datetime.time)):
        return format_date(_temporal_millis(value))
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return java_float_repr(value) if kind is JavaKind.FLOAT else java_double_repr(value)
    if isinstance(value, decimal.Decimal):
        return java_decimal_str(value)
    return str(value)


def _java_to_string(value: Any) -> str:
    return _to_text(value, JavaKind.DOUBLE)


def _cast(value: Any, kind: JavaKind, target: Type) -> Any:
    """One cast of an already encoded value whose Java class is `kind`."""
    if target is Type.STRING:
        return _to_text(value, kind)
    if target is Type.BOOLEAN:
        if isinstance(value, bool):
            return value
        if isinstance(value, (int, float, decimal.Decimal)):
            return narrow_number(value, JavaKind.LONG) != 0
        if isinstance(value, str):
            return value.lower() == "true"
        raise DataError(f"Unexpected type in Cast transformation: class {java_kind(value).value}")
    target_kind = _KIND_OF_TYPE[target]
    if isinstance(value, bool):
        return narrow_number(1 if value else 0, target_kind)
    if isinstance(value, (int, float, decimal.Decimal)):
        return narrow_number(value, target_kind)
    if isinstance(value, str):
        if target_kind.is_integer:
            return parse_java_integer(value, target_kind)
        return parse_java_floating(value, target_kind)
    raise DataError(f"Unexpected type in Cast transformation: class {java_kind(value).value}")


def cast_value(schema: Schema | None, value: Any, target: Type) -> Any:
    """`value` (of `schema`, or schemaless) cast to `target`, as Kafka's ``castValueToType``."""
    if value is None:
        return None
    kind = java_kind(value, schema)
    source = schema.type if schema is not None else _TYPE_OF_KIND.get(kind)
    if source is None:
        raise DataError(
            f"Cast transformation was passed a value of type class {kind.value} which is not supported "
            "by Connect's data API"
        )
    if source not in SUPPORTED_INPUT:
        raise DataError(
            f"Cast transformation does not support casting from {source.name}; supported types are "
            f"{_type_list(SUPPORTED_INPUT)}"
        )
    encoded = value
    if schema is not None and schema.name is not None and target is not Type.STRING:
        encoded = _encode_logical(schema, value)
        if encoded is not value:
            kind = JavaKind.LONG if schema.name == Timestamp.LOGICAL_NAME else JavaKind.INTEGER
    if kind is JavaKind.FLOAT and isinstance(encoded, float):
        encoded = to_float32(encoded)  # a FLOAT32 value is a 32-bit float, whatever its Python width
    try:
        return _cast(encoded, kind, target)
    except ValueError as e:
        if isinstance(e, DataError):
            raise
        raise DataError(f"Value ({_java_to_string(encoded)}) was out of range for requested data type") from e


def _define_config() -> ConfigDef:
    config_def = ConfigDef().define(
        SPEC_CONFIG,
        type=ConfigType.LIST,
        validator=LambdaValidator(
            _check_spec, "list of colon-delimited pairs, e.g. <code>foo:bar,abc:xyz</code>"
        ),
        importance=Importance.HIGH,
        documentation="field:type pairs to cast fields of a Struct or map, or one type to cast the whole "
        "key or value. Types: int8, int16, int32, int64, float32, float64, boolean, string; bytes cast "
        "only to string.",
    )
    return define_replace_null_with_default(config_def)


class Cast(SideTransformation):
    """Kafka's Cast: fields, or the whole key or value, cast to other primitive types."""

    config_def: ClassVar[ConfigDef | None] = _define_config()

    def __init__(self) -> None:
        self.casts: dict[str | None, Type] = {}
        self.whole_value_type: Type | None = None
        self.replace_null_with_default = True
        self._schemas = SchemaCache()

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Read and check the spec."""
        config = self.parse_config(configs)
        self.casts = parse_field_types([str(item) for item in config[SPEC_CONFIG]])
        self.whole_value_type = self.casts.get(WHOLE_VALUE_CAST)
        self.replace_null_with_default = bool(config[REPLACE_NULL_WITH_DEFAULT_CONFIG])
        self._schemas = SchemaCache()

    def apply(self, record: R) -> R | None:
        """The record with the casts applied; a null key or value passes through."""
        value = self.side.value_of(record)
        if value is None:
            return record
        schema = self.side.schema_of(record)
        if schema is None:
            if self.whole_value_type is not None:
                return self.side.replace(record, None, cast_value(None, value, self.whole_value_type))
            source = require_map(value, PURPOSE)
            updated = dict(source)
            for name, target in self.casts.items():
                assert name is not None
                updated[name] = cast_value(None, source.get(name), target)
            return self.side.replace(record, None, updated)
        updated_schema = self._schemas.get(schema, self._updated_schema)
        if self.whole_value_type is not None:
            return self.side.replace(record, updated_schema, cast_value(schema, value, self.whole_value_type))
        struct = require_struct(value, PURPOSE)
        result = Struct(updated_schema)
        for field in struct.schema.fields:
            current = (
                struct.get(field) if self.replace_null_with_default else struct.get_without_default(field)
            )
            cast_to = self.casts.get(field.name)
            result.put(field.name, current if cast_to is None else cast_value(field.schema, current, cast_to))
        return self.side.replace(record, updated_schema, result)

    def _updated_schema(self, schema: Schema) -> Schema:
        if self.whole_value_type is not None:
            builder = copy_schema_basics(schema, _builder_for(self.whole_value_type))
        else:
            builder = copy_schema_basics(schema, SchemaBuilder.struct())
            for field in fields_of(schema):
                target = self.casts.get(field.name)
                if target is None:
                    builder.field(field.name, field.schema)
                    continue
                field_builder = _builder_for(target)
                if field.schema.optional:
                    field_builder.optional()
                if field.schema.default_value is not None:
                    field_builder.default_value(cast_value(field.schema, field.schema.default_value, target))
                builder.field(field.name, field_builder.build())
        if schema.optional:
            builder.optional()
        if schema.default_value is not None:
            builder.default_value(cast_value(schema, schema.default_value, builder.type))
        return builder.build()


class CastKey(Cast):
    """Cast on the record key."""

    java_class_names = (f"{TRANSFORMS_PACKAGE}Cast$Key",)
    side = Side.KEY


class CastValue(Cast):
    """Cast on the record value."""

    java_class_names = (f"{TRANSFORMS_PACKAGE}Cast$Value",)
    side = Side.VALUE
