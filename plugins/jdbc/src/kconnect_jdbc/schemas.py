"""Columns to Connect schemas, and row values to Connect values (pure; no database here).

`column_schema` maps a reflected SQLAlchemy column type to a Connect schema as Confluent's
``GenericDatabaseDialect.addFieldToSchema`` does, ``numeric.mapping`` included; `value_converter`
gives the function that turns a driver's value into the value of that schema (Decimals rescaled,
naive timestamps read in ``db.timezone``, MySQL TIME's timedelta as a time of day).
"""

from __future__ import annotations

import datetime
import decimal
import zoneinfo
from collections.abc import Callable
from typing import Any

from kconnect.data import schema as s
from kconnect.data.logical import Date, Decimal, Time, Timestamp
from kconnect.data.schema import Schema, SchemaBuilder, Type
from sqlalchemy import types as sqltypes

ValueConverter = Callable[[Any], Any]

_INT_BY_PRECISION = ((3, Type.INT8), (5, Type.INT16), (10, Type.INT32), (19, Type.INT64))
_FLOAT64_MAX_PRECISION = 19


def _builder(connect_type: Type) -> SchemaBuilder:
    return SchemaBuilder.of_type(connect_type)


def numeric_schema(precision: int | None, scale: int | None, mapping: str) -> SchemaBuilder:
    """The builder of a NUMERIC(precision, scale) column under ``numeric.mapping`` `mapping`.

    Unconstrained NUMERIC (no precision) has no fixed scale, which Connect's Decimal needs: it
    maps to FLOAT64 (see docs/jdbc.md).
    """
    if precision is None or precision <= 0:
        return _builder(Type.FLOAT64)
    scale = scale or 0
    if mapping in ("precision_only", "best_fit", "best_fit_eager_double") and scale == 0:
        for limit, connect_type in _INT_BY_PRECISION:
            if precision < limit:
                return _builder(connect_type)
    if mapping == "best_fit_eager_double" and scale > 0:
        return _builder(Type.FLOAT64)
    if mapping == "best_fit" and scale > 0 and precision < _FLOAT64_MAX_PRECISION:
        return _builder(Type.FLOAT64)
    return Decimal.builder(scale)


def column_schema(
    column_type: sqltypes.TypeEngine[Any],
    *,
    optional: bool,
    numeric_mapping: str = "none",
    int_override: Callable[[str], Schema | None] | None = None,
) -> Schema | None:
    """The Connect schema of a reflected column, or None when its type has no Connect equivalent."""
    builder = _type_builder(column_type, numeric_mapping, int_override)
    if builder is None:
        return None
    return builder.optional().build() if optional else builder.build()


def _type_builder(
    column_type: sqltypes.TypeEngine[Any],
    numeric_mapping: str,
    int_override: Callable[[str], Schema | None] | None,
) -> SchemaBuilder | None:
    type_name = type(column_type).__name__.upper()
    if isinstance(column_type, sqltypes.Boolean):
        return SchemaBuilder.bool()
    if isinstance(column_type, sqltypes.Integer):
        override = int_override(type_name) if int_override else None
        if override is not None:
            return _builder(override.type)
        if "TINYINT" in type_name:
            return SchemaBuilder.int8()
        if isinstance(column_type, sqltypes.SmallInteger):
            return SchemaBuilder.int16()
        if isinstance(column_type, sqltypes.BigInteger):
            return SchemaBuilder.int64()
        return SchemaBuilder.int32()
    if isinstance(column_type, sqltypes.Float):
        if type_name == "REAL" or (column_type.precision is not None and column_type.precision <= 24):
            return SchemaBuilder.float32()
        return SchemaBuilder.float64()
    if isinstance(column_type, sqltypes.Numeric):
        return numeric_schema(column_type.precision, column_type.scale, numeric_mapping)
    if isinstance(column_type, sqltypes.DateTime):
        return Timestamp.builder()
    if isinstance(column_type, sqltypes.Date):
        return Date.builder()
    if isinstance(column_type, sqltypes.Time):
        return Time.builder()
    if isinstance(column_type, sqltypes._Binary):
        return SchemaBuilder.bytes()
    if isinstance(column_type, (sqltypes.String, sqltypes.Enum, sqltypes.JSON, sqltypes.Uuid)):
        return SchemaBuilder.string()
    if type_name in ("INET", "CIDR", "MACADDR", "INTERVAL", "XML", "TSVECTOR", "MONEY"):
        return SchemaBuilder.string()
    return None


