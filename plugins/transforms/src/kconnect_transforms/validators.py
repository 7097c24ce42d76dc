"""Config validators Kafka's transformations use that the kernel does not define.

`NonEmptyList` is Kafka's transforms-only ``NonEmptyListValidator``; `AnyNonDuplicateValues` is
the list check Kafka 4 puts on list keys such as ``fields`` and ``exclude``; `JavaRegex` checks
a regular expression as the transformations will compile it.
"""

from __future__ import annotations

import re

from kconnect.config.rules import Validator
from kconnect.config.values import ConfigException

from kconnect_transforms.java_regex import compile_java


class NonEmptyList(Validator):
    """A LIST value must hold at least one item (Kafka's ``NonEmptyListValidator``)."""

    def ensure_valid(self, name: str, value: object) -> None:
        """Raise ConfigException for null or an empty list."""
        if value is None or (isinstance(value, list) and not value):
            raise ConfigException.invalid(name, value, "Empty list")

    def __str__(self) -> str:
        return "non-empty list"


class AnyNonDuplicateValues(Validator):
    """A LIST value whose items are non-empty and distinct (Kafka's ``ValidList.anyNonDuplicateValues``).

    `empty_allowed` and `null_allowed` say whether an empty list and null pass. Kafka 4.3 reports a
    duplicate when a config is validated, but when the plugin is configured it drops repeats
    instead: `at_parse` is the validator the configure path uses.
    """

    def __init__(self, *, empty_allowed: bool, null_allowed: bool, duplicates_allowed: bool = False) -> None:
        self.empty_allowed = empty_allowed
        self.null_allowed = null_allowed
        self.duplicates_allowed = duplicates_allowed

    def at_parse(self) -> AnyNonDuplicateValues:
        """This validator without the duplicate check, for parsing a config at configure time."""
        return AnyNonDuplicateValues(
            empty_allowed=self.empty_allowed, null_allowed=self.null_allowed, duplicates_allowed=True
        )

    def ensure_valid(self, name: str, value: object) -> None:
        """Raise ConfigException naming the first problem, in Kafka's order of checks."""
        if value is None:
            if not self.null_allowed:
                raise ConfigException(f"Configuration '{name}' values must not be null.", name=name)
            return
        items = list(value) if isinstance(value, (list, tuple)) else [value]
        if not items:
            if not self.empty_allowed:
                raise ConfigException(
                    f"Configuration '{name}' must not be empty. Valid values include: any non-empty value",
                    name=name,
                )
            return
        if not self.duplicates_allowed and len(set(map(str, items))) != len(items):
            raise ConfigException(f"Configuration '{name}' values must not be duplicated.", name=name)
        if any(str(item) == "" for item in items):
            raise ConfigException(f"Configuration '{name}' values must not be empty.", name=name)

    def canonical(self, value: object) -> object:
        """At configure time, the list with repeated items dropped (first occurrences kept)."""
        if self.duplicates_allowed and isinstance(value, list):
            return list(dict.fromkeys(value))
        return value

    def __str__(self) -> str:
        return ""  # Kafka's ValidList without fixed values describes itself as nothing


class JavaRegex(Validator):
    """A STRING value must compile as a Java regular expression (Kafka's transforms ``RegexValidator``).

    Checked with `kconnect_transforms.java_regex.compile_java`, so Java's named groups pass; the
    reason after ``Invalid regex:`` is Python's text, not Java's.
    """

    def ensure_valid(self, name: str, value: object) -> None:
        """Raise ConfigException when the value does not compile."""
        if value is None:
            # What Kafka's validator reports for a missing pattern (a NullPointerException inside).
            raise ConfigException.invalid(
                name, None, 'Invalid regex: Cannot invoke "String.isEmpty()" because "this.pattern" is null'
            )
        try:
            compile_java(str(value))
        except re.error as e:
            raise ConfigException.invalid(name, value, f"Invalid regex: {e}") from e

    def __str__(self) -> str:
        return "valid regex"
