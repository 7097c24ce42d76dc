"""Time zones as Joda-Time's ``DateTimeZone`` knows them, and Confluent's time bucket rule.

`zone_for_id` takes the ids ``DateTimeZone.forID`` takes (``UTC``, an IANA id, a fixed offset
``[+-]hh[:mm[:ss[.SSS]]]``) with Joda's error texts; `bucket_start` is Confluent's
``TimeBasedPartitioner.getPartition``: the instant moved to local time, cut down to a multiple of
the partition duration there (Java's integer division, which rounds towards zero), and moved back
to UTC the way Joda's non-strict ``convertLocalToUTC`` does (a local time in a DST gap lands after
it). Zone rules come from the system's tz database through `zoneinfo`.
"""

from __future__ import annotations

import datetime
import functools
import os
import re
import zoneinfo
from dataclasses import dataclass

from kconnect.errors import DataError

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
_MIN_MS = -62135596800000  # 0001-01-01T00:00Z, the first instant a Python datetime holds
_MAX_MS = 253402300799999  # 9999-12-31T23:59:59.999Z, the last one
_DIGITS = re.compile(r"[0-9]+")


@dataclass(frozen=True, slots=True)
class JodaZone:
    """A time zone with Joda's id (what pattern ``ZZZ`` prints) and its offset rules."""

    id: str
    fixed_offset_ms: int | None = None
    rules: zoneinfo.ZoneInfo | None = None

    def offset_ms(self, instant_ms: int) -> int:
        """The zone's offset from UTC at `instant_ms` (Joda's ``getOffset``)."""
        if self.rules is None:
            return self.fixed_offset_ms or 0
        try:
            # Offsets change on whole seconds, so the instant's second has the instant's offset.
            offset = datetime.datetime.fromtimestamp(instant_ms // 1000, self.rules).utcoffset()
        except (OverflowError, OSError, ValueError) as e:
            raise DataError(_outside_years(instant_ms)) from e
        return 0 if offset is None else offset // datetime.timedelta(milliseconds=1)

    def local_datetime(self, instant_ms: int) -> datetime.datetime:
        """The wall-clock date and time of `instant_ms` here, as a naive datetime."""
        return to_utc_datetime(instant_ms + self.offset_ms(instant_ms)).replace(tzinfo=None)


UTC = JodaZone("UTC", fixed_offset_ms=0)


def to_utc_datetime(instant_ms: int) -> datetime.datetime:
    """The aware UTC datetime of `instant_ms`; DataError outside the years 1 to 9999."""
    if not _MIN_MS <= instant_ms <= _MAX_MS:
        raise DataError(_outside_years(instant_ms))
    return _EPOCH + datetime.timedelta(milliseconds=instant_ms)


def _outside_years(instant_ms: int) -> str:
    return f"Timestamp {instant_ms} is outside the years 1 to 9999 that kconnect can format"


def zone_for_id(zone_id: str) -> JodaZone:
    """The zone `zone_id` names, as ``DateTimeZone.forID``; ValueError with Joda's text if none."""
    if zone_id == "UTC":
        return UTC
    if zone_id in _known_ids():
        return JodaZone(_canonical_id(zone_id), rules=zoneinfo.ZoneInfo(zone_id))
    if zone_id.startswith(("+", "-")):
        offset = _parse_offset(zone_id)
        return UTC if offset == 0 else JodaZone(print_offset(offset), fixed_offset_ms=offset)
    raise ValueError(f"The datetime zone id '{zone_id}' is not recognised")


@functools.cache
def _known_ids() -> frozenset[str]:
    # Keys of the system tz database; "localtime", "posixrules" and "Factory" are not zones to Joda.
    return frozenset(zoneinfo.available_timezones() - {"localtime", "posixrules", "Factory"})


def _canonical_id(zone_id: str) -> str:
    """The id a link (``US/Eastern``) stands for, as Joda reports it (``America/New_York``)."""
    for root in zoneinfo.TZPATH:
        path = os.path.join(root, zone_id)
        if os.path.exists(path):
            target = os.path.relpath(os.path.realpath(path), os.path.realpath(root))
            return target if target in _known_ids() else zone_id
    return zone_id


def _parse_offset(text: str) -> int:
    """Milliseconds of ``[+-]hh[:mm[:ss[.SSS]]]`` or ``[+-]hh[mm[ss[SSS]]]`` (Joda's offset parser)."""
    sign = -1 if text[0] == "-" else 1
    position = 1
    total = 0
    separated = len(text) > 3 and text[3] == ":"
    for index, (separator, width, limit, unit) in enumerate(
        (("", 2, 23, 3600000), (":", 2, 59, 60000), (":", 2, 59, 1000), (".", 3, 999, 1))
    ):
        if index > 0 and position == len(text):
            break
        if index > 0 and separated:
            if text[position] != separator:
                break
            position += 1
        digits = text[position : position + width]
        if len(digits) < width or not _DIGITS.fullmatch(digits) or int(digits) > limit:
            raise ValueError(f'Invalid format: "{text}" is malformed at "{text[position:]}"')
        total += int(digits) * unit
        position += width
    if position != len(text):
        raise ValueError(f'Invalid format: "{text}" is malformed at "{text[position:]}"')
    return sign * total


def print_offset(offset_ms: int) -> str:
    """Joda's id of a fixed offset: ``+05:30``, with ``:ss`` and ``.SSS`` only when not zero."""
    sign = "-" if offset_ms < 0 else "+"
    rest = abs(offset_ms)
    hours, rest = divmod(rest, 3600000)
    minutes, rest = divmod(rest, 60000)
    seconds, millis = divmod(rest, 1000)
    text = f"{sign}{hours:02d}:{minutes:02d}"
    if seconds or millis:
        text += f":{seconds:02d}"
        if millis:
            text += f".{millis:03d}"
    return text


def local_to_utc(zone: JodaZone, local_ms: int) -> int:
    """Joda's ``convertLocalToUTC(local, false)``: a local time in a gap maps past the gap.

    At an overlap the offset found at the local time read as UTC wins, as in Joda.
    """
    offset_local = zone.offset_ms(local_ms)
    offset = zone.offset_ms(local_ms - offset_local)
    # Joda checks for a gap only west of Greenwich: east of it the second estimate is right.
    if offset != offset_local and offset_local < 0 and zone.offset_ms(local_ms - offset) != offset:
        offset = offset_local
    return local_ms - offset


def _java_div(dividend: int, divisor: int) -> int:
    quotient = abs(dividend) // abs(divisor)
    return quotient if (dividend >= 0) == (divisor >= 0) else -quotient


def bucket_start(duration_ms: int, timestamp_ms: int, zone: JodaZone) -> int:
    """The UTC start of the partition of `timestamp_ms` (Confluent's ``getPartition``)."""
    local = timestamp_ms + zone.offset_ms(timestamp_ms)
    return local_to_utc(zone, _java_div(local, duration_ms) * duration_ms)
