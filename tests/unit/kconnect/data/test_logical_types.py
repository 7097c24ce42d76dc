"""Decimal, Date, Time and Timestamp convert to the primitives Kafka writes."""

from __future__ import annotations

import datetime as dt
import decimal

import pytest
from kconnect.data import INT32_SCHEMA, Date, Decimal, Time, Timestamp
from kconnect.data.logical import to_twos_complement
from kconnect.errors import DataError

UTC = dt.timezone.utc


def test_schemas() -> None:
    schema = Decimal.schema(2)
    assert schema.name == "org.apache.kafka.connect.data.Decimal"
    assert schema.parameters == {"scale": "2"} and schema.version == 1
    assert Date.SCHEMA.name == "org.apache.kafka.connect.data.Date" and Date.SCHEMA.type.value == "int32"
    assert Time.SCHEMA.name == "org.apache.kafka.connect.data.Time"
    assert Timestamp.SCHEMA.type.value == "int64"
    assert Date.builder().optional().build().optional


@pytest.mark.parametrize(
    ("number", "raw"),
    [
        (0, b"\x00"),
        (127, b"\x7f"),
        (128, b"\x00\x80"),
        (-1, b"\xff"),
        (-128, b"\x80"),
        (-129, b"\xff\x7f"),
        (102345, b"\x01\x8f\xc9"),
        (-15, b"\xf1"),
    ],
)
def test_twos_complement_matches_java(number: int, raw: bytes) -> None:
    assert to_twos_complement(number) == raw


@pytest.mark.parametrize(
    ("text", "scale"), [("10.2345", 4), ("-1.5", 1), ("0.00", 2), ("123456789012345678901234567890", 0)]
)
def test_decimal_round_trip(text: str, scale: int) -> None:
    schema = Decimal.schema(scale)
    value = decimal.Decimal(text)
    back = Decimal.to_logical(schema, Decimal.from_logical(schema, value))
    assert back == value and back.as_tuple().exponent == -scale


def test_decimal_scale_must_match() -> None:
    with pytest.raises(DataError, match=r"Schema has scale 2, value has scale 1\."):
        Decimal.from_logical(Decimal.schema(2), decimal.Decimal("1.5"))
    with pytest.raises(DataError, match="scale parameter not found"):
        Decimal.from_logical(INT32_SCHEMA, decimal.Decimal("1"))


def test_date() -> None:
    assert Date.from_logical(Date.SCHEMA, dt.date(1970, 1, 11)) == 10
    assert Date.from_logical(Date.SCHEMA, dt.datetime(1969, 12, 31, tzinfo=UTC)) == -1
    assert Date.to_logical(Date.SCHEMA, 10000) == dt.date(1997, 5, 19)
    with pytest.raises(DataError, match="should not have any time fields"):
        Date.from_logical(Date.SCHEMA, dt.datetime(2020, 1, 1, 1))
    with pytest.raises(DataError, match="schema does not match"):
        Date.from_logical(INT32_SCHEMA, dt.date(2020, 1, 1))


def test_time() -> None:
    assert Time.from_logical(Time.SCHEMA, dt.time(14, 0, 0, 5000)) == 50400005
    assert Time.to_logical(Time.SCHEMA, 50400005) == dt.time(14, 0, 0, 5000)
    assert Time.from_logical(Time.SCHEMA, dt.time(1, 0, tzinfo=dt.timezone(dt.timedelta(hours=1)))) == 0
    with pytest.raises(DataError, match="Time values must use number of milliseconds"):
        Time.to_logical(Time.SCHEMA, -1)


def test_timestamp() -> None:
    moment = dt.datetime(2023, 11, 14, 22, 13, 20, 123000, tzinfo=UTC)
    assert Timestamp.from_logical(Timestamp.SCHEMA, moment) == 1700000000123
    assert Timestamp.from_logical(Timestamp.SCHEMA, moment.replace(tzinfo=None)) == 1700000000123
    assert Timestamp.to_logical(Timestamp.SCHEMA, 1700000000123) == moment
    assert Timestamp.from_logical(Timestamp.SCHEMA, dt.datetime(1969, 12, 31, 23, 59, 59, 999500)) == -1
