"""Keys of a ported connector that a plugin does not implement: refused, never silently ignored.

A port of a Java connector (Confluent's JDBC, HDFS or S3 sink) meets configs written for the Java
one. A key the port does not implement is fine at its default (or empty) and an error of that key
otherwise, in ``PUT .../config/validate`` and when the connector or task starts::

    REFUSED = RefusedKeys("JDBC connector", {"poll.linger.ms": refused("a poll never lingers")})
    REFUSED.add_errors(values, config)   # in the connector's validate
    REFUSED.check(config)                # when parsing settings: raises ConfigException
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kconnect.config.configdef import ConfigException, ConfigValue


@dataclass(frozen=True)
class RefusedKey:
    """A key the plugin refuses: the values that mean "the default" (empty always does), and why."""

    defaults: frozenset[str]
    reason: str


def refused(reason: str, *defaults: str) -> RefusedKey:
    """A refused key, accepted only empty or at one of `defaults` (compared case-insensitively)."""
    return RefusedKey(frozenset(d.lower() for d in ("", *defaults)), reason)


@dataclass(frozen=True)
class RefusedKeys:
    """One plugin's refused keys; `plugin` names it in the messages (``kconnect's <plugin>``)."""

    plugin: str
    keys: Mapping[str, RefusedKey]

    def message(self, key: str) -> str:
        """``<key> is not supported by kconnect's <plugin>: <why>``."""
        return f"{key} is not supported by kconnect's {self.plugin}: {self.keys[key].reason}"

    def errors(self, config: Mapping[str, str | None]) -> dict[str, str]:
        """The refused keys `config` sets to a value other than their default, with their error."""
        found = {}
        for key, spec in self.keys.items():
            value = config.get(key)
            if value is not None and str(value).strip().lower() not in spec.defaults:
                found[key] = self.message(key)
        return found

    def check(self, config: Mapping[str, str | None]) -> None:
        """Raise `ConfigException` for the first refused key `config` sets."""
        for key, message in self.errors(config).items():
            raise ConfigException(message, name=key, value=config.get(key))

    def add_errors(self, values: dict[str, ConfigValue], config: Mapping[str, str | None]) -> None:
        """Give each refused key `config` sets an entry in a validate result, with its error."""
        for key, message in self.errors(config).items():
            values.setdefault(key, ConfigValue(key, config.get(key))).add_error(message)
