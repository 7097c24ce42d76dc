"""ISO-8601 date-times as Joda's ``ISODateTimeFormat.dateTimeParser()`` reads them, to epoch millis.

The RecordField timestamp extractor parses string fields with it. Accepted, as in Joda: a date
(``2017-07-14``, ``2017-07``, ``2017``, ordinal ``2017-195``, week ``2017-W28-5``; one or two
digit month and day, a signed year of up to 9 digits), optionally followed by ``T``, a time
(``HH[:mm[:ss]]``, the last part with a ``.`` or ``,`` fraction) and an offset (``Z`` or
``+hh[:mm[:ss[.SSS]]]``), or a time alone after ``T`` (on 1970-01-01). Where Joda takes the
JVM's default time zone for a value without offset, kconnect takes UTC (the zone Confluent's
images run in).
"""

from __future__ import annotations

import re

_DATE = (
    r"(?P<year>[+-]?[0-9]{1,9})"
    r"(?:-(?:(?P<ordinal>[0-9]{3})(?![0-9-])"
    r"|W(?P<week>[0-9]{1,2})(?:-(?P<weekday>[0-9]))?"
    r"|(?P<month>[0-9]{1,2})(?:-(?P<day>[0-9]{1,2}))?))?"
)
_TIME = (
    r"(?P<hour>[0-9]{1,2})(?:[.,](?P<hour_fraction>[0-9]{1,9})"
    r"|:(?P<minute>[0-9]{1,2})(?:[.,](?P<minute_fraction>[0-9]{1,9})"
    r"|:(?P<second>[0-9]{1,2})(?:[.,](?P<second_fraction>[0-9]{1,9}))?)?)?"
)
_OFFSET = (
    r"(?:(?P<zulu>[Zz])|(?P<sign>[+-])(?P<offset_hours>[0-9]{2})"
    r"(?::?(?P<offset_minutes>[0-9]{2})(?::?(?P<offset_seconds>[0-9]{2})(?:[.,]?(?P<offset_millis>[0-9]{3}))?)?)?)"
)
_DATE_TIME = re.compile(rf"(?:{_DATE})?(?:(?P<t>T)(?:{_TIME})?{_OFFSET}?)?")
_MS_PER_DAY = 86400000


def _is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        return 29 if _is_leap(year) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def days_from_civil(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 to the proleptic Gregorian date (any year, as Joda's ISO chronology)."""
    shifted = year - (month <= 2)
    era = shifted // 400
    year_of_era = shifted - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - 719468


def _check(text: str, value: int, field: str, low: int, high: int) -> int:
    if not low <= value <= high:
        raise ValueError(
            f'Cannot parse "{text}": Value {value} for {field} must be in the range [{low},{high}]'
        )
    return value


def _fraction(digits: str | None, unit_ms: int) -> int:
    """Milliseconds of a decimal fraction of `unit_ms`, truncated as Joda does."""
    return 0 if not digits else int(digits) * unit_ms // 10 ** len(digits)


def _weeks_in_year(year: int) -> int:
    jan1 = (days_from_civil(year, 1, 1) + 3) % 7  # 0 = Monday
    return 53 if jan1 == 3 or (jan1 == 2 and _is_leap(year)) else 52


def _date_days(text: str, g: dict[str, str | None]) -> int:
    if g["year"] is None:
        return 0
    year = int(g["year"])
    if g["ordinal"] is not None:
        day_of_year = _check(text, int(g["ordinal"]), "dayOfYear", 1, 366 if _is_leap(year) else 365)
        return days_from_civil(year, 1, 1) + day_of_year - 1
    if g["week"] is not None:
        week = _check(text, int(g["week"]), "weekOfWeekyear", 1, _weeks_in_year(year))
        weekday = _check(text, int(g["weekday"] or 1), "dayOfWeek", 1, 7)
        jan4 = days_from_civil(year, 1, 4)
        week1_monday = jan4 - (jan4 + 3) % 7
        return week1_monday + (week - 1) * 7 + weekday - 1
    month = _check(text, int(g["month"] or 1), "monthOfYear", 1, 12)
    day = _check(text, int(g["day"] or 1), "dayOfMonth", 1, _days_in_month(year, month))
    return days_from_civil(year, month, day)


def parse_iso_millis(text: str) -> int:
    """Epoch milliseconds of `text`; ValueError with Joda's text when it is not a date-time."""
    match = _DATE_TIME.fullmatch(text)
    # Without a date, a time after "T" is required ("T02:40"); the pattern alone allows neither.
    if match is None or (match["year"] is None and match["hour"] is None):
        raise ValueError(f'Invalid format: "{text}"')
    g = match.groupdict()
    millis = _date_days(text, g) * _MS_PER_DAY
    if g["hour"] is not None:
        millis += _check(text, int(g["hour"]), "hourOfDay", 0, 23) * 3600000
        millis += _fraction(g["hour_fraction"], 3600000)
        if g["minute"] is not None:
            millis += _check(text, int(g["minute"]), "minuteOfHour", 0, 59) * 60000
            millis += _fraction(g["minute_fraction"], 60000)
        if g["second"] is not None:
            millis += _check(text, int(g["second"]), "secondOfMinute", 0, 59) * 1000
            millis += _fraction(g["second_fraction"], 1000)
    if g["sign"] is not None:
        offset = (
            _check(text, int(g["offset_hours"]), "offset hours", 0, 23) * 3600000
            + _check(text, int(g["offset_minutes"] or 0), "offset minutes", 0, 59) * 60000
            + _check(text, int(g["offset_seconds"] or 0), "offset seconds", 0, 59) * 1000
            + int(g["offset_millis"] or 0)
        )
        millis -= offset if g["sign"] == "+" else -offset
    return millis
