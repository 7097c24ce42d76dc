"""Per-key validators with Kafka's error texts, each able to say what JSON Schema keywords it means.

A validator checks one parsed value (`ensure_valid`, raising `ConfigException`) and, where JSON Schema
has an equivalent, contributes keywords to the key's schema (`json_schema`) and maps a failed keyword
back to Kafka's reason (`schema_error`). `kconnect.config.validation` validates through the schema
when a validator has one and calls `ensure_valid` otherwise, so both paths must give the same text;
the unit tests hold them to that. `str(validator)` is the "Valid Values" text of generated docs.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from typing import Any

from .configdef import ConfigException, java_double_str

#: A path inside a key's schema, e.g. ``("minimum",)`` or ``("items", "enum")``.
SchemaPath = tuple[str | int, ...]


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


class Validator(ABC):
    """Checks one parsed config value (Kafka's `ConfigDef.Validator`).

    Subclasses with a JSON Schema equivalent override `json_schema`, `schema_error` and, when
    null is rejected, `accepts_null`.
    """

    @abstractmethod
    def ensure_valid(self, name: str, value: object) -> None:
        """Raise `ConfigException` with Kafka's text if `value` is not valid for key `name`."""

    def json_schema(self) -> dict[str, Any] | None:
        """The keywords merged into the key's schema, or None when JSON Schema cannot say it."""
        return None

    @property
    def accepts_null(self) -> bool:
        """Whether null passes; when False the key's schema type leaves out "null"."""
        return True

    def schema_error(self, path: SchemaPath, value: object) -> tuple[int, str] | None:
        """Map a failed keyword at `path` (relative to the key's schema) to (rank, Kafka's reason).

        Rank orders several failures of one value: the lowest is the one Kafka reports.
        """
        return None


class Range(Validator):
    """A numeric range, both bounds inclusive (Kafka's `Range.atLeast` / `Range.between`)."""

    def __init__(self, min: float | None = None, max: float | None = None) -> None:
        self.min = min
        self.max = max

    @classmethod
    def at_least(cls, min: float) -> Range:
        """A range with only a lower bound."""
        return cls(min, None)

    @classmethod
    def between(cls, min: float, max: float) -> Range:
        """A range with both bounds."""
        return cls(min, max)

    def ensure_valid(self, name: str, value: object) -> None:
        """Reject null, values below `min` and values above `max`."""
        reason = self._reason(value)
        if reason is not None:
            raise ConfigException.invalid(name, value, reason)

    def _reason(self, value: object) -> str | None:
        if value is None:
            return "Value must be non-null"
        number = float(value)  # type: ignore[arg-type]
        if self.min is not None and number < self.min:
            return f"Value must be at least {_number(self.min)}"
        if self.max is not None and number > self.max:
            return f"Value must be no more than {_number(self.max)}"
        return None

    def json_schema(self) -> dict[str, Any]:
        """``minimum`` and/or ``maximum``."""
        bounds = {"minimum": self.min, "maximum": self.max}
        return {keyword: bound for keyword, bound in bounds.items() if bound is not None}

    @property
    def accepts_null(self) -> bool:
        """False: Kafka's Range rejects null."""
        return False

    def schema_error(self, path: SchemaPath, value: object) -> tuple[int, str] | None:
        """``type`` (null), ``minimum`` and ``maximum`` failures, in Kafka's check order."""
        ranks = {("type",): 0, ("minimum",): 1, ("maximum",): 2}
        reason = self._reason(value)
        return (ranks[path], reason) if path in ranks and reason is not None else None

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


class ValidString(Validator):
    """The value must be one of a fixed list of strings, case-sensitive (Kafka's `ValidString.in`)."""

    def __init__(self, valid_strings: Iterable[str]) -> None:
        self.valid_strings = list(valid_strings)

    @classmethod
    def in_(cls, *valid_strings: str) -> ValidString:
        """Accept exactly these strings."""
        return cls(valid_strings)

    @property
    def reason(self) -> str:
        """Kafka's reason text for a value outside the list."""
        return "String must be one of: " + ", ".join(self.valid_strings)

    def ensure_valid(self, name: str, value: object) -> None:
        """Reject anything not in the list, null included."""
        if value not in self.valid_strings:
            raise ConfigException.invalid(name, value, self.reason)

    def json_schema(self) -> dict[str, Any]:
        """``enum``."""
        return {"enum": list(self.valid_strings)}

    def schema_error(self, path: SchemaPath, value: object) -> tuple[int, str] | None:
        """An ``enum`` failure."""
        return (0, self.reason) if path == ("enum",) else None

    def __str__(self) -> str:
        return "[" + ", ".join(self.valid_strings) + "]"


class CaseInsensitiveValidString(Validator):
    """The value must be one of a set of strings, ignoring case (Kafka's `CaseInsensitiveValidString`).

    No JSON Schema keyword compares case-insensitively, so this one always runs as Python.
    """

    def __init__(self, valid_strings: Iterable[str]) -> None:
        self.valid_strings = java_hash_set_order(s.upper() for s in valid_strings)

    @classmethod
    def in_(cls, *valid_strings: str) -> CaseInsensitiveValidString:
        """Accept these strings in any case."""
        return cls(valid_strings)

    def ensure_valid(self, name: str, value: object) -> None:
        """Reject null, non-strings and strings outside the set."""
        if not isinstance(value, str) or value.upper() not in self.valid_strings:
            reason = "String must be one of (case insensitive): " + ", ".join(self.valid_strings)
            raise ConfigException.invalid(name, value, reason)

    def __str__(self) -> str:
        return "(case insensitive) [" + ", ".join(self.valid_strings) + "]"


class ValidList(Validator):
    """Every item of a LIST value must be one of a fixed list of strings (Kafka's `ValidList.in`).

    A null value passes (Kafka fails with a NullPointerException there).
    """

    def __init__(self, valid_strings: Iterable[str]) -> None:
        self.valid_string = ValidString(valid_strings)

    @classmethod
    def in_(cls, *valid_strings: str) -> ValidList:
        """Accept lists whose items are all among these strings."""
        return cls(valid_strings)

    def ensure_valid(self, name: str, value: object) -> None:
        """Check each item; the first bad item is reported."""
        for item in value or ():  # type: ignore[attr-defined]
            self.valid_string.ensure_valid(name, item)

    def json_schema(self) -> dict[str, Any]:
        """``items.enum``."""
        return {"items": self.valid_string.json_schema()}

    def schema_error(self, path: SchemaPath, value: object) -> tuple[int, str] | None:
        """An ``items.enum`` failure; `value` is the bad item."""
        return (0, self.valid_string.reason) if path == ("items", "enum") else None

    def __str__(self) -> str:
        return str(self.valid_string)


class NonEmptyString(Validator):
    """A string value may not be empty; null passes (Kafka's `NonEmptyString`)."""

    def ensure_valid(self, name: str, value: object) -> None:
        """Reject the empty string."""
        if value == "":
            raise ConfigException.invalid(name, value, "String must be non-empty")

    def json_schema(self) -> dict[str, Any]:
        """``minLength: 1``."""
        return {"minLength": 1}

    def schema_error(self, path: SchemaPath, value: object) -> tuple[int, str] | None:
        """A ``minLength`` failure."""
        return (0, "String must be non-empty") if path == ("minLength",) else None

    def __str__(self) -> str:
        return "non-empty string"


_CONTROL_CHARS = re.compile("[\u0000-\u001f\u007f-\u009f]")


class NonEmptyStringWithoutControlChars(Validator):
    """Not empty and free of ISO control characters; null passes (Kafka's validator of ``name``)."""

    def _reason(self, value: object) -> tuple[int, str] | None:
        if not isinstance(value, str):
            return None
        if not value:
            return 0, "String may not be empty"
        found = [str(ord(c)) for c in value if _CONTROL_CHARS.match(c)]
        if found:
            return (
                1,
                "String may not contain control sequences but had the following ASCII chars: "
                + ", ".join(found),
            )
        return None

    def ensure_valid(self, name: str, value: object) -> None:
        """Reject "" and strings holding control characters (listed by code point)."""
        outcome = self._reason(value)
        if outcome is not None:
            raise ConfigException.invalid(name, value, outcome[1])

    def json_schema(self) -> dict[str, Any]:
        """``minLength: 1`` and ``not: {a string holding a control char}``."""
        return {"minLength": 1, "not": {"type": "string", "pattern": "[\\u0000-\\u001f\\u007f-\\u009f]"}}

    def schema_error(self, path: SchemaPath, value: object) -> tuple[int, str] | None:
        """``minLength`` or ``not`` failures."""
        return self._reason(value) if path in (("minLength",), ("not",)) else None

    def __str__(self) -> str:
        return "non-empty string without ISO control characters"


class NonNullValidator(Validator):
    """The value may not be null (Kafka's `NonNullValidator`)."""

    def ensure_valid(self, name: str, value: object) -> None:
        """Reject null."""
        if value is None:
            raise ConfigException.invalid(name, "null", "entry must be non null")

    def json_schema(self) -> dict[str, Any]:
        """No keyword of its own: the key's type leaves out "null"."""
        return {}

    @property
    def accepts_null(self) -> bool:
        """False."""
        return False

    def schema_error(self, path: SchemaPath, value: object) -> tuple[int, str] | None:
        """A ``type`` failure (the value was null)."""
        return (0, "entry must be non null") if path == ("type",) else None

    def __str__(self) -> str:
        return "non-null string"


class RegexValidator(Validator):
    """A string value must compile as a regular expression (Kafka's `RegexValidator`).

    Compiled with Python's `re`, so the reason after ``Invalid regex:`` is Python's, not Java's.
    """

    @staticmethod
    def _reason(value: object) -> str | None:
        if not isinstance(value, str):
            return None
        try:
            re.compile(value)
        except re.error as error:
            return f"Invalid regex: {error}"
        return None

    def ensure_valid(self, name: str, value: object) -> None:
        """Reject strings that do not compile."""
        reason = self._reason(value)
        if reason is not None:
            raise ConfigException.invalid(name, value, reason)

    def json_schema(self) -> dict[str, Any]:
        """``format: regex`` (asserted by the validation engine's format checker)."""
        return {"format": "regex"}

    def schema_error(self, path: SchemaPath, value: object) -> tuple[int, str] | None:
        """A ``format`` failure."""
        reason = self._reason(value)
        return (0, reason) if path == ("format",) and reason is not None else None

    def __str__(self) -> str:
        return "valid regex"


class LambdaValidator(Validator):
    """A validator made of a function and a description (Kafka's `LambdaValidator.with`); Python only."""

    def __init__(self, check: Callable[[str, object], None], describe: Callable[[], str] | str) -> None:
        self._check = check
        self._describe = describe

    def ensure_valid(self, name: str, value: object) -> None:
        """Call the function; it raises `ConfigException` on a bad value."""
        self._check(name, value)

    def __str__(self) -> str:
        return self._describe if isinstance(self._describe, str) else self._describe()


class CompositeValidator(Validator):
    """Several validators applied in order; the first failure is reported (Kafka's `CompositeValidator`).

    Has a JSON Schema when every part has one and their keywords do not clash; otherwise runs as Python.
    """

    def __init__(self, validators: Iterable[Validator]) -> None:
        self.validators = tuple(validators)

    @classmethod
    def of(cls, *validators: Validator) -> CompositeValidator:
        """Combine these validators, checked in this order."""
        return cls(validators)

    def ensure_valid(self, name: str, value: object) -> None:
        """Run each part in order; the first to raise wins."""
        for validator in self.validators:
            validator.ensure_valid(name, value)

    def json_schema(self) -> dict[str, Any] | None:
        """The parts' keywords merged, or None if a part has none or two parts share a keyword."""
        merged: dict[str, Any] = {}
        for validator in self.validators:
            schema = validator.json_schema()
            if schema is None or merged.keys() & schema.keys():
                return None
            merged.update(schema)
        return merged

    @property
    def accepts_null(self) -> bool:
        """True only if every part accepts null."""
        return all(validator.accepts_null for validator in self.validators)

    def schema_error(self, path: SchemaPath, value: object) -> tuple[int, str] | None:
        """Ask the part that owns the keyword; a part earlier in order ranks first."""
        for index, validator in enumerate(self.validators):
            schema = validator.json_schema() or {}
            owns = path[0] in schema or (path == ("type",) and not validator.accepts_null)
            outcome = validator.schema_error(path, value) if owns else None
            if outcome is not None:
                return index * 100 + outcome[0], outcome[1]
        return None

    def __str__(self) -> str:
        return ", ".join(str(validator) for validator in self.validators)
