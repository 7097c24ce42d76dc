"""JdbcSinkConnector's keys: Confluent's names, types and defaults, documented in our words."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kconnect.config import NO_DEFAULT, ConfigDef, ConfigType, Importance, NonEmptyString, Range, Width

from kconnect_jdbc.config import (
    DB_TIMEZONE_CONFIG,
    QUOTE_SQL_IDENTIFIERS_CONFIG,
    TIME_ZONE,
    ConnectionSettings,
    define_connection_keys,
    one_of_ignoring_case,
)
from kconnect_jdbc.unsupported import REFUSED

INSERT_MODE_CONFIG = "insert.mode"
BATCH_SIZE_CONFIG = "batch.size"
DELETE_ENABLED_CONFIG = "delete.enabled"
TABLE_NAME_FORMAT_CONFIG = "table.name.format"
PK_MODE_CONFIG = "pk.mode"
PK_FIELDS_CONFIG = "pk.fields"
FIELDS_WHITELIST_CONFIG = "fields.whitelist"
AUTO_CREATE_CONFIG = "auto.create"
AUTO_EVOLVE_CONFIG = "auto.evolve"
MAX_RETRIES_CONFIG = "max.retries"
RETRY_BACKOFF_MS_CONFIG = "retry.backoff.ms"
TRIM_SENSITIVE_LOG_CONFIG = "trim.sensitive.log"

INSERT_MODES = ("insert", "upsert", "update")
PK_MODES = ("none", "kafka", "record_key", "record_value")
#: The key columns of ``pk.mode=kafka`` when ``pk.fields`` names none.
DEFAULT_KAFKA_PK_NAMES = ("__connect_topic", "__connect_partition", "__connect_offset")
DELETES_NEED_RECORD_KEY = "Deletes are only supported for pk.mode record_key"

WRITES_GROUP = "Writes"
DATA_MAPPING_GROUP = "Data Mapping"
DDL_GROUP = "DDL Support"
RETRIES_GROUP = "Retries"


def _sink_config_def() -> ConfigDef:
    config_def = define_connection_keys(ConfigDef(), url_default=NO_DEFAULT)
    return (
        config_def.define(
            INSERT_MODE_CONFIG,
            type=ConfigType.STRING,
            default="insert",
            validator=one_of_ignoring_case(*INSERT_MODES),
            importance=Importance.HIGH,
            documentation=(
                "insert: plain INSERTs. upsert: insert or, when a row with the same key exists, update "
                "it, with the database's own statement (PostgreSQL and SQLite ON CONFLICT, MySQL ON "
                "DUPLICATE KEY UPDATE). update: UPDATE the row with the record's key."
            ),
            group=WRITES_GROUP,
            order_in_group=1,
            width=Width.MEDIUM,
            display_name="Insert Mode",
        )
        .define(
            BATCH_SIZE_CONFIG,
            type=ConfigType.INT,
            default=3000,
            validator=Range.at_least(0),
            importance=Importance.MEDIUM,
            documentation="Most records written to a table in one statement batch.",
            group=WRITES_GROUP,
            order_in_group=2,
            width=Width.SHORT,
            display_name="Batch Size",
        )
        .define(
            DELETE_ENABLED_CONFIG,
            type=ConfigType.BOOLEAN,
            default=False,
            importance=Importance.MEDIUM,
            documentation="Delete the row of a tombstone (null value) by its key; needs pk.mode=record_key.",
            group=WRITES_GROUP,
            order_in_group=3,
            width=Width.SHORT,
            display_name="Enable deletes",
        )
        .define(
            TABLE_NAME_FORMAT_CONFIG,
            type=ConfigType.STRING,
            default="${topic}",
            validator=NonEmptyString(),
            importance=Importance.MEDIUM,
            documentation="The table a topic's records go to; ``${topic}`` stands for the topic's name.",
            group=DATA_MAPPING_GROUP,
            order_in_group=1,
            width=Width.LONG,
            display_name="Table Name Format",
        )
        .define(
            PK_MODE_CONFIG,
            type=ConfigType.STRING,
            default="none",
            validator=one_of_ignoring_case(*PK_MODES),
            importance=Importance.HIGH,
            documentation=(
                "Where the primary key comes from. none: no key. kafka: the record's topic, partition "
                "and offset. record_key: the record key (a primitive, or fields of a struct). "
                "record_value: fields of the record value."
            ),
            group=DATA_MAPPING_GROUP,
            order_in_group=2,
            width=Width.MEDIUM,
            display_name="Primary Key Mode",
        )
        .define(
            PK_FIELDS_CONFIG,
            type=ConfigType.LIST,
            default="",
            importance=Importance.MEDIUM,
            documentation=(
                "The key's column names. kafka: three names (default __connect_topic, "
                "__connect_partition, __connect_offset). record_key: the one column of a primitive key, "
                "or the struct fields to use (empty: all). record_value: the value fields to use "
                "(empty: all)."
            ),
            group=DATA_MAPPING_GROUP,
            order_in_group=3,
            width=Width.LONG,
            display_name="Primary Key Fields",
        )
        .define(
            FIELDS_WHITELIST_CONFIG,
            type=ConfigType.LIST,
            default="",
            importance=Importance.MEDIUM,
            documentation="Value fields to write (empty: all); pk.fields alone picks the key columns.",
            group=DATA_MAPPING_GROUP,
            order_in_group=4,
            width=Width.LONG,
            display_name="Fields Whitelist",
        )
        .define(
            DB_TIMEZONE_CONFIG,
            type=ConfigType.STRING,
            default="UTC",
            validator=TIME_ZONE,
            importance=Importance.MEDIUM,
            documentation="Timestamps are written to columns without a time zone as times of this zone.",
            group=DATA_MAPPING_GROUP,
            order_in_group=5,
            width=Width.MEDIUM,
            display_name="DB Time Zone",
        )
        .define(
            AUTO_CREATE_CONFIG,
            type=ConfigType.BOOLEAN,
            default=False,
            importance=Importance.MEDIUM,
            documentation="Create a missing table from the record's schema (CREATE TABLE).",
            group=DDL_GROUP,
            order_in_group=1,
            width=Width.SHORT,
            display_name="Auto-Create",
        )
        .define(
            AUTO_EVOLVE_CONFIG,
            type=ConfigType.BOOLEAN,
            default=False,
            importance=Importance.MEDIUM,
            documentation=(
                "Add the columns a record has and the table lacks (ALTER TABLE ADD, nullable); "
                "columns are never dropped or changed."
            ),
            group=DDL_GROUP,
            order_in_group=2,
            width=Width.SHORT,
            display_name="Auto-Evolve",
        )
        .define(
            QUOTE_SQL_IDENTIFIERS_CONFIG,
            type=ConfigType.STRING,
            default="always",
            validator=one_of_ignoring_case("always", "never"),
            importance=Importance.MEDIUM,
            documentation=(
                "always: table and column names keep their case. never: they are folded as the "
                "database folds unquoted names (PostgreSQL: lower case)."
            ),
            group=DDL_GROUP,
            order_in_group=3,
            width=Width.MEDIUM,
            display_name="Quote Identifiers",
        )
        .define(
            MAX_RETRIES_CONFIG,
            type=ConfigType.INT,
            default=10,
            validator=Range.at_least(0),
            importance=Importance.MEDIUM,
            documentation="How many times a failed write is retried before the task fails.",
            group=RETRIES_GROUP,
            order_in_group=1,
            width=Width.SHORT,
            display_name="Maximum Retries",
        )
        .define(
            RETRY_BACKOFF_MS_CONFIG,
            type=ConfigType.INT,
            default=3000,
            validator=Range.at_least(0),
            importance=Importance.MEDIUM,
            documentation="Milliseconds to wait after a failed write before retrying it.",
            group=RETRIES_GROUP,
            order_in_group=2,
            width=Width.SHORT,
            display_name="Retry Backoff (millis)",
        )
        .define(
            TRIM_SENSITIVE_LOG_CONFIG,
            type=ConfigType.BOOLEAN,
            default=False,
            importance=Importance.LOW,
            documentation=(
                "Keep the database's error messages, which may quote row values, out of the task's "
                "logs, its failure trace and its retries: a failed write is reported as <redacted> "
                "[class=...; SQLState=...; errorCode=...]."
            ),
        )
    )


SINK_CONFIG_DEF = _sink_config_def()


@dataclass(frozen=True)
class SinkSettings:
    """A JdbcSinkConnector config, parsed and typed."""

    connector_name: str
    connection: ConnectionSettings
    insert_mode: str
    batch_size: int
    delete_enabled: bool
    table_name_format: str
    pk_mode: str
    pk_fields: tuple[str, ...]
    fields_whitelist: tuple[str, ...]
    db_timezone: str
    auto_create: bool
    auto_evolve: bool
    quote_identifiers: bool
    max_retries: int
    retry_backoff_ms: int
    trim_sensitive_log: bool

    @classmethod
    def parse(cls, config: Mapping[str, str]) -> SinkSettings:
        """Parse a connector or task config; raises ConfigException on a bad or unsupported value."""
        p = SINK_CONFIG_DEF.parse(config)
        REFUSED.check(config)
        return cls(
            connector_name=config.get("name", ""),
            connection=ConnectionSettings.from_parsed(p),
            insert_mode=str(p[INSERT_MODE_CONFIG]).lower(),
            batch_size=int(p[BATCH_SIZE_CONFIG]),  # type: ignore[call-overload]
            delete_enabled=bool(p[DELETE_ENABLED_CONFIG]),
            table_name_format=str(p[TABLE_NAME_FORMAT_CONFIG]),
            pk_mode=str(p[PK_MODE_CONFIG]).lower(),
            pk_fields=_strings(p[PK_FIELDS_CONFIG]),
            fields_whitelist=_strings(p[FIELDS_WHITELIST_CONFIG]),
            db_timezone=str(p[DB_TIMEZONE_CONFIG]),
            auto_create=bool(p[AUTO_CREATE_CONFIG]),
            auto_evolve=bool(p[AUTO_EVOLVE_CONFIG]),
            quote_identifiers=str(p[QUOTE_SQL_IDENTIFIERS_CONFIG]).lower() == "always",
            max_retries=int(p[MAX_RETRIES_CONFIG]),  # type: ignore[call-overload]
            retry_backoff_ms=int(p[RETRY_BACKOFF_MS_CONFIG]),  # type: ignore[call-overload]
            trim_sensitive_log=bool(p[TRIM_SENSITIVE_LOG_CONFIG]),
        )


def _strings(value: object) -> tuple[str, ...]:
    return tuple(str(v).strip() for v in value if str(v).strip()) if isinstance(value, list) else ()