def schema_of_python_value(value: Any) -> Schema | None:
    """An optional schema for a value of unknown column type (SQLite custom queries)."""
    if value is None or isinstance(value, str):
        return s.OPTIONAL_STRING_SCHEMA
    if isinstance(value, bool):
        return s.OPTIONAL_BOOLEAN_SCHEMA
    if isinstance(value, int):
        return s.OPTIONAL_INT64_SCHEMA
    if isinstance(value, float):
        return s.OPTIONAL_FLOAT64_SCHEMA
    if isinstance(value, (bytes, bytearray, memoryview)):
        return s.OPTIONAL_BYTES_SCHEMA
    if isinstance(value, decimal.Decimal):
        return s.OPTIONAL_FLOAT64_SCHEMA
    if isinstance(value, datetime.datetime):
        return Timestamp.builder().optional().build()
    if isinstance(value, datetime.date):
        return Date.builder().optional().build()
    if isinstance(value, datetime.time):
        return Time.builder().optional().build()
    return None


def value_converter(schema: Schema, time_zone: str) -> ValueConverter:
    """The function turning a driver value of a column into the value of `schema`."""
    zone = zoneinfo.ZoneInfo(time_zone)
    if schema.name == Decimal.LOGICAL_NAME:
        exponent = decimal.Decimal(1).scaleb(-Decimal.scale(schema))
        return lambda v: None if v is None else decimal.Decimal(v).quantize(exponent)
    if schema.name == Timestamp.LOGICAL_NAME:
        return lambda v: None if v is None else to_utc_timestamp(v, zone)
    if schema.name == Date.LOGICAL_NAME:
        return lambda v: None if v is None else _date(v)
    if schema.name == Time.LOGICAL_NAME:
        return lambda v: None if v is None else _time(v)
    if schema.type in (Type.INT8, Type.INT16, Type.INT32, Type.INT64):
        return lambda v: None if v is None else int(v)
    if schema.type in (Type.FLOAT32, Type.FLOAT64):
        return lambda v: None if v is None else float(v)
    if schema.type is Type.BOOLEAN:
        return lambda v: None if v is None else bool(v)
    if schema.type is Type.BYTES:
        return lambda v: None if v is None else bytes(v)
    if schema.type is Type.STRING:
        return lambda v: v if v is None or isinstance(v, str) else _text(v)
    return lambda v: v


def _text(value: Any) -> str:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", "replace")
    if isinstance(value, (dict, list)):
        import json

        return json.dumps(value, separators=(",", ":"))
    return str(value)


def to_utc_timestamp(value: Any, zone: zoneinfo.ZoneInfo) -> datetime.datetime:
    """A driver's timestamp value as an aware UTC datetime (naive values are times of `zone`)."""
    if isinstance(value, str):
        value = datetime.datetime.fromisoformat(value)
    if isinstance(value, datetime.date) and not isinstance(value, datetime.datetime):
        value = datetime.datetime.combine(value, datetime.time())
    if value.tzinfo is None:
        value = value.replace(tzinfo=zone)
    return value.astimezone(datetime.timezone.utc)  # type: ignore[no-any-return]


def _date(value: Any) -> datetime.date:
    if isinstance(value, datetime.datetime):
        return value.date()
    if isinstance(value, str):
        return datetime.date.fromisoformat(value)
    return value  # type: ignore[no-any-return]


def _time(value: Any) -> datetime.time:
    if isinstance(value, datetime.timedelta):
        micros = int(value.total_seconds() * 1_000_000) % 86_400_000_000
        return (datetime.datetime.min + datetime.timedelta(microseconds=micros)).time()
    if isinstance(value, str):
        return datetime.time.fromisoformat(value)
    return value  # type: ignore[no-any-return]


def generic_column_type(schema: Schema) -> sqltypes.TypeEngine[Any]:
    """The SQL type a table created for a field of `schema` gets (Confluent's generic ``getSqlType``)."""
    if schema.name == Decimal.LOGICAL_NAME:
        return sqltypes.Numeric(None, Decimal.scale(schema), asdecimal=True)
    if schema.name == Date.LOGICAL_NAME:
        return sqltypes.Date()
    if schema.name == Time.LOGICAL_NAME:
        return sqltypes.Time()
    if schema.name == Timestamp.LOGICAL_NAME:
        return sqltypes.DateTime()
    simple: dict[Type, sqltypes.TypeEngine[Any]] = {
        Type.INT8: sqltypes.SmallInteger(),
        Type.INT16: sqltypes.SmallInteger(),
        Type.INT32: sqltypes.Integer(),
        Type.INT64: sqltypes.BigInteger(),
        Type.FLOAT32: sqltypes.REAL(),
        Type.FLOAT64: sqltypes.Double(),
        Type.BOOLEAN: sqltypes.Boolean(),
        Type.STRING: sqltypes.Text(),
        Type.BYTES: sqltypes.LargeBinary(),
    }
    if schema.type not in simple:
        from kconnect.errors import ConnectError

        raise ConnectError(f"Unsupported type for column value: {schema.type}")
    return simple[schema.type]
