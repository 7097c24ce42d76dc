"""Column types to Connect schemas (numeric.mapping included) and driver values to Connect values."""

from __future__ import annotations

import datetime
import decimal

import pytest
from kconnect.data.logical import Decimal, Timestamp
from kconnect.data.schema import Type
from kconnect_jdbc.schemas import column_schema, numeric_schema, value_converter
from sqlalchemy import types as t
from sqlalchemy.dialects import mysql, postgresql


@pytest.mark.parametrize(
    ("precision", "scale", "mapping", "expected"),
    [
        (10, 2, "none", (Type.BYTES, 2)),
        (4, 0, "none", (Type.BYTES, 0)),
        (2, 0, "precision_only", (Type.INT8, None)),
        (4, 0, "precision_only", (Type.INT16, None)),
        (9, 0, "precision_only", (Type.INT32, None)),
        (18, 0, "precision_only", (Type.INT64, None)),
        (19, 0, "precision_only", (Type.BYTES, 0)),
        (10, 2, "precision_only", (Type.BYTES, 2)),
        (10, 2, "best_fit", (Type.FLOAT64, None)),
        (20, 2, "best_fit", (Type.BYTES, 2)),
        (20, 2, "best_fit_eager_double", (Type.FLOAT64, None)),
        (None, None, "none", (Type.FLOAT64, None)),
    ],
)
def test_numeric_mapping(
    precision: int | None, scale: int | None, mapping: str, expected: tuple[Type, int | None]
) -> None:
    schema = numeric_schema(precision, scale, mapping).build()
    scale_of = Decimal.scale(schema) if schema.name == Decimal.LOGICAL_NAME else None
    assert (schema.type, scale_of) == expected


@pytest.mark.parametrize(
    ("column_type", "expected"),
    [
        (t.SmallInteger(), Type.INT16),
        (t.Integer(), Type.INT32),
        (t.BigInteger(), Type.INT64),
        (mysql.TINYINT(), Type.INT8),
        (postgresql.REAL(), Type.FLOAT32),
        (postgresql.DOUBLE_PRECISION(), Type.FLOAT64),
        (t.Boolean(), Type.BOOLEAN),
        (t.Text(), Type.STRING),
        (t.String(20), Type.STRING),
        (postgresql.BYTEA(), Type.BYTES),
        (postgresql.UUID(), Type.STRING),
        (postgresql.JSONB(), Type.STRING),
    ],
)
def test_column_types(column_type: t.TypeEngine[object], expected: Type) -> None:
    schema = column_schema(column_type, optional=True)
    assert schema is not None and schema.type is expected and schema.optional


def test_unsupported_types_have_no_schema() -> None:
    assert column_schema(postgresql.ARRAY(t.Integer()), optional=True) is None


def test_naive_timestamps_are_read_in_the_db_time_zone() -> None:
    convert = value_converter(Timestamp.builder().build(), "Europe/Paris")
    assert convert(datetime.datetime(2024, 7, 1, 12, 0)) == datetime.datetime(
        2024, 7, 1, 10, 0, tzinfo=datetime.timezone.utc
    )


def test_decimals_take_the_schema_scale_and_mysql_times_become_times() -> None:
    assert value_converter(Decimal.schema(2), "UTC")(decimal.Decimal("1.5")) == decimal.Decimal("1.50")
    from kconnect.data.logical import Time

    convert = value_converter(Time.builder().build(), "UTC")
    assert convert(datetime.timedelta(hours=13, minutes=5, seconds=1)) == datetime.time(13, 5, 1)
