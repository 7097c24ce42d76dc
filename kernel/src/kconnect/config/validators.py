"""Kafka's per-key validators, each an ordered tuple of `Rule`s (see `kconnect.config.rules`).

Each rule is written once here, with its JSON Schema fragment, its check and Kafka's reason text;
parsing, JSON Schema validation and error ranking all read it. `str(validator)` is the "Valid
Values" text of generated docs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from .rules import CompositeValidator, LambdaValidator, Rule, Validator, fixed, rejects_null
from .values import java_double_str

__all__ = [
    "CaseInsensitiveValidString",
    "CompositeValidator",
    "LambdaValidator",
    "NonEmptyString",
    "NonEmptyStringWithoutControlChars",
    "NonNullValidator",
    "PluginClass",
    "Range",
    "RegexValidator",
    "Rule",
    "ValidList",
    "ValidString",
    "Validator",
    "java_hash_set_order",
]


def _number(value: float) -> str:
    return java_double_str(value) if isinstance(value, float) else str(value)


def _java_string_hash(text: str) -> int:
    data = text.encode("utf-16-be")
    h = 0
    for index in range(0, len(data), 2):
        h = (31 * h + (data[index] << 8 | data[index + 1])) & 0xFFFFFFFF
    return h


def java_hash_set_order(items: Iterable[str]) -> list[str]:
    """The iteration order of a `java.util.HashSet<String>` filled with `items` in that order.

    Kafka joins such sets into some error texts (`CaseInsensitiveValidString`); matching the text
    means matching Java's bucket order: hash spread ``h ^ (h >>> 16)``, table doubling past 0.75 load.
    """
    unique = list(dict.fromkeys(items))
    capacity = 16
    while len(unique) > capacity * 0.75:
        capacity *= 2
    buckets: dict[int, list[str]] = {}
    for text in unique:
        h = _java_string_hash(text)
        buckets.setdefault((h ^ (h >> 16)) & (capacity - 1), []).append(text)
    return [text for index in sorted(buckets) for text in buckets[index]]


def _below(bound: float) -> Rule:
    return Rule(
        "minimum",
        lambda value: value is not None and float(value) < bound,  # type: ignore[arg-type]
        fixed(f"Value must be at least {_number(bound)}"),
        schema={"minimum": bound},
    )


def _above(bound: float) -> Rule:
    return Rule(
        "maximum",
        lambda value: value is not None and float(value) > bound,  # type: ignore[arg-type]
        fixed(f"Value must be no more than {_number(bound)}"),
        schema={"maximum": bound},
    )


class Range(Validator):
    """A numeric range, both bounds inclusive, null rejected (Kafka's `Range.atLeast` / `between`)."""

    def __init__(self, min: float | None = None, max: float | None = None) -> None:
        self.min = min
        self.max = max
        self.rules = (
            rejects_null("Value must be non-null"),
            *(() if min is None else (_below(min),)),
            *(() if max is None else (_above(max),)),
        )

    @classmethod
    def at_least(cls, min: float) -> Range:
        """A range with only a lower bound."""
        return cls(min, None)

    @classmethod
    def between(cls, min: float, max: float) -> Range:
        """A range with both bounds."""
        return cls(min, max)

    def __str__(self) -> str:
        low = None if self.min is None else _number(self.min)
        high = None if self.max is None else _number(self.max)
        if low is None and high is None:
            return "[...]"
        if low is None:
            return f"[...,{high}]"
        if high is None:
            return f"[{low},...]"
        return f"[{low},...,{high}]"


class OptionalRange(Validator):
    """Null, or a number within the bounds (the range Kafka checks only when a value is set)."""

    def __init__(self, min: float | None = None, max: float | None = None) -> None:
        self.range = Range(min, max)
        self.rules = self.range.rules[1:]

    def __str__(self) -> str:
        return str(self.range)


def _one_of(valid_strings: list[str]) -> Rule:
    return Rule(
        "enum",
        lambda value: value not in valid_strings,
        fixed("String must be one of: " + ", ".join(valid_strings)),
        schema={"enum": list(valid_strings)},
    )


class ValidString(Validator):
    """The value must be one of a fixed list of strings, case-sensitive (Kafka's `ValidString.in`)."""

    def __init__(self, valid_strings: Iterable[str]) -> None:
        self.valid_strings = list(valid_strings)
        self.rules = (_one_of(self.valid_strings),)

    @classmethod
    def in_(cls, *valid_strings: str) -> ValidString:
        """Accept exactly these strings."""
        return cls(valid_strings)

    def __str__(self) -> str:
        return "[" + ", ".join(self.valid_strings) + "]"


class CaseInsensitiveValidString(Validator):
    """The value must be one of a set of strings, ignoring case (Kafka's `CaseInsensitiveValidString`).

    No JSON Schema keyword compares case-insensitively, so its rule has no keyword: Python only.
    """

    def __init__(self, valid_strings: Iterable[str]) -> None:
        self.valid_strings = java_hash_set_order(s.upper() for s in valid_strings)
        self.rules = (
            Rule(
                None,
                lambda value: not isinstance(value, str) or value.upper() not in self.valid_strings,
                fixed("String must be one of (case insensitive): " + ", ".join(self.valid_strings)),
            ),
        )

    @classmethod
    def in_(cls, *valid_strings: str) -> CaseInsensitiveValidString:
        """Accept these strings in any case."""
        return cls(valid_strings)

    def __str__(self) -> str:
        return "(case insensitive) [" + ", ".join(self.valid_strings) + "]"


class ValidList(Validator):
    """Every item of a LIST value must be one of a fixed list of strings (Kafka's `ValidList.in`).

    A null value passes (Kafka fails with a NullPointerException there); the first bad item is
    the one the message names.
    """

    def __init__(self, valid_strings: Iterable[str]) -> None:
        self.valid_string = ValidString(valid_strings)
        item = self.valid_string.rules[0]

        def bad_items(value: object) -> list[object]:
            return [i for i in value or () if item.fails(i)]  # type: ignore[attr-defined]

        self.rules = (
            Rule(
                "items",
                lambda value: bool(bad_items(value)),
                item.reason,
                schema={"items": dict(item.schema)},
                subject=lambda value: bad_items(value)[0],
            ),
        )

    @classmethod
    def in_(cls, *valid_strings: str) -> ValidList:
        """Accept lists whose items are all among these strings."""
        return cls(valid_strings)

    def __str__(self) -> str:
        return str(self.valid_string)


class UniqueItems(Validator):
    """A LIST value may not hold one item twice; null passes (Kafka's check of alias lists)."""

    def __init__(self, reason: str, description: str) -> None:
        self.description = description
        self.rules = (
            Rule(
                "uniqueItems",
                lambda value: isinstance(value, list) and len(value) > len(set(value)),
                fixed(reason),
                schema={"uniqueItems": True},
            ),
        )

    def __str__(self) -> str:
        return self.description


class NonEmptyString(Validator):
    """A string value may not be empty; null passes (Kafka's `NonEmptyString`)."""

    rules = (
        Rule("minLength", lambda value: value == "", fixed("String must be non-empty"), {"minLength": 1}),
    )

    def __str__(self) -> str:
        return "non-empty string"


_CONTROL_CHARS = re.compile("[\u0000-\u001f\u007f-\u009f]")
#: The same class as JSON Schema text (escapes, so the schema document stays printable).
_CONTROL_CHARS_PATTERN = "[\\u0000-\\u001f\\u007f-\\u009f]"


def _control_chars(value: object) -> list[str]:
    return [str(ord(c)) for c in value if _CONTROL_CHARS.match(c)] if isinstance(value, str) else []


class NonEmptyStringWithoutControlChars(Validator):
    """Not empty and free of ISO control characters; null passes (Kafka's validator of ``name``)."""

    rules = (
        Rule("minLength", lambda value: value == "", fixed("String may not be empty"), {"minLength": 1}),
        Rule(
            "not",
            lambda value: bool(_control_chars(value)),
            lambda value: (
                "String may not contain control sequences but had the following ASCII chars: "
                + ", ".join(_control_chars(value))
            ),
            {"not": {"type": "string", "pattern": _CONTROL_CHARS_PATTERN}},
        ),
    )

    def __str__(self) -> str:
        return "non-empty string without ISO control characters"


class NonNullValidator(Validator):
    """The value may not be null (Kafka's `NonNullValidator`)."""

    rules = (rejects_null("entry must be non null"),)

    def __str__(self) -> str:
        return "non-null string"


def _regex_error(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    try:
        re.compile(value)
    except re.error as error:
        return f"Invalid regex: {error}"
    return None


class RegexValidator(Validator):
    """A string value must compile as a regular expression (Kafka's `RegexValidator`).

    Compiled with Python's `re`, so the reason after ``Invalid regex:`` is Python's, not Java's.
    The schema's ``format: regex`` is asserted by the validation engine's format checker.
    """

    rules = (
        Rule(
            "format",
            lambda value: _regex_error(value) is not None,
            lambda value: str(_regex_error(value)),
            {"format": "regex"},
        ),
    )

    def __str__(self) -> str:
        return "valid regex"


class PluginClass(Validator):
    """A CLASS key naming an installed plugin of one kind (Kafka's checks of converter/transform keys).

    `names` maps every name the kind's plugins answer to to the class name they show (the valid
    value's canonical form, as Kafka shows a class's name); `others` does the same for installed
    plugins of other kinds. An unknown name is Kafka's parse failure
    ``Class X could not be found.`` (the value shows as null); a plugin of another kind is
    ``Class class X does not implement the <interface> interface``. Null passes: a missing
    required key already says so.
    """

    def __init__(self, interface: str, names: Mapping[str, str], others: Mapping[str, str]) -> None:
        self.interface = interface
        self.names = names
        known = frozenset(names)
        self.rules = (
            Rule(
                "enum",
                lambda value: value is not None and value not in known and value not in others,
                lambda value: f"Class {value} could not be found.",
                schema={"enum": [*sorted(known), None]},
                voids_value=True,
            ),
            Rule(
                "enum",
                lambda value: value is not None and value not in known,
                lambda value: (
                    f"Class class {others.get(str(value), value)} does not implement the "
                    f"{interface} interface"
                ),
                whole_message=True,
            ),
        )

    def canonical(self, value: object) -> object:
        """The class name the plugin `value` names shows (`/connector-plugins`' ``class``)."""
        return self.names.get(value, value) if isinstance(value, str) else value

    def __str__(self) -> str:
        return f"an installed {self.interface}"
