"""The topic creation keys of a source connector (KIP-158): Kafka's `TopicCreationConfig` and enrich.

A source connector whose config has any ``topic.creation.`` key creates the topics it writes to
(when the worker's ``topic.creation.enable`` is true, the default). The keys:

- ``topic.creation.groups``: the aliases of extra groups (a framework key, in `connector_keys`);
- ``topic.creation.default.replication.factor`` and ``.partitions``: required; -1 is the broker's
  default;
- ``topic.creation.<group>.include`` / ``.exclude``: regex lists choosing the group's topics;
  ``.replication.factor`` / ``.partitions`` default to the default group's;
- any other ``topic.creation.<group>.<name>``: a topic config (``cleanup.policy``...) of the
  group's topics, passed to the broker as is.

`enrich_topic_creation` adds these keys to the def a connector config is validated with, as Kafka's
`SourceConnectorConfig.enrich` does (groups named as Kafka's `ConfigDef.embed` names them, error
texts naming the key without its prefix, as Kafka's embedded validators do). `topic_creation_groups`
parses them into `TopicCreationSettings` for the source loop, raising Kafka's text on a bad value.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from .configdef import NO_DEFAULT, ConfigDef, ConfigException, ConfigType, Importance, Width
from .connector_keys import TOPIC_CREATION_GROUP, TOPIC_CREATION_GROUPS_CONFIG
from .rules import Rule, Validator, fixed
from .values import parse_type

log = logging.getLogger(__name__)

TOPIC_CREATION_PREFIX: Final = "topic.creation."
DEFAULT_GROUP: Final = "default"
DEFAULT_PREFIX: Final = TOPIC_CREATION_PREFIX + DEFAULT_GROUP + "."
INCLUDE_CONFIG: Final = "include"
EXCLUDE_CONFIG: Final = "exclude"
REPLICATION_FACTOR_CONFIG: Final = "replication.factor"
PARTITIONS_CONFIG: Final = "partitions"
#: The group keys that are not topic configs.
GROUP_KEYS: Final = (INCLUDE_CONFIG, EXCLUDE_CONFIG, REPLICATION_FACTOR_CONFIG, PARTITIONS_CONFIG)
#: -1 asks the broker for its ``num.partitions`` / ``default.replication.factor``.
BROKER_DEFAULT: Final = -1

_DOCS: Final = {
    INCLUDE_CONFIG: (
        "Regular expressions (comma-separated) naming the topics this group creates; a topic must match "
        "one of them as a whole. Applies to the groups listed in topic.creation.groups, not to the default "
        "group, which takes every topic no other group takes."
    ),
    EXCLUDE_CONFIG: (
        "Regular expressions (comma-separated) naming topics this group never creates, even if include "
        "matches them. Applies to the groups listed in topic.creation.groups, not to the default group."
    ),
    REPLICATION_FACTOR_CONFIG: (
        "Replication factor of the topics this group creates; -1 for the broker's default. At most the "
        "number of brokers, or creation fails. Required for the default group; other groups take the "
        "default group's value when they do not set it."
    ),
    PARTITIONS_CONFIG: (
        "Number of partitions of the topics this group creates; -1 for the broker's default. Required for "
        "the default group; other groups take the default group's value when they do not set it."
    ),
}


def uses_topic_creation(props: Mapping[str, object]) -> bool:
    """Whether a source connector config asks for topic creation: any ``topic.creation.`` key (as Kafka)."""
    return any(key.startswith(TOPIC_CREATION_PREFIX) for key in props)


class _GroupKeyValidator(Validator):
    """One rule on a group key; messages name the key without ``topic.creation.<group>.`` (Kafka's embed).

    The rule cannot be said in JSON Schema, so it runs as Python; null passes (a missing or
    unparsable value already has its own error).
    """

    def __init__(self, prefix: str, rule: Rule, description: str) -> None:
        self.prefix = prefix
        self.rules = (rule,)
        self.description = description

    def ensure_valid(self, name: str, value: object) -> None:
        """Raise Kafka's `ConfigException` naming the unprefixed key if the rule fails."""
        failure = self.first_failure(value)
        if failure is not None:
            raise failure[1].error(self.error_name(name), value)

    def error_name(self, name: str) -> str:
        """The key name without its group prefix."""
        return name.removeprefix(self.prefix)

    def __str__(self) -> str:
        return self.description


def _minus_one_or_positive(reason: str) -> Rule:
    return Rule(
        None,
        lambda value: isinstance(value, int) and value != BROKER_DEFAULT and value < 1,
        fixed(reason),
    )


_REPLICATION_FACTOR_RULE = _minus_one_or_positive(
    "Replication factor must be positive and not larger than the number of brokers in the Kafka cluster, "
    "or -1 to use the broker's default"
)
_PARTITIONS_RULE = _minus_one_or_positive(
    "Number of partitions must be positive, or -1 to use the broker's default"
)


def _regex_error(patterns: object) -> str | None:
    for pattern in patterns if isinstance(patterns, list) else ():
        try:
            re.compile(str(pattern))
        except re.error as error:
            return f"Syntax error in regular expression: {error}"
    return None


_REGEX_LIST_RULE = Rule(
    None, lambda value: _regex_error(value) is not None, lambda value: str(_regex_error(value))
)


@dataclass(frozen=True)
class _GroupDef:
    """How Kafka defines one group's four keys (`TopicCreationConfig.configDef` / `defaultGroupConfigDef`).

    `group` is the group name those keys carry (``default``, ``Topic Creation: <alias>``); Kafka
    then embeds them under that same name, so the group a validate answer shows is doubled
    (``default: default``), as in Kafka's enriched def.
    """

    prefix: str
    group: str
    include_default: object
    replication_factor_default: object
    partitions_default: object
    regex_checked: bool

    @property
    def embedded_group(self) -> str:
        """The group name after Kafka's `ConfigDef.embed`: the prefix group, then the key's own."""
        return f"{self.group}: {self.group}"


def _define_group(config_def: ConfigDef, spec: _GroupDef) -> None:
    """Kafka's four group keys embedded under `spec.prefix`, numbered from 0 as `embed` numbers them."""
    lists = _GroupKeyValidator(spec.prefix, _REGEX_LIST_RULE, "valid regular expressions")
    keys: tuple[tuple[str, ConfigType, object, Validator | None, str], ...] = (
        (INCLUDE_CONFIG, ConfigType.LIST, spec.include_default, lists if spec.regex_checked else None,
         f"Inclusion Topic Pattern for {spec.group}"),
        (EXCLUDE_CONFIG, ConfigType.LIST, [], lists if spec.regex_checked else None,
         f"Exclusion Topic Pattern for {spec.group}"),
        (REPLICATION_FACTOR_CONFIG, ConfigType.SHORT, spec.replication_factor_default,
         _GroupKeyValidator(spec.prefix, _REPLICATION_FACTOR_RULE, "-1 or [1,...]"),
         f"Replication Factor for Topics in {spec.group}"),
        (PARTITIONS_CONFIG, ConfigType.INT, spec.partitions_default,
         _GroupKeyValidator(spec.prefix, _PARTITIONS_RULE, "-1 or [1,...]"),
         f"Partition Count for Topics in {spec.group}"),
    )  # fmt: skip
    for order, (name, config_type, default, validator, display_name) in enumerate(keys):
        config_def.define(
            spec.prefix + name,
            type=config_type,
            importance=Importance.LOW,
            documentation=_DOCS[name],
            default=default,
            validator=validator,
            group=spec.embedded_group,
            order_in_group=order,
            width=Width.LONG,
            display_name=display_name,
        )


def _default_group_def() -> _GroupDef:
    return _GroupDef(DEFAULT_PREFIX, DEFAULT_GROUP, ".*", NO_DEFAULT, NO_DEFAULT, regex_checked=False)


def group_aliases(props: Mapping[str, str | None]) -> list[str]:
    """The extra groups ``topic.creation.groups`` lists, in order, each once, without ``default``.

    ``default`` always exists: Kafka logs a warning and drops it from the list. A value that does
    not parse lists no groups (its own error is reported by the key's validation).
    """
    try:
        parsed = parse_type(
            TOPIC_CREATION_GROUPS_CONFIG, props.get(TOPIC_CREATION_GROUPS_CONFIG), ConfigType.LIST
        )
    except ConfigException:
        return []
    aliases = [str(alias) for alias in parsed or ()]  # type: ignore[attr-defined]
    if DEFAULT_GROUP in aliases:
        log.warning(
            "'%s' topic creation group always exists and does not need to be listed explicitly", DEFAULT_GROUP
        )
    return [alias for alias in dict.fromkeys(aliases) if alias != DEFAULT_GROUP]


def _valid_or_none(props: Mapping[str, str | None], name: str, config_type: ConfigType, rule: Rule) -> object:
    """The default group's parsed count, or None when it is missing or invalid (its own error says why)."""
    try:
        value = parse_type(name, props.get(name), config_type)
    except ConfigException:
        return None
    return None if rule.fails(value) else value


def enrich_topic_creation(base: ConfigDef, props: Mapping[str, str | None]) -> ConfigDef:
    """`base` plus the topic creation keys of `props` (Kafka's `embedDefaultGroup` and `enrich`).

    Called by the herder's connector validation for a source connector when the worker allows
    topic creation and `props` has a ``topic.creation.`` key. Steps: add the default group's keys
    (counts required); then for each alias of ``topic.creation.groups`` its keys, grouped as
    Kafka's embed names them, the counts defaulting to the default group's values.
    """
    config_def = ConfigDef(base)
    _define_group(config_def, _default_group_def())
    replication_factor = _valid_or_none(
        props, DEFAULT_PREFIX + REPLICATION_FACTOR_CONFIG, ConfigType.SHORT, _REPLICATION_FACTOR_RULE
    )
    partitions = _valid_or_none(props, DEFAULT_PREFIX + PARTITIONS_CONFIG, ConfigType.INT, _PARTITIONS_RULE)
    for alias in group_aliases(props):
        group = f"{TOPIC_CREATION_GROUP}: {alias}"
        prefix = f"{TOPIC_CREATION_PREFIX}{alias}."
        _define_group(config_def, _GroupDef(prefix, group, [], replication_factor, partitions, True))
    return config_def


@dataclass(frozen=True)
class TopicCreationSettings:
    """One group's settings, as the source loop applies them to a topic it creates."""

    name: str
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    replication_factor: int
    partitions: int
    topic_configs: Mapping[str, str]


def _other_configs(props: Mapping[str, str], prefix: str) -> dict[str, str]:
    """The group's topic configs: every key under `prefix` that is not one of the four group keys."""
    return {
        key[len(prefix) :]: value
        for key, value in props.items()
        if key.startswith(prefix) and key[len(prefix) :] not in GROUP_KEYS
    }


def topic_creation_groups(props: Mapping[str, str]) -> list[TopicCreationSettings]:
    """The groups of a source connector config that uses topic creation: its extra groups in listed
    order, then the default group (Kafka's `TopicCreationGroup.configuredGroups`).

    Called by the source loop when it starts a task. Raises `ConfigException` with Kafka's text
    for a missing or invalid value. The default group's include / exclude are ignored as in Kafka:
    it takes every topic no other group takes (a warning says so).
    """
    default_def = ConfigDef()
    _define_group(default_def, _default_group_def())
    default_def.parse(props)  # the default group's errors first, as Kafka parses it first
    for ignored in (INCLUDE_CONFIG, EXCLUDE_CONFIG):
        if DEFAULT_PREFIX + ignored in props:
            log.warning(
                "%s%s is ignored: the default topic creation group takes every topic no other group takes",
                DEFAULT_PREFIX,
                ignored,
            )
    stripped = {
        k: v
        for k, v in props.items()
        if k not in (DEFAULT_PREFIX + INCLUDE_CONFIG, DEFAULT_PREFIX + EXCLUDE_CONFIG)
    }
    parsed = enrich_topic_creation(ConfigDef(), props).parse(stripped)

    def settings(name: str, values: Mapping[str, object]) -> TopicCreationSettings:
        prefix = f"{TOPIC_CREATION_PREFIX}{name}."
        include, exclude = values[prefix + INCLUDE_CONFIG], values[prefix + EXCLUDE_CONFIG]
        assert isinstance(include, list) and isinstance(exclude, list)
        return TopicCreationSettings(
            name=name,
            include=tuple(str(pattern) for pattern in include),
            exclude=tuple(str(pattern) for pattern in exclude),
            replication_factor=_count(values[prefix + REPLICATION_FACTOR_CONFIG]),
            partitions=_count(values[prefix + PARTITIONS_CONFIG]),
            topic_configs=_other_configs(stripped, prefix),
        )

    groups = [settings(alias, parsed) for alias in group_aliases(props)]
    groups.append(settings(DEFAULT_GROUP, parsed))
    return groups


def _count(value: object) -> int:
    assert isinstance(value, int), value  # parse checked the type
    return value
