"""Kafka's ConfigDef in Python idiom: typed configuration keys, Kafka's parsing rules and texts.

A `ConfigDef` lists `ConfigKey`s in definition order. `parse` turns a props map (strings, as
connector configs arrive, or already-typed values) into typed values and raises `ConfigException`
on the first problem; `validate` reports every problem per key, as Kafka's `ConfigDef.validateAll`
does (the engine lives in `kconnect.config.validation`). Value types, parsing and Kafka's texts
live in `kconnect.config.values`; a key and its outcome in `kconnect.config.config_key`;
validators in `kconnect.config.rules` and `validators`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from .config_key import ConfigKey, ConfigValue, Importance, Recommender, Width
from .json_schema import config_def_json_schema
from .rules import Validator
from .validation import validate_all
from .values import (
    HIDDEN,
    NO_DEFAULT,
    ConfigException,
    ConfigType,
    Password,
    convert_to_string,
    java_double_str,
    java_str,
    java_trim,
    missing_required_message,
    parse_type,
)

__all__ = [
    "HIDDEN",
    "NO_DEFAULT",
    "ConfigDef",
    "ConfigException",
    "ConfigKey",
    "ConfigType",
    "ConfigValue",
    "Importance",
    "Password",
    "Recommender",
    "Width",
    "convert_to_string",
    "java_double_str",
    "java_str",
    "java_trim",
    "missing_required_message",
    "parse_type",
]


def _as_enum(enum_type: type[Any], value: object) -> Any:
    return value if isinstance(value, enum_type) else enum_type[str(value).upper()]


class ConfigDef:
    """An ordered set of configuration keys, with Kafka's parse and validate semantics.

    Built fluently at import time by plugin authors and the framework::

        ConfigDef().define("topic", type="STRING", importance="HIGH", documentation="Topic to write to.")
    """

    def __init__(self, base: ConfigDef | None = None) -> None:
        self._keys: dict[str, ConfigKey] = dict(base._keys) if base is not None else {}
        self._groups: list[str] = list(base._groups) if base is not None else []

    def define(
        self,
        name: str,
        *,
        type: ConfigType | str,
        importance: Importance | str,
        documentation: str = "",
        default: object = NO_DEFAULT,
        validator: Validator | None = None,
        group: str | None = None,
        order_in_group: int = -1,
        width: Width | str = Width.NONE,
        display_name: str | None = None,
        dependents: Iterable[str] = (),
        recommender: Recommender | None = None,
    ) -> ConfigDef:
        """Define a key and return self. Raises `ConfigException` on a duplicate or a bad default.

        The default is parsed to `type` and checked by `validator` now, as Kafka does at definition.
        """
        config_type: ConfigType = _as_enum(ConfigType, type)
        parsed_default = default if default is NO_DEFAULT else parse_type(name, default, config_type)
        if validator is not None and parsed_default is not NO_DEFAULT:
            validator.ensure_valid(name, parsed_default)
        key = ConfigKey(
            name=name,
            type=config_type,
            default=parsed_default,
            validator=validator,
            importance=_as_enum(Importance, importance),
            documentation=documentation,
            group=group,
            order_in_group=order_in_group,
            width=_as_enum(Width, width),
            display_name=name if display_name is None else display_name,
            dependents=tuple(dependents),
            recommender=recommender,
        )
        return self.define_key(key)

    def define_internal(
        self,
        name: str,
        *,
        type: ConfigType | str,
        default: object,
        importance: Importance | str = Importance.LOW,
        validator: Validator | None = None,
        documentation: str = "",
    ) -> ConfigDef:
        """Define a key that is left out of generated docs and not meant for general use."""
        self.define(
            name,
            type=type,
            importance=importance,
            documentation=documentation,
            default=default,
            validator=validator,
        )
        self._keys[name] = replace(self._keys[name], internal=True)
        return self

    def define_key(self, key: ConfigKey) -> ConfigDef:
        """Add an already built key (Kafka's `define(ConfigKey)`); its default is taken as parsed."""
        if key.name in self._keys:
            raise ConfigException(f"Configuration {key.name} is defined twice.")
        if key.group is not None and key.group not in self._groups:
            self._groups.append(key.group)
        self._keys[key.name] = key
        return self

    @property
    def config_keys(self) -> Mapping[str, ConfigKey]:
        """The keys by name, in definition order (read-only view)."""
        return MappingProxyType(self._keys)

    def names(self) -> tuple[str, ...]:
        """The key names, in definition order."""
        return tuple(self._keys)

    def groups(self) -> list[str]:
        """The group names, in the order each was first used by a key."""
        return list(self._groups)

    def undefined_dependents(self) -> list[str]:
        """Names listed as some key's dependent but not defined here, in first-seen order."""
        seen = {d: None for key in self._keys.values() for d in key.dependents if d not in self._keys}
        return list(seen)

    def with_(self, other: ConfigDef) -> ConfigDef:
        """A new def with this def's keys, then `other`'s; a name defined in both is an error."""
        combined = ConfigDef(self)
        for key in other._keys.values():
            combined.define_key(key)
        return combined

    def merge(self, other: ConfigDef, *, keep_existing: bool = False) -> ConfigDef:
        """A new def with `other`'s keys added; a shared name takes `other`'s key in this def's place.

        With ``keep_existing=True`` a shared name keeps this def's key instead (as Kafka's plugin
        config listing gives a plugin's own definition precedence over the framework's).
        """
        combined = ConfigDef(self)
        for key in other._keys.values():
            if key.name not in combined._keys or not keep_existing:
                combined._keys[key.name] = key
            if key.group is not None and key.group not in combined._groups:
                combined._groups.append(key.group)
        return combined

    def parse(self, props: Mapping[str, object]) -> dict[str, object]:
        """Parse and check every key (Kafka's `ConfigDef.parse`); raises on the first problem.

        Called when a component starts with a config that was validated before. Keys not given
        take their defaults; each value is checked by its key's validator.
        """
        undefined = self.undefined_dependents()
        if undefined:
            raise ConfigException(
                "Some configurations in are referred in the dependents, but not defined: "
                + ",".join(undefined)
            )
        return {
            key.name: self.parse_value(key, props.get(key.name), key.name in props)
            for key in self._keys.values()
        }

    def parse_value(self, key: ConfigKey, value: object, is_set: bool) -> object:
        """Parse one key's value, falling back to its default, and run its validator."""
        if is_set:
            parsed = parse_type(key.name, value, key.type)
        elif not key.has_default:
            raise ConfigException(missing_required_message(key.name), name=key.name)
        else:
            parsed = key.default
        if key.validator is not None:
            key.validator.ensure_valid(key.name, parsed)
            return key.validator.canonical(parsed)
        return parsed

    def validate(self, props: Mapping[str, object]) -> dict[str, ConfigValue]:
        """Report every key's value, errors, recommendations and visibility (Kafka's `validateAll`).

        Called by the validate endpoint and before a connector is created or updated. See
        `kconnect.config.validation.validate_all` for the steps.
        """
        return validate_all(self, props)

    def json_schema(self) -> dict[str, Any]:
        """This def as a JSON Schema (draft 2020-12) document; see `kconnect.config.json_schema`."""
        return config_def_json_schema(self)
