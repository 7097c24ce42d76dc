"""Joda-Time's ``DateTimeFormat`` patterns (``path.format``), compiled once and printed exactly.

Pattern letters as Joda's ``DateTimeFormat`` documents them: ``G`` era, ``C`` century of era,
``Y`` year of era, ``y`` year, ``x`` ISO week-year, ``w`` ISO week, ``e`` ISO day of week (1 is
Monday), ``E`` day name, ``D`` day of year, ``M`` month, ``d`` day of month, ``a`` AM/PM, ``K``
hour 0-11, ``h`` hour 1-12, ``H`` hour 0-23, ``k`` hour 1-24, ``m``, ``s``, ``S`` fraction of
second, ``Z`` offset (``-0800``; ``ZZ``: ``-08:00``; ``ZZZ`` or more: zone id). A letter's count is
its minimum width, zero-padded; two ``y``/``Y``/``x`` print two digits of the year; three or more
``M`` print the short month name and four the full one; ``E`` prints the short day name, four
the full one. Text between single quotes is literal, ``''`` is a quote; any other character that
is not an ASCII letter is literal too. Joda's ``z`` (zone names) is refused: its names come from
Java's own tables, which kconnect cannot reproduce.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kconnect_storage.partitioners.locales import DateSymbols
from kconnect_storage.partitioners.timezones import JodaZone

_LETTERS = frozenset("GCYxywedEDMdaKhHkmsSZz")


@dataclass(frozen=True, slots=True)
class _Fields:
    """What a pattern can print of one instant in one zone."""

    year: int
    month: int
    day: int
    day_of_year: int
    iso_week_year: int
    iso_week: int
    iso_weekday: int  # 1 = Monday
    hour: int
    minute: int
    second: int
    millis: int
    offset_ms: int
    zone_id: str


_Printer = Callable[[_Fields, DateSymbols], str]


class JodaPattern:
    """A compiled ``DateTimeFormat.forPattern(pattern)``; `format` prints an instant with it."""

    __slots__ = ("_printers", "pattern")

    def __init__(self, pattern: str) -> None:
        """Compile `pattern`; ValueError with Joda's text (``Illegal pattern component: Q``)."""
        self.pattern = pattern
        self._printers: tuple[_Printer, ...] = tuple(_compile(pattern))

    def format(self, instant_ms: int, zone: JodaZone, symbols: DateSymbols) -> str:
        """`instant_ms` printed in `zone` with the names of `symbols`.

        Raises `kconnect.errors.DataError` for an instant outside the years 1 to 9999."""
        local = zone.local_datetime(instant_ms)
        iso = local.isocalendar()
        fields = _Fields(
            year=local.year,
            month=local.month,
            day=local.day,
            day_of_year=local.timetuple().tm_yday,
            iso_week_year=iso[0],
            iso_week=iso[1],
            iso_weekday=iso[2],
            hour=local.hour,
            minute=local.minute,
            second=local.second,
            millis=local.microsecond // 1000,
            offset_ms=zone.offset_ms(instant_ms),
            zone_id=zone.id,
        )
        return "".join(printer(fields, symbols) for printer in self._printers)


def _tokens(pattern: str) -> list[tuple[str, str]]:
    """The pattern as ``(letter, run)`` tokens and ``("'", literal text)`` tokens, as Joda splits it."""
    tokens: list[tuple[str, str]] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char.isascii() and char.isalpha():
            end = index
            while end < len(pattern) and pattern[end] == char:
                end += 1
            tokens.append((char, pattern[index:end]))
            index = end
            continue
        literal: list[str] = []
        quoted = False
        while index < len(pattern):
            char = pattern[index]
            if char == "'":
                if index + 1 < len(pattern) and pattern[index + 1] == "'":
                    literal.append("'")
                    index += 1
                else:
                    quoted = not quoted
            elif not quoted and char.isascii() and char.isalpha():
                break
            else:
                literal.append(char)
            index += 1
        tokens.append(("'", "".join(literal)))
    return tokens


def _compile(pattern: str) -> list[_Printer]:
    if not pattern:
        raise ValueError("Invalid pattern specification: Pattern is null or empty")
    printers: list[_Printer] = []
    for letter, token in _tokens(pattern):
        if letter == "'":
            if token:
                printers.append(_literal(token))
            continue
        if letter not in _LETTERS:
            raise ValueError(f"Illegal pattern component: {token}")
        if letter == "z":
            raise ValueError(
                f"Unsupported pattern component: {token} (time zone names); "
                "use Z, ZZ (offset) or ZZZ (zone id) instead"
            )
        printers.append(_printer(letter, len(token)))
    if not printers:
        raise ValueError("Both printing and parsing not supported")
    return printers


def _literal(text: str) -> _Printer:
    return lambda fields, symbols: text


def _number(width: int, get: Callable[[_Fields], int]) -> _Printer:
    def print_number(fields: _Fields, symbols: DateSymbols) -> str:
        value = get(fields)
        return ("-" if value < 0 else "") + str(abs(value)).zfill(width)

    return print_number


def _two_digits(get: Callable[[_Fields], int]) -> _Printer:
    return lambda fields, symbols: f"{abs(get(fields)) % 100:02d}"


def _printer(letter: str, count: int) -> _Printer:
    if letter in "yYx":
        # All years a Python datetime holds are AD, where year and year of era agree.
        get: Callable[[_Fields], int] = (lambda f: f.iso_week_year) if letter == "x" else (lambda f: f.year)
        return _two_digits(get) if count == 2 else _number(count, get)
    if letter == "G":
        return lambda f, s: s.eras[1]
    if letter == "C":
        return _number(count, lambda f: f.year // 100)
    if letter == "M":
        if count >= 4:
            return lambda f, s: s.long_months[f.month - 1]
        if count == 3:
            return lambda f, s: s.short_months[f.month - 1]
        return _number(count, lambda f: f.month)
    if letter == "E":
        if count >= 4:
            return lambda f, s: s.long_weekdays[f.iso_weekday - 1]
        return lambda f, s: s.short_weekdays[f.iso_weekday - 1]
    if letter == "a":
        return lambda f, s: s.half_days[0 if f.hour < 12 else 1]
    if letter == "S":
        return lambda f, s: f"{f.millis:03d}"[:count].ljust(count, "0")
    if letter == "Z":
        if count >= 3:
            return lambda f, s: f.zone_id
        return lambda f, s: _offset(f.offset_ms, colon=count == 2)
    getters: dict[str, Callable[[_Fields], int]] = {
        "w": lambda f: f.iso_week,
        "e": lambda f: f.iso_weekday,
        "D": lambda f: f.day_of_year,
        "d": lambda f: f.day,
        "K": lambda f: f.hour % 12,
        "h": lambda f: f.hour % 12 or 12,
        "H": lambda f: f.hour,
        "k": lambda f: f.hour or 24,
        "m": lambda f: f.minute,
        "s": lambda f: f.second,
    }
    return _number(count, getters[letter])


def _offset(offset_ms: int, *, colon: bool) -> str:
    """Joda's ``appendTimeZoneOffset(null, ..., 2, 2)``: hours and minutes, ``+0000`` for UTC."""
    sign = "-" if offset_ms < 0 else "+"
    minutes = abs(offset_ms) // 60000
    hours, minutes = divmod(minutes, 60)
    return f"{sign}{hours:02d}{':' if colon else ''}{minutes:02d}"
