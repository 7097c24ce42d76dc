"""What every transformation and predicate here shares: version, config parsing, key or value side.

Kafka writes a transformation that works on the key or the value once, with ``$Key`` and
``$Value`` subclasses; here the subclass sets `side`, a `Side` that reads and replaces that part.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from enum import Enum
from typing import Any, ClassVar, TypeVar

from kconnect.config.configdef import ConfigDef, ConfigType, Importance
from kconnect.data.schema import Schema
from kconnect.records import ConnectRecord

from kconnect_transforms import __version__

R = TypeVar("R", bound=ConnectRecord)

TRANSFORMS_PACKAGE = "org.apache.kafka.connect.transforms."
PREDICATES_PACKAGE = "org.apache.kafka.connect.transforms.predicates."

REPLACE_NULL_WITH_DEFAULT_CONFIG = "replace.null.with.default"


def define_replace_null_with_default(config_def: ConfigDef) -> ConfigDef:
    """Add Kafka's ``replace.null.with.default`` key (BOOLEAN, default true) and return the def."""
    return config_def.define(
        REPLACE_NULL_WITH_DEFAULT_CONFIG,
        type=ConfigType.BOOLEAN,
        default=True,
        importance=Importance.MEDIUM,
        documentation="Whether a null field that has a default value reads as that default (true) "
        "or stays null (false).",
    )


_CONFIGURE_DEFS: dict[int, ConfigDef] = {}


def _configure_def(config_def: ConfigDef) -> ConfigDef:
    """`config_def` with each validator that has an ``at_parse`` variant replaced by it."""
    found = _CONFIGURE_DEFS.get(id(config_def))
    if found is not None:
        return found
    parsing = ConfigDef()
    for key in config_def.config_keys.values():
        at_parse = getattr(key.validator, "at_parse", None)
        parsing.define_key(replace(key, validator=at_parse()) if at_parse is not None else key)
    _CONFIGURE_DEFS[id(config_def)] = parsing
    return parsing


class Side(Enum):
    """The part of a record a ``$Key`` or ``$Value`` transformation works on."""

    KEY = "Key"
    VALUE = "Value"

    def schema_of(self, record: ConnectRecord) -> Schema | None:
        """The key's or the value's schema."""
        return record.key_schema if self is Side.KEY else record.value_schema

    def value_of(self, record: ConnectRecord) -> Any:
        """The key or the value."""
        return record.key if self is Side.KEY else record.value

    def replace(self, record: R, schema: Schema | None, value: Any) -> R:
        """A copy of `record` with this side's schema and value replaced."""
        if self is Side.KEY:
            return record.new_record(key_schema=schema, key=value)  # type: ignore[no-any-return]
        return record.new_record(value_schema=schema, value=value)  # type: ignore[no-any-return]


class Plugin:
    """The parts of a transformation or predicate that do not depend on what it does."""

    java_class_names: ClassVar[tuple[str, ...]] = ()
    config_def: ClassVar[ConfigDef | None] = ConfigDef()

    @classmethod
    def version(cls) -> str:
        """The plugin's version."""
        return __version__

    @classmethod
    def parse_config(cls, configs: Mapping[str, Any]) -> dict[str, Any]:
        """The typed config (defaults filled in); raises ConfigException with Kafka's text.

        Parsed with the validators Kafka applies when a plugin is configured, which for some list
        keys check less than validation does (see `AnyNonDuplicateValues`).
        """
        assert cls.config_def is not None
        return _configure_def(cls.config_def).parse(configs)

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Read the config; plugins without keys need nothing."""
        self.parse_config(configs)

    def close(self) -> None:
        """Nothing to release."""


class SideTransformation(Plugin):
    """A transformation with ``$Key`` and ``$Value`` variants; subclasses set `side`."""

    side: ClassVar[Side]
