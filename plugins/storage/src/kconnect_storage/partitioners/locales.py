"""The month, weekday, half-day and era names a ``locale`` gives Joda's text fields (MMM, EEEE, a, G).

Confluent builds the locale as ``new Locale(locale)``: the whole value becomes the language code,
lower-cased, so ``fr`` gives French names but ``fr-FR`` or ``fr_FR`` is an unknown language, for
which Java 9 and later fall back to their root locale (English abbreviations everywhere, even for
MMMM and EEEE: ``Jul``, ``Fri``, eras ``BCE``/``CE``). `date_symbols` does the same, with the names
of a known language taken from the CLDR data of `babel` (Java's are CLDR too, of the Java release's
own CLDR version, so a rare abbreviation may differ), resolving CLDR's aliases as Java does: a
language without its own abbreviations uses its full names.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from babel import localedata

#: Java maps these old ISO 639 codes to the current ones (``new Locale("iw")`` is Hebrew).
_OLD_LANGUAGE_CODES = {"iw": "he", "ji": "yi", "in": "id"}
_LANGUAGE = re.compile(r"[a-z]{2,8}")
_MONTHS = range(1, 13)
_WEEKDAYS = range(7)  # CLDR's order: Monday first
_ENGLISH_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_ENGLISH_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


@dataclass(frozen=True, slots=True)
class DateSymbols:
    """Names by index: months January first, weekdays Monday first, ``(AM, PM)``, ``(BC, AD)``."""

    short_months: tuple[str, ...]
    long_months: tuple[str, ...]
    short_weekdays: tuple[str, ...]
    long_weekdays: tuple[str, ...]
    half_days: tuple[str, str]
    eras: tuple[str, str]


#: What Java 9+ gives for a language it has no data for (its root locale).
JAVA_ROOT_SYMBOLS = DateSymbols(
    short_months=_ENGLISH_MONTHS,
    long_months=_ENGLISH_MONTHS,
    short_weekdays=_ENGLISH_DAYS,
    long_weekdays=_ENGLISH_DAYS,
    half_days=("AM", "PM"),
    eras=("BCE", "CE"),
)


def java_language(locale: str) -> str:
    """The language ``new Locale(locale)`` has: the value lower-cased, old codes renamed."""
    language = locale.lower()
    return _OLD_LANGUAGE_CODES.get(language, language)


@functools.cache
def date_symbols(locale: str) -> DateSymbols:
    """The names Joda prints for `locale`, a ``locale`` value as Confluent reads it."""
    language = java_language(locale)
    # Only a bare language code can name data: "fr-fr" or "fr_fr" is no language to Java.
    if language == "root" or not _LANGUAGE.fullmatch(language) or not localedata.exists(language):
        return JAVA_ROOT_SYMBOLS
    own = localedata.load(language, merge_inherited=False)
    root = localedata.load("root", merge_inherited=False)

    def names(
        path: tuple[str, ...], keys: range | tuple[str, ...], *more: tuple[str, ...]
    ) -> tuple[str, ...] | None:
        found = [
            next((n for p in (path, *more) if (n := _resolve(own, root, p, key)) is not None), None)
            for key in keys
        ]
        return None if any(name is None for name in found) else tuple(str(name) for name in found)

    fallback = JAVA_ROOT_SYMBOLS
    return DateSymbols(
        short_months=names(("months", "format", "abbreviated"), _MONTHS) or fallback.short_months,
        long_months=names(("months", "format", "wide"), _MONTHS) or fallback.long_months,
        short_weekdays=names(("days", "format", "abbreviated"), _WEEKDAYS) or fallback.short_weekdays,
        long_weekdays=names(("days", "format", "wide"), _WEEKDAYS) or fallback.long_weekdays,
        half_days=_pair(
            names(("day_periods", "format", "abbreviated"), ("am", "pm"), ("day_periods", "format", "wide"))
        )
        or fallback.half_days,
        eras=_pair(names(("eras", "abbreviated"), range(2))) or fallback.eras,
    )


def _pair(values: tuple[str, ...] | None) -> tuple[str, str] | None:
    return None if values is None else (values[0], values[1])


def _resolve(own: Mapping[str, Any], root: Mapping[str, Any], path: tuple[str, ...], key: object) -> object:
    """The language's own name `key` at `path`, following the root locale's aliases (as CLDR
    inherits, name by name) to another path of the same language.

    None when the language has none: its name would be the root locale's, which Java replaces
    with its own (`JAVA_ROOT_SYMBOLS`).
    """
    for _ in range(4):  # CLDR's alias chains are short; a cycle would be a data bug
        value = _get(own, path)
        if isinstance(value, localedata.Alias):
            path = tuple(value.keys)
            continue
        if isinstance(value, Mapping) and key in value:
            return value[key]
        inherited = _get(root, path)
        if not isinstance(inherited, localedata.Alias):
            return None
        path = tuple(inherited.keys)
    return None


def _get(data: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = data
    for key in path:
        if not isinstance(value, Mapping) or key not in value:
            return None
        value = value[key]
    return value
