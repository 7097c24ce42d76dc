"""The storage sink's own keys (Confluent's names and defaults) and their parsed form, `SinkSettings`.

The keys of the parts plugged into the engine live beside them: `kconnect_storage.stores.config`,
`kconnect_storage.formats.config` and `kconnect_storage.partitioners.config`; `connector_config_def`
puts one connector's def together.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

from kconnect.config import NO_DEFAULT, ConfigDef, ConfigType, Importance, Range, Width
from kconnect.config.validators import CaseInsensitiveValidString

TOPICS_DIR_CONFIG = "topics.dir"
LOGS_DIR_CONFIG = "logs.dir"
FLUSH_SIZE_CONFIG = "flush.size"
ROTATE_INTERVAL_MS_CONFIG = "rotate.interval.ms"
ROTATE_SCHEDULE_INTERVAL_MS_CONFIG = "rotate.schedule.interval.ms"
SCHEMA_COMPATIBILITY_CONFIG = "schema.compatibility"
RETRY_BACKOFF_MS_CONFIG = "retry.backoff.ms"
MAX_RETRIES_CONFIG = "max.retries"
ZERO_PAD_WIDTH_CONFIG = "filename.offset.zero.pad.width"
NULL_VALUES_CONFIG = "behavior.on.null.values"

CONNECTOR_GROUP = "Connector"
STORAGE_GROUP = "Storage"
SCHEMA_GROUP = "Schema"


class SchemaCompatibility(str, Enum):
    """Confluent's ``schema.compatibility``: when a record's value schema differs from the open file's."""

    NONE = "NONE"
    BACKWARD = "BACKWARD"
    FORWARD = "FORWARD"
    FULL = "FULL"


def define_sink_keys(config_def: ConfigDef) -> ConfigDef:
    """Add the engine's keys: where files and the commit log go, when files are cut, retries."""
    return (
        config_def.define(
            TOPICS_DIR_CONFIG,
            type=ConfigType.STRING,
            default="topics",
            importance=Importance.HIGH,
            documentation="Top directory (below the store's root) of the files written; a topic's "
            "files are under <topics.dir>/<topic>/.",
            group=STORAGE_GROUP,
            order_in_group=10,
            width=Width.SHORT,
            display_name="Topics directory",
        )
        .define(
            LOGS_DIR_CONFIG,
            type=ConfigType.STRING,
            default="logs",
            importance=Importance.HIGH,
            documentation="Directory (below the store's root) of the commit log: one small entry per "
            "Kafka partition, present only while that partition's files are being published.",
            group=STORAGE_GROUP,
            order_in_group=11,
            width=Width.SHORT,
            display_name="Logs directory",
        )
        .define(
            FLUSH_SIZE_CONFIG,
            type=ConfigType.INT,
            default=NO_DEFAULT,
            validator=Range.at_least(1),
            importance=Importance.HIGH,
            documentation="Number of records of one Kafka partition written before its files are committed.",
            group=CONNECTOR_GROUP,
            order_in_group=1,
            width=Width.SHORT,
            display_name="Flush Size",
        )
        .define(
            ROTATE_INTERVAL_MS_CONFIG,
            type=ConfigType.LONG,
            default=-1,
            validator=Range.at_least(-1),
            importance=Importance.HIGH,
            documentation="Commit a Kafka partition's files once the timestamps (of the partitioner's "
            "timestamp.extractor) of its records span this many milliseconds; -1 turns it off.",
            group=CONNECTOR_GROUP,
            order_in_group=2,
            width=Width.SHORT,
            display_name="Rotate Interval (ms)",
        )
        .define(
            ROTATE_SCHEDULE_INTERVAL_MS_CONFIG,
            type=ConfigType.LONG,
            default=-1,
            validator=Range.at_least(-1),
            importance=Importance.MEDIUM,
            documentation="Commit open files at every multiple of this many milliseconds of wall-clock "
            "time (in the partitioner's timezone), even when no record arrives; -1 turns it off.",
            group=CONNECTOR_GROUP,
            order_in_group=3,
            width=Width.SHORT,
            display_name="Rotate Schedule Interval (ms)",
        )
        .define(
            RETRY_BACKOFF_MS_CONFIG,
            type=ConfigType.LONG,
            default=5000,
            validator=Range.at_least(0),
            importance=Importance.LOW,
            documentation="Wait between attempts of a store operation that failed.",
            group=CONNECTOR_GROUP,
            order_in_group=4,
            width=Width.SHORT,
            display_name="Retry Backoff (ms)",
        )
        .define(
            MAX_RETRIES_CONFIG,
            type=ConfigType.INT,
            default=10,
            validator=Range.at_least(0),
            importance=Importance.LOW,
            documentation="How many times a failed store operation is tried again, retry.backoff.ms "
            "apart, before the task fails with the store's error (kconnect's key; Confluent's HDFS "
            "sink retries without end).",
            group=CONNECTOR_GROUP,
            order_in_group=5,
            width=Width.SHORT,
            display_name="Maximum Retries",
        )
        .define(
            ZERO_PAD_WIDTH_CONFIG,
            type=ConfigType.INT,
            default=10,
            validator=Range.at_least(0),
            importance=Importance.LOW,
            documentation="Width to zero-pad the offsets in file names to, so names sort by offset.",
            group=CONNECTOR_GROUP,
            order_in_group=6,
            width=Width.SHORT,
            display_name="Filename Offset Zero Pad Width",
        )
        .define(
            NULL_VALUES_CONFIG,
            type=ConfigType.STRING,
            default="fail",
            validator=CaseInsensitiveValidString.in_("fail", "ignore"),
            importance=Importance.LOW,
            documentation="A record with a null value (a tombstone): fail (the task fails, or the record "
            "goes to the dead letter queue with errors.tolerance=all) or ignore (skipped).",
            group=CONNECTOR_GROUP,
            order_in_group=7,
            width=Width.SHORT,
            display_name="Behavior for null-valued records",
        )
        .define(
            SCHEMA_COMPATIBILITY_CONFIG,
            type=ConfigType.STRING,
            default=SchemaCompatibility.NONE.value,
            validator=CaseInsensitiveValidString.in_(*(c.value for c in SchemaCompatibility)),
            importance=Importance.HIGH,
            documentation="NONE: a record whose value schema differs from the open file's commits the "
            "files and starts new ones. BACKWARD or FULL: a newer schema version does so; a record of an "
            "older version is projected onto the open file's schema. FORWARD: an older version does so; "
            "a newer one is projected.",
            group=SCHEMA_GROUP,
            order_in_group=1,
            width=Width.SHORT,
            display_name="Schema Compatibility",
        )
    )


