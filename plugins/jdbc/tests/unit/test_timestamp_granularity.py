"""timestamp.granularity: the schema and value a Timestamp column gets under each of Confluent's values."""

from __future__ import annotations

import datetime
import zoneinfo

import pytest
from kconnect.data import schema as s
from kconnect.data.logical import Timestamp
from kconnect_jdbc.source.config import SOURCE_CONFIG_DEF, SourceSettings
from kconnect_jdbc.source.granularity import timestamp_field
from kconnect_jdbc.source.querier import RowMapper

PARIS = zoneinfo.ZoneInfo("Europe/Paris")
#: 2024-05-01 14:00:00.123456 in Paris (UTC+2).
INSTANT = datetime.datetime(2024, 5, 1, 12, 0, 0, 123456, tzinfo=datetime.timezone.utc)


@pytest.mark.parametrize(
    ("granularity", "schema", "value"),
    [
        ("micros_long", s.INT64_SCHEMA, 1714564800123456),
        ("micros_string", s.STRING_SCHEMA, "1714564800123456"),
        ("micros_iso_datetime_string", s.STRING_SCHEMA, "2024-05-01T14:00:00.123456"),
        ("nanos_long", s.INT64_SCHEMA, 1714564800123456000),
        ("NANOS_STRING", s.STRING_SCHEMA, "1714564800123456000"),
        ("nanos_iso_datetime_string", s.STRING_SCHEMA, "2024-05-01T14:00:00.123456000"),
    ],
)
def test_each_granularity_renders_the_instant(granularity: str, schema: s.Schema, value: object) -> None:
    field = timestamp_field(granularity, False, PARIS)
    assert field is not None
    assert field[0] == schema
    assert field[1](INSTANT) == value
    assert field[1](None) is None
    optional = timestamp_field(granularity, True, PARIS)
    assert optional is not None and optional[0].optional and optional[0].type is schema.type


def test_before_the_epoch_and_connect_logical() -> None:
    before = datetime.datetime(1969, 12, 31, 23, 59, 59, 500000, tzinfo=datetime.timezone.utc)
    field = timestamp_field("nanos_long", True, PARIS)
    assert field is not None and field[1](before) == -500_000_000
    assert timestamp_field("connect_logical", True, PARIS) is None


def test_row_mapper_applies_it_to_timestamp_columns_whatever_the_driver_returned() -> None:
    columns = [("id", s.INT64_SCHEMA), ("at", Timestamp.builder().optional().build())]
    mapper = RowMapper("t", columns, "Europe/Paris", "nanos_string")
    assert [f.schema for f in mapper.schema.fields] == [s.INT64_SCHEMA, s.OPTIONAL_STRING_SCHEMA]
    # SQLite hands DATETIME columns over as text: still converted, not passed through as a string
    structs = mapper.to_structs([(1, "2024-05-01 14:00:00.123456"), (2, None)])
    assert [x.values() for x in structs] == [[1, "1714564800123456000"], [2, None]]
    logical = RowMapper("t", columns, "Europe/Paris").to_structs([(1, "2024-05-01 14:00:00.123456")])
    assert logical[0].values() == [1, INSTANT]


def test_the_key_takes_confluents_values_only() -> None:
    assert SOURCE_CONFIG_DEF.config_keys["timestamp.granularity"].default == "connect_logical"
    values = SOURCE_CONFIG_DEF.validate({"timestamp.granularity": "millis_long"})
    assert (
        values["timestamp.granularity"]
        .errors[0]
        .startswith(
            "Invalid value millis_long for configuration timestamp.granularity: String must be one of: "
            "connect_logical, micros_long"
        )
    )
    parsed = SourceSettings.parse(
        {"connection.url": "jdbc:sqlite:x.db", "timestamp.granularity": "Nanos_Long"}
    )
    assert parsed.timestamp_granularity == "nanos_long"
