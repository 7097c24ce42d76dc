"""What the validate endpoint answers, and what create / update check first (Kafka's validateConnectorConfig).

`build_config_infos` validates a connector config against the framework's keys (`connector_keys`,
enriched with the keys of the plugins it names: `plugin_keys`) plus the connector's own, adds
Kafka's sink topic checks (`validate_sink_config`) and renders Kafka's ConfigInfos.
`connector_plugin_config` answers ``GET /connector-plugins/{plugin}/config`` (KIP-769).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping

from .configdef import ConfigDef, ConfigType, ConfigValue, java_str, java_trim, parse_type
from .connector_keys import (
    CONNECTOR_CLASS_CONFIG,
    DLQ_TOPIC_NAME_CONFIG,
    NULL_VALUE_MESSAGE,
    TOPICS_CONFIG,
    TOPICS_REGEX_CONFIG,
    connector_config_def,
    sink_connector_config_def,
    source_connector_config_def,
)
from .validation import ConfigInfos, ConfigKeyInfo, generate_result

__all__ = [
    "build_config_infos",
    "connector_config_def",
    "connector_plugin_config",
    "sink_connector_config_def",
    "source_connector_config_def",
    "validate_sink_config",
    "whole_topic_pattern",
]

log = logging.getLogger(__name__)

# Python allows global inline flags such as ``(?i)`` only at the very start of a pattern.
_LEADING_FLAGS = re.compile(r"(?:\(\?[aiLmsux]+\))*")


def whole_topic_pattern(regex: str) -> re.Pattern[str]:
    """Compile a ``topics.regex`` so that its ``match`` accepts only whole topic names.

    Kafka tests a topic with ``Matcher.matches()``; aiokafka subscribes with ``pattern.match``, which
    accepts a prefix (``orders`` would also take ``orders-dlq``). The sink's subscription and the DLQ
    check both use this. Raises `re.error` when `regex` does not compile.
    """
    compiled = re.compile(regex)
    flags = _LEADING_FLAGS.match(regex)
    lead = flags.group() if flags else ""
    # In verbose mode a trailing comment would swallow the closing parenthesis without the newline.
    end = "\n" if compiled.flags & re.VERBOSE else ""
    return re.compile(f"{lead}(?:{regex[len(lead) :]}{end})\\Z")


def _is_blank(value: object) -> bool:
    return value is None or (isinstance(value, str) and not java_trim(value))


def validate_sink_config(props: Mapping[str, str | None], values: dict[str, ConfigValue]) -> None:
    """Kafka's `SinkConnectorConfig.validate`: topics vs topics.regex and the DLQ topic, added to `values`.

    Unlike Kafka, a topics.regex that does not compile skips the DLQ check instead of failing the
    whole request (the regex's own error is already reported).
    """

    def add(name: str, message: str) -> None:
        values.setdefault(name, ConfigValue(name, props.get(name))).add_error(message)

    topics, regex = props.get(TOPICS_CONFIG), props.get(TOPICS_REGEX_CONFIG)
    dlq_topic = java_trim(props.get(DLQ_TOPIC_NAME_CONFIG) or "")
    if not _is_blank(topics) and not _is_blank(regex):
        message = (
            f"{TOPICS_CONFIG} and {TOPICS_REGEX_CONFIG} are mutually exclusive options, but both are set."
        )
        add(TOPICS_CONFIG, message)
        add(TOPICS_REGEX_CONFIG, message)
    if _is_blank(topics) and _is_blank(regex):
        message = f"Must configure one of {TOPICS_CONFIG} or {TOPICS_REGEX_CONFIG}"
        add(TOPICS_CONFIG, message)
        add(TOPICS_REGEX_CONFIG, message)
    if not dlq_topic:
        return
    if not _is_blank(topics):
        parsed = parse_type(TOPICS_CONFIG, topics, ConfigType.LIST)
        listed = list(dict.fromkeys(t for t in parsed if t))  # type: ignore[attr-defined]
        if dlq_topic in listed:
            message = (
                f"The DLQ topic '{dlq_topic}' may not be included in the list of topics "
                f"('{TOPICS_CONFIG}={java_str(listed)}') consumed by the connector"
            )
            add(TOPICS_CONFIG, message)
    if regex is not None and not _is_blank(regex):
        try:
            matches = whole_topic_pattern(regex).match(dlq_topic) is not None
        except re.error:
            matches = False
        if matches:
            message = (
                f"The DLQ topic '{dlq_topic}' may not be matched by the regex for the topics "
                f"('{TOPICS_REGEX_CONFIG}={regex}') consumed by the connector"
            )
            add(TOPICS_REGEX_CONFIG, message)


def build_config_infos(
    connector_name: str,
    plugin_class_name: str,
    common_def: ConfigDef,
    connector_def: ConfigDef,
    props: Mapping[str, str | None],
    connector_validate: Callable[[Mapping[str, str]], Mapping[str, ConfigValue]] | None = None,
    *,
    sink: bool | None = None,
) -> ConfigInfos:
    """What the validate endpoint answers for `props`, and what create/update check first.

    Steps, as Kafka's `validateConnectorConfig`: validate `common_def` (the source or sink def);
    for a sink (`sink`, or by default: `common_def` defines ``topics``) add the topics/DLQ checks;
    add the connector's own values (`connector_validate`, by default `connector_def.validate`);
    flag null values; render with `generate_result`: keyless values first, then the common keys,
    then the connector's keys (a connector key of the same name replaces the common one in place).
    ``name`` is the ``connector.class`` value as sent, as in Kafka; `plugin_class_name` stands in
    only if `props` lacks it. Unlike Kafka, a null value's error is kept for connector-defined keys.
    """
    log.debug("Validating config of connector %s (plugin %s)", connector_name, plugin_class_name)
    framework_values = common_def.validate(props)
    if sink if sink is not None else TOPICS_CONFIG in common_def.config_keys:
        validate_sink_config(props, framework_values)
    string_props: Mapping[str, str] = props  # type: ignore[assignment]  # nulls are flagged below
    own_values = dict(
        connector_validate(string_props) if connector_validate else connector_def.validate(props)
    )
    for name, value in props.items():
        if value is None:
            values = own_values if name in own_values else framework_values
            values.setdefault(name, ConfigValue(name)).add_error(NULL_VALUE_MESSAGE)
    keys = dict(common_def.config_keys)
    keys.update(connector_def.config_keys)
    connector_class = props.get(CONNECTOR_CLASS_CONFIG)
    return generate_result(
        plugin_class_name if connector_class is None else connector_class,
        keys,
        [*framework_values.values(), *own_values.values()],
        [*common_def.groups(), *connector_def.groups()],
    )


def connector_plugin_config(
    plugin_def: ConfigDef, framework_def: ConfigDef | None = None
) -> list[ConfigKeyInfo]:
    """``GET /connector-plugins/{plugin}/config`` (KIP-769): the plugin's keys, then framework keys it lacks.

    For `Connector` plugins pass the source or sink def as `framework_def`; other plugins have none.
    """
    merged = plugin_def if framework_def is None else plugin_def.merge(framework_def, keep_existing=True)
    return [ConfigKeyInfo.from_key(key) for key in merged.config_keys.values()]
