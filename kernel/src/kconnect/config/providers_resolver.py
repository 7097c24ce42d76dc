"""Resolving ``${provider:[path:]key}`` references in a config (Kafka's ``ConfigTransformer``). Pure logic.

`transform` collects every reference of a config, asks each named provider once per path for the keys
referenced there, and replaces each reference by its value. As in Kafka, a reference to a provider
the worker does not have, or to a key the provider does not answer, is left exactly as written; the
TTLs the providers return are reported by path. `reverse_transform` puts references back into the
task configs a connector generated from a resolved config, so the stored task configs hold the
reference, never the secret (Kafka's ``AbstractHerder.reverseTransform``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from kconnect.config.providers import ConfigProvider

VARIABLE_PATTERN: Final = re.compile(r"\$\{([^}]*?):(([^}]*?):)?([^}]*?)\}")
"""Kafka's ``ConfigTransformer.DEFAULT_PATTERN``: provider, optional path, key."""


@dataclass(frozen=True)
class ConfigVariable:
    """One ``${provider:[path:]key}`` reference; `path` is ``""`` when the reference has none."""

    provider: str
    path: str
    key: str

    @classmethod
    def of(cls, match: re.Match[str]) -> ConfigVariable:
        """The reference `VARIABLE_PATTERN` matched."""
        return cls(match.group(1), match.group(3) or "", match.group(4))


@dataclass(frozen=True)
class TransformResult:
    """The resolved config, and the TTL in milliseconds of each path a provider gave one for."""

    data: dict[str, str | None]
    ttls: dict[str, int] = field(default_factory=dict)


def has_variable(value: str | None) -> bool:
    """True when `value` holds a ``${provider:[path:]key}`` reference."""
    return value is not None and VARIABLE_PATTERN.search(value) is not None


def variables(value: str) -> list[ConfigVariable]:
    """The references in `value`, in order."""
    return [ConfigVariable.of(match) for match in VARIABLE_PATTERN.finditer(value)]


def transform(providers: Mapping[str, ConfigProvider], configs: Mapping[str, str | None]) -> TransformResult:
    """Replace the references in `configs` by the values `providers` give for them.

    Steps, as Kafka's ``ConfigTransformer.transform``: collect the keys referenced per provider and
    path; ask each known provider once per path (``get(path, keys)``), keeping a non-negative TTL by
    path; replace each reference whose provider answered its key. A provider's error (a file that
    cannot be read) propagates: the caller reports it.
    """
    wanted: dict[str, dict[str, set[str]]] = {}
    for value in configs.values():
        if value is None:
            continue
        for variable in variables(value):
            wanted.setdefault(variable.provider, {}).setdefault(variable.path, set()).add(variable.key)
    found: dict[tuple[str, str], Mapping[str, str]] = {}
    ttls: dict[str, int] = {}
    for provider_name, keys_by_path in wanted.items():
        provider = providers.get(provider_name)
        if provider is None:
            continue
        for path, keys in keys_by_path.items():
            answer = provider.get(path, set(keys))
            if answer.ttl is not None and answer.ttl >= 0:
                ttls[path] = answer.ttl
            found[(provider_name, path)] = answer.data
    data: dict[str, str | None] = {key: _replace(value, found) for key, value in configs.items()}
    return TransformResult(data, ttls)


def _replace(value: str | None, found: Mapping[tuple[str, str], Mapping[str, str]]) -> str | None:
    if value is None:
        return None

    def substitute(match: re.Match[str]) -> str:
        variable = ConfigVariable.of(match)
        replacement = found.get((variable.provider, variable.path), {}).get(variable.key)
        return match.group(0) if replacement is None else replacement

    return VARIABLE_PATTERN.sub(substitute, value)


def keys_with_variables(config: Mapping[str, str | None]) -> set[str]:
    """The keys of `config` whose value holds a reference (Kafka's ``keysWithVariableValues``)."""
    return {key for key, value in config.items() if has_variable(value)}


def reverse_transform(
    raw_connector_config: Mapping[str, str], task_configs: Sequence[Mapping[str, str]]
) -> list[dict[str, str]]:
    """Task configs with the connector's references put back (Kafka's ``reverseTransform``).

    Called with the task configs a connector generated from its resolved config: every key that
    holds a reference in the connector's stored config and appears in a task config gets the
    reference back, so a secret the connector copied into its task configs is never stored.
    """
    referring = keys_with_variables(raw_connector_config)
    return [
        {key: raw_connector_config[key] if key in referring else value for key, value in config.items()}
        for config in task_configs
    ]
