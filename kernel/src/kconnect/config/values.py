"""Config values: Kafka's config types, its parsing rules, and the Java renderings its texts use.

`parse_type` turns one raw value (a string, as connector configs arrive, or an already-typed value)
into the value of a `ConfigType` by Kafka's rules (`ConfigDef.parseType`); `convert_to_string`
renders it back as Kafka's REST API shows it. `ConfigException` carries Kafka's error texts, built
with `java_str`, so users can search for them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from decimal import Decimal
from enum import Enum
from typing import Final


class ConfigType(str, Enum):
    """The type of a configuration value (Kafka's `ConfigDef.Type`)."""

    BOOLEAN = "BOOLEAN"
    STRING = "STRING"
    INT = "INT"
    SHORT = "SHORT"
    LONG = "LONG"
    DOUBLE = "DOUBLE"
    LIST = "LIST"
    CLASS = "CLASS"
    PASSWORD = "PASSWORD"


class _NoDefault(Enum):
    NO_DEFAULT = "NO_DEFAULT"

    def __repr__(self) -> str:
        return "NO_DEFAULT"


#: Marks a key that has no default: leaving it out is a "Missing required configuration" error.
NO_DEFAULT: Final = _NoDefault.NO_DEFAULT

HIDDEN: Final = "[hidden]"


class Password:
    """A secret config value; its str and repr are ``[hidden]`` so it never reaches a log."""

    __slots__ = ("value",)

    def __init__(self, value: str) -> None:
        self.value = value

    def __str__(self) -> str:
        return HIDDEN

    __repr__ = __str__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Password) and other.value == self.value

    def __hash__(self) -> int:
        return hash(self.value)


def java_double_str(number: float) -> str:
    """Render a float as Java's `Double.toString` does (``1.0``, ``1.0E7``, ``NaN``, ``Infinity``)."""
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    if number == 0:
        return "-0.0" if math.copysign(1.0, number) < 0 else "0.0"
    if 1e-3 <= abs(number) < 1e7:
        return repr(number)
    _, digit_tuple, exponent = Decimal(repr(abs(number))).as_tuple()
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    assert isinstance(exponent, int)
    scientific = len("".join(map(str, digit_tuple))) - 1 + exponent
    sign = "-" if number < 0 else ""
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{scientific}"


def java_str(value: object) -> str:
    """Render a value as Java's `toString` would inside Kafka's messages (``null``, ``[a, b]``, ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return java_double_str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(java_str(item) for item in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{java_str(k)}={java_str(v)}" for k, v in value.items()) + "}"
    return str(value)


def java_trim(text: str) -> str:
    """Strip what Java's `String.trim` strips: every character up to and including U+0020."""
    start, end = 0, len(text)
    while start < end and text[start] <= " ":
        start += 1
    while end > start and text[end - 1] <= " ":
        end -= 1
    return text[start:end]


class ConfigException(ValueError):
    """A configuration value is missing or invalid; the message is Kafka's text for the problem."""

    def __init__(self, message: str, *, name: str | None = None, value: object = None) -> None:
        super().__init__(message)
        self.name = name
        self.value = value

    @classmethod
    def invalid(cls, name: str, value: object, reason: str | None = None) -> ConfigException:
        """Kafka's ``Invalid value <value> for configuration <name>: <reason>`` error."""
        text = f"Invalid value {java_str(value)} for configuration {name}"
        return cls(text if reason is None else f"{text}: {reason}", name=name, value=value)

    @property
    def message(self) -> str:
        """The error text, as Kafka's `getMessage()` gives it."""
        return str(self.args[0])


def missing_required_message(name: str) -> str:
    """Kafka's text for a key that has no default and was not given."""
    return f'Missing required configuration "{name}" which has no default value.'


_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
_DOUBLE_TEXT = re.compile(r"[+-]?(?:NaN|Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?)")
# Java's regex \s is [ \t\n\x0B\f\r]; Python's \s is wider.
_LIST_SEPARATOR = re.compile(r"[ \t\n\x0b\f\r]*,[ \t\n\x0b\f\r]*")
_INTEGER_BOUNDS = {
    ConfigType.SHORT: (-(2**15), 2**15 - 1, "16-bit integer (short)"),
    ConfigType.INT: (-(2**31), 2**31 - 1, "32-bit integer"),
    ConfigType.LONG: (-(2**63), 2**63 - 1, "64-bit integer (long)"),
}


def _type_name(value: object) -> str:
    return type(value).__qualname__


def parse_type(name: str, value: object, config_type: ConfigType) -> object:
    """Parse one value to `config_type` by Kafka's rules (`ConfigDef.parseType`); None stays None.

    Strings are trimmed first; BOOLEAN takes true/false in any case; SHORT/INT/LONG must be in range;
    LIST splits on commas with surrounding whitespace and maps "" to []; CLASS stays a class name;
    PASSWORD becomes a `Password`. Raises `ConfigException` with Kafka's text.
    """
    if value is None:
        return None
    text = java_trim(value) if isinstance(value, str) else None
    if config_type is ConfigType.BOOLEAN:
        if isinstance(value, bool):
            return value
        if text is not None and text.lower() in ("true", "false"):
            return text.lower() == "true"
        raise ConfigException.invalid(name, value, "Expected value to be either true or false")
    if config_type in (ConfigType.STRING, ConfigType.PASSWORD):
        if config_type is ConfigType.PASSWORD and isinstance(value, Password):
            return value
        if text is None:
            raise ConfigException.invalid(
                name, value, f"Expected value to be a string, but it was a {_type_name(value)}"
            )
        return Password(text) if config_type is ConfigType.PASSWORD else text
    if config_type in _INTEGER_BOUNDS:
        low, high, described = _INTEGER_BOUNDS[config_type]
        if isinstance(value, int) and not isinstance(value, bool):
            if low <= value <= high:
                return value
        elif text is not None:
            if _INTEGER_TEXT.fullmatch(text) and low <= int(text) <= high:
                return int(text)
            raise ConfigException.invalid(name, value, f"Not a number of type {config_type.value}")
        raise ConfigException.invalid(
            name, value, f"Expected value to be a {described}, but it was a {_type_name(value)}"
        )
    if config_type is ConfigType.DOUBLE:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        if text is None:
            raise ConfigException.invalid(
                name, value, f"Expected value to be a double, but it was a {_type_name(value)}"
            )
        if not _DOUBLE_TEXT.fullmatch(text):
            raise ConfigException.invalid(name, value, "Not a number of type DOUBLE")
        return float(text.rstrip("fFdD") if text[-1] in "fFdD" else text)
    if config_type is ConfigType.LIST:
        if isinstance(value, (list, tuple)):
            return list(value)
        if text is None:
            raise ConfigException.invalid(name, value, "Expected a comma separated list.")
        return [] if not text else _LIST_SEPARATOR.split(text)
    if config_type is ConfigType.CLASS:
        if isinstance(value, type):
            return f"{value.__module__}.{value.__qualname__}"
        if text is None:
            raise ConfigException.invalid(name, value, "Expected a Class instance or class name.")
        return text
    raise ValueError(f"Unknown type {config_type!r}")


def convert_to_string(value: object, config_type: ConfigType | None) -> str | None:
    """Render a parsed value as Kafka's `ConfigDef.convertToString` does; None stays None."""
    if value is None:
        return None
    if config_type is ConfigType.LIST and isinstance(value, (list, tuple)):
        return ",".join(java_str(item) for item in value)
    return java_str(value)
