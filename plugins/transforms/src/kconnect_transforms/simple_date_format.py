"""Java's ``SimpleDateFormat`` patterns (English, UTC) on Python datetimes: format and parse.

TimestampRouter and TimestampConverter take Java date patterns in their config (``yyyyMMdd``,
``yyyy-MM-dd'T'HH:mm:ss.SSSXXX``); this module reads such a pattern into fields and literals
once, then formats and parses with it. Kafka's transforms always use UTC.
"""

from __future__ import annotations

import calendar
import datetime
import re
from dataclasses import dataclass

_LETTERS = "GyYMLwWDdFEuaHkKhmsSzZX"
_MONTHS = list(calendar.month_name)[1:]
_MONTHS_SHORT = list(calendar.month_abbr)[1:]
_DAYS = list(calendar.day_name)
_DAYS_SHORT = list(calendar.day_abbr)


@dataclass(frozen=True)
class _Field:
    letter: str
    count: int


def _tokens(pattern: str) -> list[_Field | str]:
    """The pattern as fields and literal text; ValueError (Java's IllegalArgumentException) when invalid."""
    tokens: list[_Field | str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "'":
            if pattern[index + 1 : index + 2] == "'":
                tokens.append("'")
                index += 2
                continue
            end = index + 1
            text: list[str] = []
            while True:
                if end >= len(pattern):
                    raise ValueError("Unterminated quote")
                if pattern[end] == "'":
                    if pattern[end + 1 : end + 2] == "'":
                        text.append("'")
                        end += 2
                        continue
                    break
                text.append(pattern[end])
                end += 1
            tokens.append("".join(text))
            index = end + 1
        elif char.isascii() and char.isalpha():
            if char not in _LETTERS:
                raise ValueError(f"Illegal pattern character '{char}'")
            end = index
            while end < len(pattern) and pattern[end] == char:
                end += 1
            tokens.append(_Field(char, end - index))
            index = end
        else:
            tokens.append(char)
            index += 1
    return tokens


def _number(value: int, count: int) -> str:
    return str(value).zfill(count)


def _week_of_year(moment: datetime.datetime) -> tuple[int, int]:
    """(week year, week) as Java's English calendar counts: weeks start on Sunday, week 1 holds Jan 1."""
    day = moment.date()
    sunday = day - datetime.timedelta(days=day.isoweekday() % 7)
    if sunday + datetime.timedelta(days=6) >= datetime.date(day.year + 1, 1, 1):
        return day.year + 1, 1
    first = datetime.date(day.year, 1, 1)
    first_sunday = first - datetime.timedelta(days=first.isoweekday() % 7)
    return day.year, (sunday - first_sunday).days // 7 + 1


def _format_field(field: _Field, moment: datetime.datetime) -> str:
    letter, count = field.letter, field.count
    if letter == "G":
        return "AD" if moment.year > 0 else "BC"
    if letter in "yY":
        year = moment.year if letter == "y" else _week_of_year(moment)[0]
        return _number(year % 100, 2) if count == 2 else _number(year, count)
    if letter in "ML":
        if count >= 4:
            return _MONTHS[moment.month - 1]
        if count == 3:
            return _MONTHS_SHORT[moment.month - 1]
        return _number(moment.month, count)
    if letter == "w":
        return _number(_week_of_year(moment)[1], count)
    if letter == "W":
        return _number((moment.day + moment.replace(day=1).isoweekday() % 7 - 1) // 7 + 1, count)
    if letter == "D":
        return _number(moment.timetuple().tm_yday, count)
    if letter == "d":
        return _number(moment.day, count)
    if letter == "F":
        return _number((moment.day - 1) // 7 + 1, count)
    if letter == "E":
        return _DAYS[moment.weekday()] if count >= 4 else _DAYS_SHORT[moment.weekday()]
    if letter == "u":
        return _number(moment.isoweekday(), count)
    if letter == "a":
        return "AM" if moment.hour < 12 else "PM"
    if letter == "H":
        return _number(moment.hour, count)
    if letter == "k":
        return _number(moment.hour or 24, count)
    if letter == "K":
        return _number(moment.hour % 12, count)
    if letter == "h":
        return _number(moment.hour % 12 or 12, count)
    if letter == "m":
        return _number(moment.minute, count)
    if letter == "s":
        return _number(moment.second, count)
    if letter == "S":
        return _number(moment.microsecond // 1000, count)
    if letter == "z":
        return "Coordinated Universal Time" if count >= 4 else "UTC"
    if letter == "Z":
        return "+0000"
    return "Z"  # X: ISO 8601 zone, UTC


class SimpleDateFormat:
    """A Java date pattern, in UTC with English names; ValueError on an invalid pattern."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._tokens = _tokens(pattern)

    def format_millis(self, millis: int) -> str:
        """The text for the instant `millis` after the epoch."""
        moment = datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=millis)
        return "".join(t if isinstance(t, str) else _format_field(t, moment) for t in self._tokens)

    def parse_millis(self, text: str) -> int:
        """The instant `text` denotes, in milliseconds since the epoch; ValueError when it does not parse.

        Like Java's lenient ``parse``, text after the pattern is ignored.
        """
        parts: dict[str, int] = {}
        position = 0
        for index, token in enumerate(self._tokens):
            if isinstance(token, str):
                if not text.startswith(token, position):
                    raise ValueError(f'Unparseable date: "{text}"')
                position += len(token)
                continue
            following = self._tokens[index + 1] if index + 1 < len(self._tokens) else None
            position = _parse_field(token, text, position, parts, adjacent=isinstance(following, _Field))
        return _millis_of(parts, text)


def _parse_field(field: _Field, text: str, position: int, parts: dict[str, int], *, adjacent: bool) -> int:
    letter, count = field.letter, field.count
    rest = text[position:]
    if letter in "ML" and count >= 3:
        for names in (_MONTHS, _MONTHS_SHORT):
            for number, name in enumerate(names, start=1):
                if rest.lower().startswith(name.lower()):
                    parts["M"] = number
                    return position + len(name)
        raise ValueError(f'Unparseable date: "{text}"')
    if letter == "E":
        for names in (_DAYS, _DAYS_SHORT):
            for name in names:
                if rest.lower().startswith(name.lower()):
                    return position + len(name)
        raise ValueError(f'Unparseable date: "{text}"')
    if letter == "a":
        for number, name in enumerate(("AM", "PM")):
            if rest.upper().startswith(name):
                parts["a"] = number
                return position + 2
        raise ValueError(f'Unparseable date: "{text}"')
    if letter in "zZX":
        match = re.match(r"Z|UTC|GMT|[+-]\d{2}:?\d{2}|[+-]\d{2}", rest)
        if match is None:
            raise ValueError(f'Unparseable date: "{text}"')
        token = match.group()
        if token not in ("Z", "UTC", "GMT"):
            digits = token[1:].replace(":", "")
            minutes = int(digits[:2]) * 60 + (int(digits[2:]) if len(digits) > 2 else 0)
            parts["offset"] = -minutes if token[0] == "-" else minutes
        return position + len(token)
    # A number: exactly `count` digits when the next field follows with no separator, else greedy.
    match = re.match(rf"[+-]?\d{{1,{count}}}" if adjacent else r"[+-]?\d+", rest)
    if match is None:
        raise ValueError(f'Unparseable date: "{text}"')
    parts[letter] = int(match.group())
    if letter in "yY" and count <= 2 and len(match.group()) == 2:
        # Java puts a two-digit year within 80 years before and 20 after the formatter's creation.
        parts[letter] += 2000 if parts[letter] < 46 else 1900
    return position + len(match.group())


def _millis_of(parts: dict[str, int], text: str) -> int:
    year = parts.get("y", parts.get("Y", 1970))
    month = parts.get("M", parts.get("L", 1))
    day = parts.get("d", 1)
    hour = parts.get("H", parts.get("k", 0) % 24)
    if "h" in parts or "K" in parts:
        hour = parts.get("h", parts.get("K", 0)) % 12 + 12 * parts.get("a", 0)
    base = datetime.datetime(1970, 1, 1)
    # Java's lenient calendar rolls over out-of-range fields; so do timedeltas.
    months = (year - 1970) * 12 + (month - 1)
    first = datetime.datetime(1970 + months // 12, months % 12 + 1, 1)
    if "D" in parts and "d" not in parts and "M" not in parts:
        first = datetime.datetime(first.year, 1, 1)
        day = parts["D"]
    moment = first + datetime.timedelta(
        days=day - 1,
        hours=hour,
        minutes=parts.get("m", 0) - parts.get("offset", 0),
        seconds=parts.get("s", 0),
        milliseconds=parts.get("S", 0),
    )
    delta = moment - base
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000
