"""Kafka's three predicates: TopicNameMatches, HasHeaderKey and RecordIsTombstone.

A predicate decides whether a transformation applies to a record (``transforms.<alias>.predicate``,
negated with ``.negate=true``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from kconnect.config.configdef import ConfigDef, ConfigException, ConfigType, Importance
from kconnect.config.rules import CompositeValidator
from kconnect.config.validators import NonEmptyString
from kconnect.records import ConnectRecord

from kconnect_transforms.base import PREDICATES_PACKAGE, Plugin
from kconnect_transforms.java_regex import compile_java
from kconnect_transforms.validators import JavaRegex

PATTERN_CONFIG = "pattern"
NAME_CONFIG = "name"


class TopicNameMatches(Plugin):
    """True for records whose whole topic matches ``pattern``."""

    java_class_names = (f"{PREDICATES_PACKAGE}TopicNameMatches",)
    config_def: ClassVar[ConfigDef | None] = ConfigDef().define(
        PATTERN_CONFIG,
        type=ConfigType.STRING,
        validator=CompositeValidator.of(NonEmptyString(), JavaRegex()),
        importance=Importance.MEDIUM,
        documentation="The regular expression a record's whole topic must match.",
    )

    def __init__(self) -> None:
        self.pattern: re.Pattern[str] = re.compile("")

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Compile the pattern."""
        text = str(self.parse_config(configs)[PATTERN_CONFIG])
        try:
            self.pattern = compile_java(text)
        except re.error as e:
            raise ConfigException.invalid(
                PATTERN_CONFIG, text, f"entry must be a Java-compatible regular expression: {e}"
            ) from e

    def test(self, record: ConnectRecord) -> bool:
        """Whether the topic matches."""
        return record.topic is not None and self.pattern.fullmatch(record.topic) is not None


class HasHeaderKey(Plugin):
    """True for records with at least one header called ``name``."""

    java_class_names = (f"{PREDICATES_PACKAGE}HasHeaderKey",)
    config_def: ClassVar[ConfigDef | None] = ConfigDef().define(
        NAME_CONFIG,
        type=ConfigType.STRING,
        validator=NonEmptyString(),
        importance=Importance.MEDIUM,
        documentation="The header key to look for.",
    )

    def __init__(self) -> None:
        self.name = ""

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Read the header name."""
        self.name = str(self.parse_config(configs)[NAME_CONFIG])

    def test(self, record: ConnectRecord) -> bool:
        """Whether a header of that name is present."""
        return bool(record.headers.all(self.name))


class RecordIsTombstone(Plugin):
    """True for records whose value is null (tombstones)."""

    java_class_names = (f"{PREDICATES_PACKAGE}RecordIsTombstone",)

    def test(self, record: ConnectRecord) -> bool:
        """Whether the value is null."""
        return record.value is None
