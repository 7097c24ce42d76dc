"""The keys of the plugins a connector config names (Kafka's `ConnectorConfig.enrich`).

`enrich` takes the framework's source or sink def and the config being validated and returns the
def validation runs: the converter keys checked against the installed converters, with the
worker's converter as default and the installed ones as recommended values (Kafka 4.1), and per
transformation / predicate alias its ``type`` key (required, checked against the installed
plugins of that kind), its ``plugin.version`` key and, once the type resolves, the plugin's own
keys under the alias's prefix (plus ``negate`` / ``predicate`` for a transformation). An unknown
class is therefore an error of its key at validate, create and update time, with Kafka's text,
never a failure of a task inside Spark.

This module knows no plugin host: the herder describes what is installed as `PluginChoices`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .configdef import ConfigDef, ConfigException, ConfigKey, ConfigType, Importance, Width
from .connector_keys import (
    CONNECTOR_VERSION_CONFIG,
    HEADER_CONVERTER_CLASS_CONFIG,
    HEADER_CONVERTER_VERSION_CONFIG,
    KEY_CONVERTER_CLASS_CONFIG,
    KEY_CONVERTER_VERSION_CONFIG,
    PREDICATES_CONFIG,
    TRANSFORMS_CONFIG,
    VALUE_CONVERTER_CLASS_CONFIG,
    VALUE_CONVERTER_VERSION_CONFIG,
    PluginVersionValidator,
)
from .rules import Validator
from .validators import PluginClass
from .values import parse_type


@dataclass(frozen=True)
class InstalledPlugins:
    """The installed plugins of one kind, as the keys naming them see them.

    `accepted` maps every name that resolves (the plugin host's `accepted_names`) to the class
    name `/connector-plugins` shows; `versions` and `config_defs` are by shown class name.
    """

    interface: str
    accepted: Mapping[str, str]
    versions: Mapping[str, str] = field(default_factory=dict)
    config_defs: Mapping[str, ConfigDef] = field(default_factory=dict)

    @property
    def shown(self) -> list[str]:
        """The shown class names, sorted as Kafka sorts its recommended values."""
        return sorted(set(self.accepted.values()))

    def version_of(self, name: object) -> str | None:
        """The version of the plugin `name` resolves to, or None (unknown plugin or no version)."""
        shown = self.accepted.get(str(name)) if name is not None else None
        version = self.versions.get(shown) if shown is not None else None
        return None if version in (None, "", "undefined") else version


@dataclass(frozen=True)
class PluginChoices:
    """What is installed, and the worker's converters: everything `enrich` needs to know.

    `everything` maps every accepted name of every kind to its shown class name (for Kafka's
    "does not implement" text); `worker_converters` maps ``key.converter`` / ``value.converter`` /
    ``header.converter`` to the worker's class for it.
    """

    converters: InstalledPlugins
    header_converters: InstalledPlugins
    transformations: InstalledPlugins
    predicates: InstalledPlugins
    everything: Mapping[str, str]
    worker_converters: Mapping[str, str]
    connector_version: str | None = None

    def validator(self, kind: InstalledPlugins) -> PluginClass:
        """The class-type validator of a key naming a plugin of `kind`."""
        others = {name: shown for name, shown in self.everything.items() if name not in kind.accepted}
        return PluginClass(kind.interface, kind.accepted, others)


@dataclass(frozen=True)
class _Fixed:
    """A recommender with fixed recommended values; the key is always visible."""

    values: Sequence[object]

    def valid_values(self, name: str, parsed_config: Mapping[str, object]) -> list[object]:
        """The fixed values."""
        return list(self.values)

    def visible(self, name: str, parsed_config: Mapping[str, object]) -> bool:
        """Always True."""
        return True


class _Embedded(Validator):
    """A plugin's own validator under a prefix: its messages name the key without the prefix.

    Kafka's `ConfigDef.embed` does the same, so a transformation's texts read as its own docs do.
    """

    def __init__(self, prefix: str, base: Validator) -> None:
        self.prefix = prefix
        self.base = base
        self.rules = base.rules

    def ensure_valid(self, name: str, value: object) -> None:
        """The base validator, given the unprefixed name."""
        self.base.ensure_valid(name.removeprefix(self.prefix), value)

    def json_schema(self) -> dict[str, Any] | None:
        """The base validator's schema."""
        return self.base.json_schema()

    def error_name(self, name: str) -> str:
        """The unprefixed name."""
        return name.removeprefix(self.prefix)

    def __str__(self) -> str:
        return str(self.base)


_CONVERTER_KEYS = (
    (KEY_CONVERTER_CLASS_CONFIG, KEY_CONVERTER_VERSION_CONFIG, "converters"),
    (VALUE_CONVERTER_CLASS_CONFIG, VALUE_CONVERTER_VERSION_CONFIG, "converters"),
    (HEADER_CONVERTER_CLASS_CONFIG, HEADER_CONVERTER_VERSION_CONFIG, "header_converters"),
)


def _shown(kind: InstalledPlugins, name: str) -> str:
    return kind.accepted.get(name, name)


def _with_version(key: ConfigKey, version: str | None) -> ConfigKey:
    return replace(key, default=version, recommender=_Fixed([version] if version else []))


def with_connector_version(base: ConfigDef, version: str | None) -> ConfigDef:
    """`base` whose ``connector.plugin.version`` shows `version` as its default and only recommendation.

    What validate shows for the connector a config names (`enrich`), and what
    ``GET /connector-plugins/{plugin}/config`` shows for that plugin (Kafka's enrichedConfigDef).
    """
    if CONNECTOR_VERSION_CONFIG not in base.config_keys:
        return base
    enriched = ConfigDef()
    for name, key in base.config_keys.items():
        enriched.define_key(_with_version(key, version) if name == CONNECTOR_VERSION_CONFIG else key)
    return enriched


def _framework_keys(base: ConfigDef, props: Mapping[str, str | None], choices: PluginChoices) -> ConfigDef:
    """The framework's keys, the converter keys and version keys filled in from what is installed."""
    keys = dict(base.config_keys)
    for class_key, version_key, kind_name in _CONVERTER_KEYS:
        kind: InstalledPlugins = getattr(choices, kind_name)
        worker_class = _shown(kind, choices.worker_converters[class_key])
        if class_key in keys:
            # Only a converter the connector names is checked: the worker's own is the worker's
            # config, shown here as the default whether or not this process has it installed.
            keys[class_key] = replace(
                keys[class_key],
                default=worker_class,
                validator=choices.validator(kind) if props.get(class_key) is not None else None,
                recommender=_Fixed(kind.shown),
            )
        if version_key in keys:
            chosen = props.get(class_key) if props.get(class_key) is not None else worker_class
            keys[version_key] = _with_version(keys[version_key], kind.version_of(chosen))
    if CONNECTOR_VERSION_CONFIG in keys:
        keys[CONNECTOR_VERSION_CONFIG] = _with_version(
            keys[CONNECTOR_VERSION_CONFIG], choices.connector_version
        )
    enriched = ConfigDef()
    for key in keys.values():
        enriched.define_key(key)
    return enriched


def _aliases(props: Mapping[str, str | None], list_key: str) -> list[str]:
    """The aliases a LIST key names, deduplicated in order; none when the value does not parse."""
    try:
        parsed = parse_type(list_key, props.get(list_key), ConfigType.LIST)
    except ConfigException:
        return []
    return list(dict.fromkeys(str(alias) for alias in parsed or () if alias))  # type: ignore[attr-defined]


def _define_alias(
    config_def: ConfigDef,
    list_key: str,
    alias: str,
    kind: InstalledPlugins,
    choices: PluginChoices,
    props: Mapping[str, str | None],
) -> None:
    """Kafka's keys of one alias: ``type``, ``plugin.version``, then the plugin's own keys."""
    noun = "transformation" if list_key == TRANSFORMS_CONFIG else "predicate"
    prefix, group = f"{list_key}.{alias}.", f"{list_key.capitalize()}: {alias}"
    type_key = prefix + "type"
    config_def.define(
        type_key,
        type=ConfigType.CLASS,
        importance=Importance.HIGH,
        documentation=f"Class for the '{alias}' {noun}.",
        validator=choices.validator(kind),
        group=group,
        order_in_group=0,
        width=Width.LONG,
        display_name=f"{noun.capitalize()} type for {alias}",
        recommender=_Fixed(kind.shown),
    )
    raw_type = props.get(type_key)
    version = kind.version_of(raw_type.strip() if raw_type is not None else None)
    config_def.define(
        prefix + "plugin.version",
        type=ConfigType.STRING,
        importance=Importance.HIGH,
        documentation=f"Version of the '{alias}' {noun}.",
        default=version,
        validator=PluginVersionValidator(),
        group=group,
        order_in_group=1,
        width=Width.LONG,
        display_name=f"{noun.capitalize()} version for {alias}",
        recommender=_Fixed([version] if version else []),
    )
    shown = kind.accepted.get(raw_type.strip()) if raw_type is not None else None
    if shown is None:
        return
    order = 2
    own = kind.config_defs.get(shown) or ConfigDef()
    for key in own.config_keys.values():
        config_def.define_key(
            replace(
                key,
                name=prefix + key.name,
                validator=None if key.validator is None else _Embedded(prefix, key.validator),
                group=group,
                order_in_group=order,
                dependents=tuple(prefix + d for d in key.dependents),
            )
        )
        order += 1
    if noun == "transformation":
        config_def.define(
            prefix + "negate",
            type=ConfigType.BOOLEAN,
            importance=Importance.MEDIUM,
            documentation="Whether the configured predicate should be negated.",
            default=False,
            group=group,
            order_in_group=order,
            display_name="negate",
        )
        config_def.define(
            prefix + "predicate",
            type=ConfigType.STRING,
            importance=Importance.MEDIUM,
            documentation="The alias of a predicate used to determine whether to apply this transformation.",
            default=None,
            group=group,
            order_in_group=order + 1,
            display_name="predicate",
        )


def enrich(base: ConfigDef, props: Mapping[str, str | None], choices: PluginChoices) -> ConfigDef:
    """The def validation runs for `props`: `base` plus the keys of the plugins `props` names.

    Called by the herder's connector validation for the validate endpoint and before every
    create / update. Steps: fill in the converter and version keys of `base`; then for each alias
    of ``transforms`` and of ``predicates`` (in order, duplicates once) add its keys, grouped as
    ``Transforms: <alias>`` / ``Predicates: <alias>`` as Kafka groups them.
    """
    config_def = _framework_keys(base, props, choices)
    for alias in _aliases(props, TRANSFORMS_CONFIG):
        _define_alias(config_def, TRANSFORMS_CONFIG, alias, choices.transformations, choices, props)
    for alias in _aliases(props, PREDICATES_CONFIG):
        _define_alias(config_def, PREDICATES_CONFIG, alias, choices.predicates, choices, props)
    return config_def
