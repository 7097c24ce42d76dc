"""A validation rule, written once: its JSON Schema fragment, its check, its message and its rank.

A `Validator` (Kafka's `ConfigDef.Validator`) is an ordered tuple of `Rule`s. Every way a value is
checked reads the same rule objects, so no rule is written twice:

- `Validator.ensure_valid` (``ConfigDef.parse``, defaults at definition): the first rule that
  fails raises `ConfigException` with that rule's message;
- `Validator.json_schema`: the rules' fragments merged into the key's property schema (the schema
  `kconnect.config.validation` validates with `jsonschema`);
- `Validator.first_failure` with a keyword: a failed schema keyword maps back to the first rule
  owning that keyword that fails the value; its position is its rank, because Kafka's validator
  stops at its first failure, so of several failed keywords the lowest rank is the one Kafka
  reports.

A rule with no JSON Schema equivalent has no keyword; a validator holding one runs as Python in
validation too (`json_schema` is None). `LambdaValidator` wraps a function rather than rules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .values import ConfigException

#: The keyword of a rule that rejects null: JSON Schema says it by leaving "null" out of ``type``.
NULL_KEYWORD = "type"


def _same(value: object) -> object:
    return value


@dataclass(frozen=True)
class Rule:
    """One check of a validator, with everything each checking path needs.

    `keyword` is the JSON Schema keyword the rule owns (``"minimum"``, ``"enum"``, ``"items"``, ...;
    `NULL_KEYWORD` for a rule rejecting null; None when JSON Schema cannot say it) and `schema`
    the fragment it adds to the key's schema. `fails` tells whether a parsed value breaks the
    rule; `reason` gives Kafka's reason for the value `subject` picks out (the value itself, or
    e.g. the first bad item of a list). The message is Kafka's ``Invalid value <v> for
    configuration <key>: <reason>`` unless `whole_message`. A rule that `voids_value` stands for a
    Kafka parse failure: validation then shows the key's value as null, as Kafka does.
    """

    keyword: str | None
    fails: Callable[[object], bool]
    reason: Callable[[object], str]
    schema: Mapping[str, Any] = field(default_factory=dict)
    subject: Callable[[object], object] = _same
    whole_message: bool = False
    voids_value: bool = False

    def error(self, name: str, value: object) -> ConfigException:
        """The `ConfigException` this rule raises for key `name` holding `value` (which fails it)."""
        subject = self.subject(value)
        if self.whole_message:
            return ConfigException(self.reason(subject), name=name, value=subject)
        return ConfigException.invalid(name, subject, self.reason(subject))


def rejects_null(reason: str) -> Rule:
    """A rule failing null with `reason` (JSON Schema: "null" left out of the key's type)."""
    return Rule(NULL_KEYWORD, lambda value: value is None, lambda _value: reason)


def fixed(reason: str) -> Callable[[object], str]:
    """A reason that does not depend on the value."""
    return lambda _value: reason


class Validator:
    """Checks one parsed config value (Kafka's `ConfigDef.Validator`) by its ordered `rules`.

    Subclasses set `rules` (and `__str__`, the "Valid Values" text of generated docs); see the
    module docstring for how each checking path reads them. A subclass with no rules that
    overrides `ensure_valid` instead runs as Python everywhere.
    """

    rules: tuple[Rule, ...] = ()

    def ensure_valid(self, name: str, value: object) -> None:
        """Raise `ConfigException` with Kafka's text if `value` is not valid for key `name`."""
        failure = self.first_failure(value)
        if failure is not None:
            raise failure[1].error(name, value)

    def first_failure(self, value: object, keyword: str | None = None) -> tuple[int, Rule] | None:
        """The first rule (limited to `keyword`'s rules when given) that `value` fails, with its rank."""
        for rank, rule in enumerate(self.rules):
            if (keyword is None or rule.keyword == keyword) and rule.fails(value):
                return rank, rule
        return None

    def json_schema(self) -> dict[str, Any] | None:
        """The rules' fragments merged; None without rules, when a rule has no keyword, or on a clash."""
        if not self.rules:
            return None
        merged: dict[str, Any] = {}
        for rule in self.rules:
            if rule.keyword is None or merged.keys() & rule.schema.keys():
                return None
            merged.update(rule.schema)
        return merged

    @property
    def accepts_null(self) -> bool:
        """Whether null passes; when False the key's schema type leaves out "null"."""
        return not any(rule.keyword == NULL_KEYWORD for rule in self.rules)

    def canonical(self, value: object) -> object:
        """The value as parsing and validation report it once valid (itself; a plugin's class name)."""
        return value

    def error_name(self, name: str) -> str:
        """The key name this validator's messages use for key `name` (itself, unless embedded)."""
        return name


class LambdaValidator(Validator):
    """A validator made of a function and a description (Kafka's `LambdaValidator.with`); Python only."""

    def __init__(self, check: Callable[[str, object], None], describe: Callable[[], str] | str) -> None:
        self._check = check
        self._describe = describe

    def ensure_valid(self, name: str, value: object) -> None:
        """Call the function; it raises `ConfigException` on a bad value."""
        self._check(name, value)

    def json_schema(self) -> dict[str, Any] | None:
        """None: a function has no JSON Schema."""
        return None

    def __str__(self) -> str:
        return self._describe if isinstance(self._describe, str) else self._describe()


class CompositeValidator(Validator):
    """Several validators applied in order; the first failure is reported (Kafka's `CompositeValidator`).

    Its rules are its parts' rules in order, so a part earlier in order ranks first; it has a
    JSON Schema when every part's rules do and their fragments do not clash.
    """

    def __init__(self, validators: Iterable[Validator]) -> None:
        self.validators = tuple(validators)
        self.rules = tuple(rule for validator in self.validators for rule in validator.rules)

    @classmethod
    def of(cls, *validators: Validator) -> CompositeValidator:
        """Combine these validators, checked in this order."""
        return cls(validators)

    def ensure_valid(self, name: str, value: object) -> None:
        """Run each part in order; the first to raise wins."""
        for validator in self.validators:
            validator.ensure_valid(name, value)

    def json_schema(self) -> dict[str, Any] | None:
        """The parts' fragments merged, or None if a part runs as Python or two fragments clash."""
        if any(validator.json_schema() is None for validator in self.validators):
            return None
        return super().json_schema()

    def __str__(self) -> str:
        return ", ".join(str(validator) for validator in self.validators)
