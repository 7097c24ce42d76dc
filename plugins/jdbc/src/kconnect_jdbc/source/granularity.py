"""``timestamp.granularity``: how the source's timestamp columns appear in records (pure).

Confluent's ``TimestampGranularity``: ``connect_logical`` (the default) keeps the Connect Timestamp
logical type (milliseconds); the others keep the column's full precision as epoch microseconds or
nanoseconds (an INT64, or its decimal text) or as an ISO date-time text without zone,
``yyyy-MM-ddTHH:mm:ss.SSSSSS`` / ``.SSSSSSSSS``, in ``db.timezone``. Python's datetimes hold
microseconds, which is every precision PostgreSQL, MariaDB and SQLite store, so the nanosecond forms
end in ``000``. Only the record changes: the offsets stay ``{"timestamp": ms, "timestamp_nanos": n}``,
as Confluent's do whatever the granularity.

`RowMapper` calls `timestamp_field` for each Timestamp column of a table or query.
"""

from __future__ import annotations

import datetime
import zoneinfo
from collections.abc import Callable
from typing import Any

from kconnect.data import schema as s
from kconnect.data.schema import Schema

CONNECT_LOGICAL = "connect_logical"
#: Confluent's ``timestamp.granularity`` values.
GRANULARITIES = (
    CONNECT_LOGICAL,
    "micros_long",
    "micros_string",
    "micros_iso_datetime_string",
    "nanos_long",
    "nanos_string",
    "nanos_iso_datetime_string",
)

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def epoch_micros(value: datetime.datetime) -> int:
    """Microseconds from the epoch to the aware datetime `value`."""
    delta = value - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def _iso(value: datetime.datetime, zone: zoneinfo.ZoneInfo, nanos: bool) -> str:
    local = value.astimezone(zone)
    fraction = f"{local.microsecond:06d}" + ("000" if nanos else "")
    return (
        f"{local.year:04d}-{local.month:02d}-{local.day:02d}T"
        f"{local.hour:02d}:{local.minute:02d}:{local.second:02d}.{fraction}"
    )


_LONG = (s.INT64_SCHEMA, s.OPTIONAL_INT64_SCHEMA)
_STRING = (s.STRING_SCHEMA, s.OPTIONAL_STRING_SCHEMA)

#: Each granularity but connect_logical: its (required, optional) schemas and its rendering.
_FORMATS: dict[str, tuple[tuple[Schema, Schema], Callable[[datetime.datetime, zoneinfo.ZoneInfo], Any]]] = {
    "micros_long": (_LONG, lambda v, z: epoch_micros(v)),
    "micros_string": (_STRING, lambda v, z: str(epoch_micros(v))),
    "micros_iso_datetime_string": (_STRING, lambda v, z: _iso(v, z, nanos=False)),
    "nanos_long": (_LONG, lambda v, z: epoch_micros(v) * 1000),
    "nanos_string": (_STRING, lambda v, z: str(epoch_micros(v) * 1000)),
    "nanos_iso_datetime_string": (_STRING, lambda v, z: _iso(v, z, nanos=True)),
}


def timestamp_field(
    granularity: str, optional: bool, zone: zoneinfo.ZoneInfo
) -> tuple[Schema, Callable[[datetime.datetime | None], Any]] | None:
    """The schema and the value function of a Timestamp column under `granularity`.

    The function takes the column's value as an aware UTC datetime (or None). None for
    ``connect_logical``: the Timestamp logical type stays.
    """
    entry = _FORMATS.get(granularity.lower())
    if entry is None:
        return None
    (required, optional_schema), render = entry
    return (
        optional_schema if optional else required,
        lambda value: None if value is None else render(value, zone),
    )
