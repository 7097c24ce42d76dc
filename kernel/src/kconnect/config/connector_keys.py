"""The framework's connector keys: Kafka 4.1's Connector-, Source- and SinkConnectorConfig.

`connector_config_def`, `source_connector_config_def` and `sink_connector_config_def` give the keys
every connector has, with Kafka's names, types, defaults, importance, groups and orders; each row
of the tables below is one key. The docs are our own words.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

from kconnect.errors import BadRequestError

from .configdef import NO_DEFAULT, ConfigDef, ConfigType, Importance, Recommender, Width
from .rules import Rule, Validator
from .validators import (
    CaseInsensitiveValidString,
    CompositeValidator,
    NonEmptyString,
    NonEmptyStringWithoutControlChars,
    NonNullValidator,
    OptionalRange,
    Range,
    RegexValidator,
    UniqueItems,
    ValidString,
)
from .values import java_trim

COMMON_GROUP: Final = "Common"
TRANSFORMS_GROUP: Final = "Transforms"
PREDICATES_GROUP: Final = "Predicates"
ERROR_GROUP: Final = "Error Handling"
TOPIC_CREATION_GROUP: Final = "Topic Creation"
EXACTLY_ONCE_SUPPORT_GROUP: Final = "Exactly Once Support"
OFFSETS_TOPIC_GROUP: Final = "offsets.topic"

NAME_CONFIG: Final = "name"
CONNECTOR_CLASS_CONFIG: Final = "connector.class"
CONNECTOR_VERSION_CONFIG: Final = "connector.plugin.version"
TASKS_MAX_CONFIG: Final = "tasks.max"
TASKS_MAX_ENFORCE_CONFIG: Final = "tasks.max.enforce"
KEY_CONVERTER_CLASS_CONFIG: Final = "key.converter"
KEY_CONVERTER_VERSION_CONFIG: Final = "key.converter.plugin.version"
VALUE_CONVERTER_CLASS_CONFIG: Final = "value.converter"
VALUE_CONVERTER_VERSION_CONFIG: Final = "value.converter.plugin.version"
HEADER_CONVERTER_CLASS_CONFIG: Final = "header.converter"
HEADER_CONVERTER_VERSION_CONFIG: Final = "header.converter.plugin.version"
TRANSFORMS_CONFIG: Final = "transforms"
PREDICATES_CONFIG: Final = "predicates"
CONFIG_RELOAD_ACTION_CONFIG: Final = "config.action.reload"
ERRORS_RETRY_TIMEOUT_CONFIG: Final = "errors.retry.timeout"
ERRORS_RETRY_MAX_DELAY_CONFIG: Final = "errors.retry.delay.max.ms"
ERRORS_TOLERANCE_CONFIG: Final = "errors.tolerance"
ERRORS_LOG_ENABLE_CONFIG: Final = "errors.log.enable"
ERRORS_LOG_INCLUDE_MESSAGES_CONFIG: Final = "errors.log.include.messages"
TOPICS_CONFIG: Final = "topics"
TOPICS_REGEX_CONFIG: Final = "topics.regex"
DLQ_TOPIC_NAME_CONFIG: Final = "errors.deadletterqueue.topic.name"
DLQ_TOPIC_REPLICATION_FACTOR_CONFIG: Final = "errors.deadletterqueue.topic.replication.factor"
DLQ_CONTEXT_HEADERS_ENABLE_CONFIG: Final = "errors.deadletterqueue.context.headers.enable"
TOPIC_CREATION_GROUPS_CONFIG: Final = "topic.creation.groups"
EXACTLY_ONCE_SUPPORT_CONFIG: Final = "exactly.once.support"
TRANSACTION_BOUNDARY_CONFIG: Final = "transaction.boundary"
TRANSACTION_BOUNDARY_INTERVAL_CONFIG: Final = "transaction.boundary.interval.ms"
OFFSETS_TOPIC_CONFIG: Final = "offsets.storage.topic"

#: The converters a worker uses when its properties name none (Kafka 4's defaults).
WORKER_CONVERTER_DEFAULTS: Final[Mapping[str, str]] = {
    KEY_CONVERTER_CLASS_CONFIG: "org.apache.kafka.connect.json.JsonConverter",
    VALUE_CONVERTER_CLASS_CONFIG: "org.apache.kafka.connect.json.JsonConverter",
    HEADER_CONVERTER_CLASS_CONFIG: "org.apache.kafka.connect.storage.SimpleHeaderConverter",
}

NULL_VALUE_MESSAGE: Final = "Null value can not be supplied as the configuration value."

_VERSION_BOUND = re.compile(r"[0-9]+(?:[.-][0-9]+)*")


def _version_spec_error(spec: str) -> str | None:
    """The Maven `VersionRange.createFromVersionSpec` error for `spec`, or None if it parses.

    Covers Maven's syntax errors; ordering is only checked between purely numeric versions.
    """
    process = spec
    ranges = 0
    while process.startswith(("[", "(")):
        close_paren, close_bracket = process.find(")"), process.find("]")
        end = close_paren if close_bracket < 0 or 0 <= close_paren < close_bracket else close_bracket
        if end < 0:
            return f"Unbounded range: {spec}"
        restriction = process[: end + 1]
        bounds = java_trim(restriction[1:-1])
        if "," not in bounds:
            if not (restriction.startswith("[") and restriction.endswith("]")):
                return f"Single version must be surrounded by []: {restriction}"
        else:
            low, high = (java_trim(part) for part in bounds.split(",", 1))
            # maven-artifact 3.9 (Kafka 4.3's) accepts [1.0,1.0] and refuses (1.0,1.0] as out of order.
            if low and low == high and not (restriction.startswith("[") and restriction.endswith("]")):
                return f"Range defies version ordering: {restriction}"
            if _VERSION_BOUND.fullmatch(low) and _VERSION_BOUND.fullmatch(high):
                if [int(p) for p in re.split("[.-]", high)] < [int(p) for p in re.split("[.-]", low)]:
                    return f"Range defies version ordering: {restriction}"
        ranges += 1
        process = java_trim(process[end + 1 :])
        if process.startswith(","):
            process = java_trim(process[1:])
    if process and ranges:
        return f"Only fully-qualified sets allowed in multiple set scenario: {spec}"
    return None


def _version_error(value: object) -> str | None:
    if not isinstance(value, str) or value == "latest":
        return None
    return _version_spec_error(java_trim(value))


class PluginVersionValidator(Validator):
    """A ``*.plugin.version`` value must be null, ``latest``, a version or a Maven version range (KIP-891).

    Its one rule parses Maven's syntax, which JSON Schema cannot say: it runs as Python.
    """

    rules = (
        Rule(
            None,
            lambda value: _version_error(value) is not None,
            lambda value: str(_version_error(value)),
        ),
    )

    def __str__(self) -> str:
        return "a version or a version range"


def _unique_aliases(kind: str) -> Validator:
    unique = UniqueItems("Duplicate alias provided.", f"unique {kind}")
    return CompositeValidator.of(NonNullValidator(), unique)


def _optional_at_least_zero() -> Validator:
    return OptionalRange(0)


_T = ConfigType
_I = Importance
_W = Width
_VERSION = PluginVersionValidator()

# name, type, default, validator, importance, group, order in group, width, display name (Kafka 4.1's values)
_KeyRow = tuple[str, ConfigType, object, Validator | None, Importance, str, int, Width, str]

# fmt: off
_COMMON_KEYS: Final[tuple[_KeyRow, ...]] = (
    (NAME_CONFIG, _T.STRING, NO_DEFAULT, NonEmptyStringWithoutControlChars(), _I.HIGH, COMMON_GROUP, 1,
     _W.MEDIUM, "Connector name"),
    (CONNECTOR_CLASS_CONFIG, _T.STRING, NO_DEFAULT, None, _I.HIGH, COMMON_GROUP, 2, _W.LONG,
     "Connector class"),
    (CONNECTOR_VERSION_CONFIG, _T.STRING, None, _VERSION, _I.MEDIUM, COMMON_GROUP, 3, _W.MEDIUM,
     "Connector version"),
    (TASKS_MAX_CONFIG, _T.INT, 1, Range.at_least(1), _I.HIGH, COMMON_GROUP, 4, _W.SHORT, "Tasks max"),
    (TASKS_MAX_ENFORCE_CONFIG, _T.BOOLEAN, True, None, _I.LOW, COMMON_GROUP, 5, _W.SHORT,
     "Enforce tasks max"),
    (KEY_CONVERTER_CLASS_CONFIG, _T.CLASS, None, None, _I.LOW, COMMON_GROUP, 6, _W.SHORT,
     "Key converter class"),
    (KEY_CONVERTER_VERSION_CONFIG, _T.STRING, None, _VERSION, _I.LOW, COMMON_GROUP, 7, _W.SHORT,
     "Key converter version"),
    (VALUE_CONVERTER_CLASS_CONFIG, _T.CLASS, None, None, _I.LOW, COMMON_GROUP, 8, _W.SHORT,
     "Value converter class"),
    (VALUE_CONVERTER_VERSION_CONFIG, _T.STRING, None, _VERSION, _I.LOW, COMMON_GROUP, 9, _W.SHORT,
     "Value converter version"),
    (HEADER_CONVERTER_CLASS_CONFIG, _T.CLASS, None, None, _I.LOW, COMMON_GROUP, 10, _W.SHORT,
     "Header converter class"),
    (HEADER_CONVERTER_VERSION_CONFIG, _T.STRING, None, _VERSION, _I.LOW, COMMON_GROUP, 11, _W.SHORT,
     "Header converter version"),
    (TRANSFORMS_CONFIG, _T.LIST, "", _unique_aliases("transformation aliases"), _I.LOW, TRANSFORMS_GROUP, 12,
     _W.LONG, "Transforms"),
    (PREDICATES_CONFIG, _T.LIST, "", _unique_aliases("predicate aliases"), _I.LOW, PREDICATES_GROUP, 13,
     _W.LONG, "Predicates"),
    (CONFIG_RELOAD_ACTION_CONFIG, _T.STRING, "restart", ValidString.in_("none", "restart"), _I.LOW,
     COMMON_GROUP, 14, _W.MEDIUM, "Reload Action"),
    (ERRORS_RETRY_TIMEOUT_CONFIG, _T.LONG, 0, None, _I.MEDIUM, ERROR_GROUP, 1, _W.MEDIUM,
     "Retry Timeout for Errors"),
    (ERRORS_RETRY_MAX_DELAY_CONFIG, _T.LONG, 60000, None, _I.MEDIUM, ERROR_GROUP, 2, _W.MEDIUM,
     "Maximum Delay Between Retries for Errors"),
    (ERRORS_TOLERANCE_CONFIG, _T.STRING, "none", ValidString.in_("none", "all"), _I.MEDIUM, ERROR_GROUP, 3,
     _W.SHORT, "Error Tolerance"),
    (ERRORS_LOG_ENABLE_CONFIG, _T.BOOLEAN, False, None, _I.MEDIUM, ERROR_GROUP, 4, _W.SHORT, "Log Errors"),
    (ERRORS_LOG_INCLUDE_MESSAGES_CONFIG, _T.BOOLEAN, False, None, _I.MEDIUM, ERROR_GROUP, 5, _W.SHORT,
     "Log Error Details"),
)

_SINK_KEYS: Final[tuple[_KeyRow, ...]] = (
    (TOPICS_CONFIG, _T.LIST, "", None, _I.HIGH, COMMON_GROUP, 4, _W.LONG, "Topics"),
    (TOPICS_REGEX_CONFIG, _T.STRING, "", RegexValidator(), _I.HIGH, COMMON_GROUP, 4, _W.LONG, "Topics regex"),
    (DLQ_TOPIC_NAME_CONFIG, _T.STRING, "", None, _I.MEDIUM, ERROR_GROUP, 6, _W.MEDIUM,
     "Dead Letter Queue Topic Name"),
    (DLQ_TOPIC_REPLICATION_FACTOR_CONFIG, _T.SHORT, 3, None, _I.MEDIUM, ERROR_GROUP, 7, _W.MEDIUM,
     "Dead Letter Queue Topic Replication Factor"),
    (DLQ_CONTEXT_HEADERS_ENABLE_CONFIG, _T.BOOLEAN, False, None, _I.MEDIUM, ERROR_GROUP, 8, _W.MEDIUM,
     "Enable Error Context Headers"),
)

_SOURCE_KEYS: Final[tuple[_KeyRow, ...]] = (
    (TOPIC_CREATION_GROUPS_CONFIG, _T.LIST, "", _unique_aliases("topic creation groups"), _I.LOW,
     TOPIC_CREATION_GROUP, 1, _W.LONG, "Topic Creation Groups"),
    (EXACTLY_ONCE_SUPPORT_CONFIG, _T.STRING, "requested",
     CaseInsensitiveValidString.in_("requested", "required"), _I.MEDIUM, EXACTLY_ONCE_SUPPORT_GROUP, 2,
     _W.SHORT, "Exactly once support"),
    (TRANSACTION_BOUNDARY_CONFIG, _T.STRING, "poll",
     CaseInsensitiveValidString.in_("poll", "interval", "connector"), _I.MEDIUM, EXACTLY_ONCE_SUPPORT_GROUP,
     3, _W.SHORT, "Transaction Boundary"),
    (TRANSACTION_BOUNDARY_INTERVAL_CONFIG, _T.LONG, None, _optional_at_least_zero(), _I.LOW,
     EXACTLY_ONCE_SUPPORT_GROUP, 4, _W.SHORT, "Transaction boundary interval"),
    (OFFSETS_TOPIC_CONFIG, _T.STRING, None, NonEmptyString(), _I.LOW, OFFSETS_TOPIC_GROUP, 1, _W.LONG,
     "Offsets topic"),
)
# fmt: on

_DOCS: Final = {
    NAME_CONFIG: "Unique name of this connector within the Connect cluster.",
    CONNECTOR_CLASS_CONFIG: (
        "Class name or alias of the connector plugin; for "
        "org.apache.kafka.connect.file.FileStreamSinkConnector, FileStreamSink and FileStreamSinkConnector "
        "work too."
    ),
    CONNECTOR_VERSION_CONFIG: "Version of the connector plugin to run.",
    TASKS_MAX_CONFIG: "Largest number of tasks this connector may run.",
    TASKS_MAX_ENFORCE_CONFIG: (
        "(Deprecated) Whether a connector that generates more tasks than tasks.max fails, along with "
        "existing task sets larger than tasks.max. Set to false to let them run. This property will be "
        "removed in a future major release."
    ),
    KEY_CONVERTER_CLASS_CONFIG: (
        "Converter between Connect data and the serialized form of record keys in Kafka, so any connector "
        "works with any key format (JSON, Avro, ...). Defaults to the worker's key.converter."
    ),
    KEY_CONVERTER_VERSION_CONFIG: "Version of the key converter plugin.",
    VALUE_CONVERTER_CLASS_CONFIG: (
        "Converter between Connect data and the serialized form of record values in Kafka, so any connector "
        "works with any value format (JSON, Avro, ...). Defaults to the worker's value.converter."
    ),
    VALUE_CONVERTER_VERSION_CONFIG: "Version of the value converter plugin.",
    HEADER_CONVERTER_CLASS_CONFIG: (
        "HeaderConverter between Connect data and the serialized form of record header values in Kafka. "
        "Defaults to the worker's header.converter."
    ),
    HEADER_CONVERTER_VERSION_CONFIG: "Version of the header converter plugin.",
    TRANSFORMS_CONFIG: "Aliases of the transformations applied to records, in order.",
    PREDICATES_CONFIG: "Aliases of the predicates that transformations may use.",
    CONFIG_RELOAD_ACTION_CONFIG: (
        "What Connect does when a config provider changes a value in this connector's config: 'none' does "
        "nothing; 'restart' restarts the connector with the new values, possibly later if the provider says "
        "the current value expires later."
    ),
    ERRORS_RETRY_TIMEOUT_CONFIG: (
        "How long, in milliseconds, a failed operation is retried. 0 (the default) means no retries; -1 "
        "retries forever."
    ),
    ERRORS_RETRY_MAX_DELAY_CONFIG: (
        "Longest wait, in milliseconds, between two retries; past it random jitter is added so that retries "
        "do not all fire together."
    ),
    ERRORS_TOLERANCE_CONFIG: (
        "How errors during operation are tolerated: 'none' (the default) fails the task at the first error; "
        "'all' skips problematic records."
    ),
    ERRORS_LOG_ENABLE_CONFIG: (
        "If true, each error, the failed operation and the record are written to the Connect log. Off by "
        "default, so that only errors that are not tolerated are reported."
    ),
    ERRORS_LOG_INCLUDE_MESSAGES_CONFIG: (
        "Whether a logged error includes the record that caused it (sink records: topic, partition, offset, "
        "timestamp; source records: key, value, headers, timestamp and their Kafka and source coordinates). "
        "Off by default, which keeps record contents out of log files."
    ),
    TOPICS_CONFIG: "Comma-separated topics to consume.",
    TOPICS_REGEX_CONFIG: (
        "Regular expression selecting the topics to consume. Set either topics or topics.regex."
    ),
    DLQ_TOPIC_NAME_CONFIG: (
        "Topic that receives, as a dead letter queue (DLQ), the records this sink connector, its "
        "transformations or its converters failed on. Blank (the default) records nothing."
    ),
    DLQ_TOPIC_REPLICATION_FACTOR_CONFIG: (
        "Replication factor of the dead letter queue topic if it must be created."
    ),
    DLQ_CONTEXT_HEADERS_ENABLE_CONFIG: (
        "If true, records written to the dead letter queue carry headers describing the error; their keys "
        "start with __connect.errors. so they cannot clash with the record's own headers."
    ),
    TOPIC_CREATION_GROUPS_CONFIG: "Groups of settings for the topics this source connector creates.",
    EXACTLY_ONCE_SUPPORT_CONFIG: (
        'One of requested, required. "required" makes validation check that the connector can give '
        "exactly-once delivery with this config, and fails it if the validating worker has exactly-once "
        'source support disabled. Use "requested" for connectors that may give exactly-once delivery without '
        "declaring it, after reading their documentation."
    ),
    TRANSACTION_BOUNDARY_CONFIG: (
        "One of poll, interval, connector. 'poll' commits a producer transaction per batch a task returns; "
        "'connector' lets the connector define transactions (a connector that cannot fails to start); "
        "'interval' commits after a fixed time interval."
    ),
    TRANSACTION_BOUNDARY_INTERVAL_CONFIG: (
        "With transaction.boundary=interval, how often tasks commit producer transactions; unset means the "
        "worker's offset.flush.interval.ms. Ignored for other boundaries."
    ),
    OFFSETS_TOPIC_CONFIG: (
        "A separate offsets topic for this connector, created if missing on the Kafka cluster the "
        "connector's producer writes to. Empty or unset means the worker's offsets topic. Distributed "
        "mode only."
    ),
}


def _define_rows(
    config_def: ConfigDef, rows: tuple[_KeyRow, ...], recommenders: Mapping[str, Recommender] | None
) -> ConfigDef:
    for name, config_type, default, validator, importance, group, order, width, display_name in rows:
        config_def.define(
            name,
            type=config_type,
            importance=importance,
            documentation=_DOCS[name],
            default=default,
            validator=validator,
            group=group,
            order_in_group=order,
            width=width,
            display_name=display_name,
            recommender=(recommenders or {}).get(name),
        )
    return config_def


def connector_config_def(recommenders: Mapping[str, Recommender] | None = None) -> ConfigDef:
    """The keys every connector has (Kafka 4.1's `ConnectorConfig.configDef`), in Kafka's order.

    `recommenders` optionally attaches a recommender by key name (e.g. the installed converter
    classes for ``key.converter``), as Kafka's enriched def does with its plugin recommenders.
    """
    return _define_rows(ConfigDef(), _COMMON_KEYS, recommenders)


def sink_connector_config_def(recommenders: Mapping[str, Recommender] | None = None) -> ConfigDef:
    """The keys of every sink connector (Kafka's `SinkConnectorConfig.configDef`)."""
    return _define_rows(connector_config_def(recommenders), _SINK_KEYS, recommenders)


def source_connector_config_def(recommenders: Mapping[str, Recommender] | None = None) -> ConfigDef:
    """The keys of every source connector (Kafka's `SourceConnectorConfig.configDef`)."""
    return _define_rows(connector_config_def(recommenders), _SOURCE_KEYS, recommenders)


def with_connector_name(config: Mapping[str, str], name: str) -> dict[str, str]:
    """`config` with ``name`` set to `name` (the URL's), as Kafka's ``checkAndPutConnectorConfigName``:
    BadRequestError with Kafka's text if it names another connector."""
    given = config.get(NAME_CONFIG)
    if given is not None and given != name:
        raise BadRequestError(
            f"Connector name configuration ({given}) doesn't match connector name in the URL ({name})"
        )
    return {**config, NAME_CONFIG: name}


def connector_offsets_topic(config: Mapping[str, str] | None) -> str | None:
    """A source connector's own ``offsets.storage.topic``, or None when it names none (blank counts
    as none): the worker's offsets topic then holds its offsets."""
    return ((config or {}).get(OFFSETS_TOPIC_CONFIG) or "").strip() or None