@dataclass(frozen=True, slots=True)
class SinkSettings:
    """The engine's keys, parsed."""

    topics_dir: str
    logs_dir: str
    flush_size: int
    rotate_interval_ms: int
    rotate_schedule_interval_ms: int
    retry_backoff_ms: int
    max_retries: int
    zero_pad_width: int
    schema_compatibility: SchemaCompatibility
    ignore_null_values: bool

    @classmethod
    def parse(cls, config: Mapping[str, str]) -> SinkSettings:
        """Parse the engine's keys (raises `ConfigException` naming a bad one)."""
        values = define_sink_keys(ConfigDef()).parse(config)
        return cls(
            topics_dir=str(values[TOPICS_DIR_CONFIG]).strip("/"),
            logs_dir=str(values[LOGS_DIR_CONFIG]).strip("/"),
            flush_size=int(str(values[FLUSH_SIZE_CONFIG])),
            rotate_interval_ms=int(str(values[ROTATE_INTERVAL_MS_CONFIG])),
            rotate_schedule_interval_ms=int(str(values[ROTATE_SCHEDULE_INTERVAL_MS_CONFIG])),
            retry_backoff_ms=int(str(values[RETRY_BACKOFF_MS_CONFIG])),
            max_retries=int(str(values[MAX_RETRIES_CONFIG])),
            zero_pad_width=int(str(values[ZERO_PAD_WIDTH_CONFIG])),
            schema_compatibility=SchemaCompatibility(str(values[SCHEMA_COMPATIBILITY_CONFIG]).upper()),
            ignore_null_values=str(values[NULL_VALUES_CONFIG]).lower() == "ignore",
        )


def schedule_needs_timezone(config: Mapping[str, str]) -> str | None:
    """Confluent's rule: ``rotate.schedule.interval.ms`` needs ``timezone`` (its wall-clock times are
    counted in it); the error text, or None."""
    try:
        scheduled = int(str(config.get(ROTATE_SCHEDULE_INTERVAL_MS_CONFIG, "-1")).strip()) > 0
    except ValueError:
        return None  # the key's own validator reports it
    if scheduled and not str(config.get("timezone", "")).strip():
        return "timezone configuration must be set when using rotate.schedule.interval.ms"
    return None
